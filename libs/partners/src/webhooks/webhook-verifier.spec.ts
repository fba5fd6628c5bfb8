import { isUtf8 } from 'node:buffer';
import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { NativeWebhook, verifyWebhook, verifyWebhookHeaders } from './webhook-verifier';

describe('Standard Webhooks verification with a native HMAC', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('signs exactly as the standardwebhooks package does for any text body, and any bytes as they are', () => {
    const reference = new Webhook(secret);
    const native = new NativeWebhook(secret);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    fc.assert(
      fc.property(
        fc.string(),
        fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }),
        fc.string({ unit: 'grapheme' }),
        fc.uint8Array(),
        (id, at, text, bytes) => {
          expect(native.sign(id, at, text)).toBe(reference.sign(id, at, text));
          const body = Buffer.from(bytes);
          // The package decodes bytes as UTF-8 first (a non-UTF-8 body is changed before signing); the native signer does not.
          if (isUtf8(body)) {
            expect(native.sign(id, at, body)).toBe(reference.sign(id, at, body));
          }
          const raw = `v1,${createHmac('sha256', key)
            .update(`${id}.${Math.floor(at.getTime() / 1000)}.`)
            .update(body)
            .digest('base64')}`;
          expect(native.sign(id, at, body)).toBe(raw);
        },
      ),
    );
  });

  it('accepts what the package signs, under any of the active secrets, and names what is wrong otherwise', () => {
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    const body = Buffer.from('{"event":"po.created"}');
    const now = new Date();
    const headers = (signWith: string, at = now) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(signWith).sign('msg_1', at, body),
    });
    const settings = { verification: 'standard-webhooks' as const };
    expect(verifyWebhook(settings, [other, secret], body, headers(secret))).toEqual({ ok: true });
    expect(verifyWebhook(settings, [other], body, headers(secret))).toEqual({
      ok: false,
      reason: 'no signature matches an active secret',
    });
    expect(verifyWebhook(settings, [secret], Buffer.from('{"event":"po.deleted"}'), headers(secret))).toEqual({
      ok: false,
      reason: 'no signature matches an active secret',
    });
    const stale = verifyWebhook(settings, [secret], body, headers(secret, new Date(now.getTime() - 10 * 60_000)));
    expect(stale).toEqual({ ok: false, reason: expect.stringMatching(/timestamp too old/) });
    expect(verifyWebhook(settings, ['not-a-secret!'], body, headers(secret))).toEqual({
      ok: false,
      reason: 'a secret could not be used (not base64 / whsec_ format)',
    });
    expect(verifyWebhook(settings, [secret], body, { ...headers(secret), 'webhook-timestamp': 'yesterday' })).toEqual({
      ok: false,
      reason: 'webhook-timestamp is not a Unix time in seconds',
    });
  });
});

describe('verification from the headers alone (before the body is read)', () => {
  const now = () => String(Math.floor(Date.now() / 1000));
  const standard = { verification: 'standard-webhooks' as const };

  it('refuses missing or stale Standard Webhooks headers, and leaves the signature to the body', () => {
    const full = { 'webhook-id': 'msg_1', 'webhook-timestamp': now(), 'webhook-signature': 'v1,abc' };
    expect(verifyWebhookHeaders(standard, ['whsec_x'], full)).toEqual({ ok: true });
    expect(verifyWebhookHeaders(standard, ['whsec_x'], { 'webhook-id': 'msg_1' })).toEqual({
      ok: false,
      reason: 'missing webhook-timestamp, webhook-signature headers',
      bySecret: false,
    });
    expect(
      verifyWebhookHeaders(standard, ['whsec_x'], { ...full, 'webhook-timestamp': String(Number(now()) - 600) }),
    ).toMatchObject({ ok: false, reason: 'Message timestamp too old (tolerance 5 minutes)' });
    expect(
      verifyWebhookHeaders(standard, ['whsec_x'], { ...full, 'webhook-timestamp': String(Number(now()) + 600) }),
    ).toMatchObject({ ok: false, reason: 'Message timestamp too new (tolerance 5 minutes)' });
    expect(verifyWebhookHeaders(standard, [], full)).toEqual({
      ok: false,
      reason: 'the partner has no active webhook secret',
      bySecret: true,
    });
  });

  it('decides an API key outright, and an HMAC signature only as far as its header and prefix', () => {
    const apiKey = { verification: 'api-key' as const, apiKeyHeader: 'x-key' };
    expect(verifyWebhookHeaders(apiKey, ['right-key'], { 'x-key': 'right-key' })).toEqual({ ok: true });
    expect(verifyWebhookHeaders(apiKey, ['right-key'], { 'x-key': 'wrong-key' })).toEqual({
      ok: false,
      reason: 'x-key does not match an active secret',
      bySecret: true,
    });
    expect(verifyWebhookHeaders(apiKey, ['right-key'], {})).toEqual({
      ok: false,
      reason: 'missing x-key header',
      bySecret: false,
    });
    const hmac = { verification: 'hmac' as const, signatureHeader: 'x-sig', prefix: 'sha256=' };
    expect(verifyWebhookHeaders(hmac, ['s'], { 'x-sig': 'sha256=00' })).toEqual({ ok: true });
    expect(verifyWebhookHeaders(hmac, ['s'], { 'x-sig': '00' })).toMatchObject({
      ok: false,
      reason: 'x-sig does not start with sha256=',
    });
    const body = Buffer.from('{}');
    const signature = `sha256=${createHmac('sha256', 's').update(body).digest('hex')}`;
    expect(verifyWebhook(hmac, ['s'], body, { 'x-sig': signature })).toEqual({ ok: true });
    expect(verifyWebhook(hmac, ['s'], Buffer.from('{ }'), { 'x-sig': signature })).toMatchObject({ ok: false });
  });
});

