import { isUtf8 } from 'node:buffer';
import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { NativeWebhook, verifyWebhook } from './webhook-verifier';

describe('Standard Webhooks verification with a native HMAC', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('signs exactly as the standardwebhooks package does for any text body, and any bytes as they are', () => {
    const reference = new Webhook(secret);
    const native = new NativeWebhook(secret);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    fc.assert(
      fc.property(fc.string(), fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }), fc.string({ unit: 'grapheme' }), fc.uint8Array(), (id, at, text, bytes) => {
        expect(native.sign(id, at, text)).toBe(reference.sign(id, at, text));
        const body = Buffer.from(bytes);
        // The package decodes bytes as UTF-8 first (a non-UTF-8 body is changed before signing); the native signer does not.
        if (isUtf8(body)) expect(native.sign(id, at, body)).toBe(reference.sign(id, at, body));
        const raw = `v1,${createHmac('sha256', key).update(`${id}.${Math.floor(at.getTime() / 1000)}.`).update(body).digest('base64')}`;
        expect(native.sign(id, at, body)).toBe(raw);
      }),
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
    expect(verifyWebhook(settings, [other], body, headers(secret))).toEqual({ ok: false, reason: 'no signature matches an active secret' });
    expect(verifyWebhook(settings, [secret], Buffer.from('{"event":"po.deleted"}'), headers(secret))).toEqual({ ok: false, reason: 'no signature matches an active secret' });
    const stale = verifyWebhook(settings, [secret], body, headers(secret, new Date(now.getTime() - 10 * 60_000)));
    expect(stale).toEqual({ ok: false, reason: expect.stringMatching(/timestamp too old/) });
    expect(verifyWebhook(settings, ['not-a-secret!'], body, headers(secret))).toEqual({ ok: false, reason: 'a secret could not be used (not base64 / whsec_ format)' });
    expect(verifyWebhook(settings, [secret], body, { ...headers(secret), 'webhook-timestamp': 'yesterday' })).toEqual({ ok: false, reason: 'webhook-timestamp is not a Unix time in seconds' });
  });
});