describe('HMAC and API-key verification of the body, and partners without an active secret', () => {
  const body = Buffer.from('{"eventId":"ev-1","type":"ping"}');
  const hmacOf = (secret: string, data: Buffer, encoding: 'hex' | 'base64' = 'hex') =>
    createHmac('sha256', secret).update(data).digest(encoding);

  it('refuses a well-formed HMAC made with another secret, for the very same body', () => {
    const hmac = { verification: 'hmac' as const, signatureHeader: 'x-tms-signature', prefix: 'sha256=' };
    expect(
      verifyWebhook(hmac, ['right-secret'], body, { 'x-tms-signature': `sha256=${hmacOf('right-secret', body)}` }),
    ).toEqual({ ok: true });
    expect(
      verifyWebhook(hmac, ['right-secret'], body, { 'x-tms-signature': `sha256=${hmacOf('wrong-secret', body)}` }),
    ).toEqual({
      ok: false,
      reason: 'x-tms-signature does not match the sha256 HMAC of the body under any active secret',
    });
    // Any other 64 hex digits, a truncated signature, or nothing after the prefix.
    for (const given of [
      `sha256=${'0'.repeat(64)}`,
      `sha256=${hmacOf('right-secret', body).slice(0, 32)}`,
      'sha256=',
    ]) {
      expect({
        given,
        verification: verifyWebhook(hmac, ['right-secret'], body, { 'x-tms-signature': given }),
      }).toEqual({ given, verification: { ok: false, reason: expect.any(String) } });
    }
  });

  it('compares base64 HMACs exactly, and any one of several active secrets may match', () => {
    const hmac = { verification: 'hmac' as const, encoding: 'base64' as const };
    expect(verifyWebhook(hmac, ['old', 'new'], body, { 'x-signature': hmacOf('new', body, 'base64') })).toEqual({
      ok: true,
    });
    expect(verifyWebhook(hmac, ['old', 'new'], body, { 'x-signature': hmacOf('newer', body, 'base64') })).toMatchObject(
      { ok: false },
    );
    expect(verifyWebhook(hmac, ['old', 'new'], body, { 'x-signature': hmacOf('new', body, 'hex') })).toMatchObject({
      ok: false,
    });
  });

  it('refuses every webhook of a partner with no active secret, whatever it is signed with', () => {
    const reason = 'the partner has no active webhook secret';
    const hmac = { verification: 'hmac' as const };
    expect(verifyWebhook(hmac, [], body, { 'x-signature': hmacOf('', body) })).toEqual({ ok: false, reason });
    expect(verifyWebhook(hmac, [], body, { 'x-signature': hmacOf('anything', body) })).toEqual({ ok: false, reason });
    const apiKey = { verification: 'api-key' as const };
    expect(verifyWebhook(apiKey, [], body, { 'x-api-key': '' })).toEqual({ ok: false, reason });
    expect(verifyWebhook(apiKey, [], body, { 'x-api-key': 'any-key' })).toEqual({ ok: false, reason });
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const at = new Date();
    const standard = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('msg_1', at, body.toString()),
    };
    expect(verifyWebhook({ verification: 'standard-webhooks' }, [], body, standard)).toEqual({ ok: false, reason });
    for (const verification of ['hmac', 'api-key', 'standard-webhooks'] as const) {
      expect(verifyWebhookHeaders({ verification }, [], { 'x-signature': 'x', 'x-api-key': 'x', ...standard })).toEqual(
        { ok: false, reason, bySecret: true },
      );
    }
  });
});

describe('webhook verification at its edges', () => {
  const body = Buffer.from('{"event":"po.created"}');
  const standard = { verification: 'standard-webhooks' as const };
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const signed = (at: Date, data: Buffer = body, signWith = secret) => ({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(signWith).sign('msg_1', at, data),
  });

  afterEach(() => jest.restoreAllMocks());

  it('accepts a webhook-timestamp up to 5 minutes either side of now, and not a second more', () => {
    const now = 1_800_000_000;
    jest.spyOn(Date, 'now').mockReturnValue(now * 1000);
    const headers = (timestamp: number) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': 'v1,abc',
    });
    for (const ok of [now - 300, now - 60, now + 60, now + 300]) {
      expect({ ok, verification: verifyWebhookHeaders(standard, [secret], headers(ok)) }).toEqual({
        ok,
        verification: { ok: true },
      });
    }
    expect(verifyWebhookHeaders(standard, [secret], headers(now - 301))).toMatchObject({ ok: false });
    expect(verifyWebhookHeaders(standard, [secret], headers(now + 301))).toMatchObject({ ok: false });
  });

  it('names a single missing header in the singular', () => {
    expect(verifyWebhookHeaders(standard, [secret], { 'webhook-id': 'msg_1', 'webhook-timestamp': '1' })).toMatchObject(
      { ok: false, reason: 'missing webhook-signature header' },
    );
  });

  it('verifies a body that is not JSON as the bytes it is (an EDI file, say)', () => {
    const edi = Buffer.from('ISA*00*          *00*~');
    expect(verifyWebhook(standard, [secret], edi, signed(new Date(), edi))).toEqual({ ok: true });
  });

  it('says no signature matches when a usable secret fails after an unusable one', () => {
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(verifyWebhook(standard, ['not-a-secret!', other], body, signed(new Date()))).toEqual({
      ok: false,
      reason: 'no signature matches an active secret',
    });
  });

  it("passes on the package's own timestamp refusal with the tolerance (the clock moved on between the checks)", () => {
    const at = new Date(1_800_000_000_000);
    jest
      .spyOn(Date, 'now')
      .mockReturnValueOnce(at.getTime())
      .mockReturnValue(at.getTime() + 10 * 60_000);
    expect(verifyWebhook(standard, [secret], body, signed(at))).toEqual({
      ok: false,
      reason: 'Message timestamp too old (tolerance 5 minutes)',
    });
  });

  it('signs as the package does with a secret given as plain base64, without whsec_', () => {
    const plain = randomBytes(32).toString('base64');
    const at = new Date(1_800_000_000_000);
    expect(new NativeWebhook(plain).sign('msg_1', at, 'hello')).toBe(new Webhook(plain).sign('msg_1', at, 'hello'));
  });

  it('accepts an api-key webhook whose key matches any one active secret, under x-api-key by default', () => {
    const apiKey = { verification: 'api-key' as const };
    expect(verifyWebhook(apiKey, ['old-key', 'new-key'], body, { 'x-api-key': 'new-key' })).toEqual({ ok: true });
    expect(verifyWebhookHeaders(apiKey, ['old-key', 'new-key'], { 'x-api-key': 'old-key' })).toEqual({ ok: true });
    expect(verifyWebhookHeaders(apiKey, ['old-key'], { 'x-key': 'old-key' })).toEqual({
      ok: false,
      reason: 'missing x-api-key header',
      bySecret: false,
    });
  });

  it('reads an HMAC signature with blanks around it and hex digits in either case', () => {
    const hmac = { verification: 'hmac' as const, signatureHeader: 'x-sig', prefix: 'sha256=' };
    const digest = createHmac('sha256', 's').update(body).digest('hex');
    expect(verifyWebhookHeaders(hmac, ['s'], { 'x-sig': `  sha256=${digest} ` })).toEqual({ ok: true });
    expect(verifyWebhook(hmac, ['s'], body, { 'x-sig': ` sha256=${digest}  ` })).toEqual({ ok: true });
    expect(verifyWebhook(hmac, ['s'], body, { 'x-sig': `sha256=${digest.toUpperCase()}` })).toEqual({ ok: true });
    expect(verifyWebhookHeaders(hmac, ['s'], {})).toEqual({
      ok: false,
      reason: 'missing x-sig header',
      bySecret: false,
    });
    expect(verifyWebhookHeaders(hmac, ['s'], { 'x-sig': '   ' })).toMatchObject({ reason: 'missing x-sig header' });
  });
});
