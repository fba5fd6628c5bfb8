import { ENDPOINT_TTL_MS, RefusalLog } from '@dockbridge/pipeline';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { OperationRepository } from '@dockbridge/audit';
import {
  importPartners,
  PartnerMappingRepository,
  PartnerRepository,
  WebhookSecretRepository,
} from '@dockbridge/partners';
import { DEMO, TestResponse } from './support/sandbox';
import { bulkReplay } from './support/replay-runs';
import { Spine, startSpine } from './support/spine';

const mapping = (name: string) => readFileSync(join(__dirname, '../config/mappings', name), 'utf8');

const purchaseOrder = (poNumber: string, extra: Record<string, unknown> = {}) => ({
  event: 'purchase_order.created',
  data: {
    poNumber,
    supplier: { code: 'SUP-KETTLE' },
    carrierScac: 'FFRT',
    window: { from: '2026-12-01T06:00:00Z', to: '2026-12-03T18:00:00Z' },
    lines: [
      { sku: 'SKU-100', description: 'Kettle chips 24x', qty: 12 },
      { sku: 'SKU-200', description: 'Sea salt 12x', qty: 4 },
    ],
    ...extra,
  },
});

describe('partner webhooks: verified, deduplicated, mapped with JSONata, delivered', () => {
  let spine: Spine;
  let wmsSecret: string;
  let tmsSecret: string;

  beforeAll(async () => {
    spine = await startSpine();
    // The shipped example profiles (config/partners/*.yaml with their JSONata mappings), as the gateway imports them.
    wmsSecret = `whsec_${randomBytes(32).toString('base64')}`;
    tmsSecret = 'tms-shared-secret-0123456789';
    const imported = await importPartners(spine.app.get(PartnerRepository), join(__dirname, '../config/partners'), {
      env: { ACME_WMS_WEBHOOK_SECRET: wmsSecret, FAST_FREIGHT_WEBHOOK_SECRET: tmsSecret },
      mappings: spine.app.get(PartnerMappingRepository),
      secrets: spine.app.get(WebhookSecretRepository),
    });
    expect(imported.imported).toEqual(['acme-wms', 'fast-freight', 'kettle-foods']);
    // Smaller than the shipped 1 MiB, so the 413 test stays small.
    const wms = (await spine.app.get(PartnerRepository).findById('acme-wms'))!;
    await spine.app.get(PartnerRepository).upsert(
      {
        ...wms,
        settings: { ...wms.settings, webhook: { ...wms.settings.webhook!, maxBodyBytes: 4096 }, exports: [] },
      },
      'api',
    );
  }, 60_000);
  afterAll(() => spine?.close());
  beforeEach(() => spine.sandbox.reset());

  /** Posts as a Standard Webhooks sender would, signing with `secret` (the package does the signing). */
  const sendStandard = (
    body: unknown,
    options: {
      secret?: string;
      id?: string;
      at?: Date;
      headers?: Record<string, string>;
      tamper?: (raw: string) => string;
    } = {},
  ): Promise<TestResponse> => {
    const raw = JSON.stringify(body);
    const id = options.id ?? `msg_${randomUUID()}`;
    const at = options.at ?? new Date();
    const signature = new Webhook(options.secret ?? wmsSecret).sign(id, at, raw);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
      ...options.headers,
    };
    return fetch(`${spine.url}/v1/webhooks/acme-wms`, {
      method: 'POST',
      headers,
      body: options.tamper ? options.tamper(raw) : raw,
    });
  };
  const sendTms = (body: unknown): Promise<TestResponse> => {
    const raw = JSON.stringify(body);
    const signature = `sha256=${createHmac('sha256', tmsSecret).update(raw).digest('hex')}`;
    return fetch(`${spine.url}/v1/webhooks/fast-freight`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tms-signature': signature },
      body: raw,
    });
  };
  const documentAt = async (id: string) =>
    spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/${id}`);
  const final = ['delivered', 'failed', 'partially_failed', 'rejected', 'duplicate'];

  it('delivers a validly signed purchase order as a document, recording the mapping version', async () => {
    const response = await sendStandard(purchaseOrder('PO-9001'));
    expect(response.status).toBe(202);
    const { messageId } = await response.json();
    expect(await spine.waitForStatus(messageId, final)).toBe('delivered');
    expect(await (await documentAt('PO-9001')).json()).toMatchObject({
      id: 'PO-9001',
      offsite: { id: DEMO.kettleFoods },
      carrier: { id: DEMO.fastFreight },
      loads: [
        { name: 'Kettle chips 24x', quantity: 12, loadTag: 'SKU-100' },
        { name: 'Sea salt 12x', quantity: 4, loadTag: 'SKU-200' },
      ],
      type: { name: 'PurchaseOrder' },
    });
    expect((await spine.messages.findById(messageId))?.metadata).toMatchObject({ mappingVersion: 1 });
  });

  it.each([
    [
      'a wrong secret',
      { secret: `whsec_${Buffer.from('not the secret at all, 32 bytes!').toString('base64')}` },
      /no signature matches/,
    ],
    ['a stale timestamp', { at: new Date(Date.now() - 10 * 60_000) }, /timestamp too old/i],
    ['a tampered body', { tamper: (raw: string) => raw.replace('PO-9002', 'PO-6666') }, /no signature matches/],
  ])(
    'refuses %s with 401, records the reason without the secret, and delivers nothing',
    async (_case, options, reason) => {
      const before = await spine.messages.countBy({ partnerId: 'acme-wms', status: 'rejected' });
      const response = await sendStandard(purchaseOrder('PO-9002'), options);
      expect(response.status).toBe(401);
      expect((await response.json()).details[0]).toMatch(reason);
      const [rejected] = (await spine.messages.search({ partnerId: 'acme-wms', status: 'rejected', limit: 1 })).items;
      expect(await spine.messages.countBy({ partnerId: 'acme-wms', status: 'rejected' })).toBe(before + 1);
      expect(rejected.statusReason).toMatch(reason);
      expect(JSON.stringify(rejected)).not.toContain(wmsSecret.slice(6, 20));
      expect((await documentAt('PO-9002')).status).toBe(404);
    },
  );

  it('never replays a webhook that failed verification', async () => {
    expect(
      (await sendStandard(purchaseOrder('PO-9012'), { tamper: (raw) => raw.replace('PO-9012', 'PO-FORGED') })).status,
    ).toBe(401);
    const [refused] = (await spine.messages.search({ partnerId: 'acme-wms', status: 'rejected', limit: 1 })).items;
    const replay = await spine.call('POST', `/v1/admin/messages/${refused.id}/replay`, { auth: 'admin', body: {} });
    expect(replay.status).toBe(422);
    expect((await replay.json()).details[0]).toMatch(/refused at ingress/);
    const bulk = await bulkReplay(spine, { partner: 'acme-wms', status: ['rejected'] });
    expect(bulk).toMatchObject({ status: 'completed', replayed: 0 });
    expect(bulk.skipped).toBeGreaterThan(0);
    expect(bulk.skips).toEqual(
      expect.arrayContaining([{ id: refused.id, reason: expect.stringMatching(/refused at ingress/) }]),
    );
    expect((await documentAt('PO-FORGED')).status).toBe(404);
  });

  it('records a validly signed body that is not JSON, sent as application/json, and rejects it with the reason', async () => {
    for (const [raw, reason] of [
      ['{"event": "purchase_order.created", ', /^payload is not valid JSON/],
      ['', /^payload is not valid JSON/],
    ] as const) {
      const id = `msg_${randomUUID()}`;
      const at = new Date();
      const headers = {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(wmsSecret).sign(id, at, raw),
      };
      // Fastify's JSON parser answered 400 before verification, and nothing was recorded.
      const response: TestResponse = await fetch(`${spine.url}/v1/webhooks/acme-wms`, {
        method: 'POST',
        headers,
        body: raw,
      });
      expect(response.status).toBe(202);
      const { messageId } = await response.json();
      expect(await spine.waitForStatus(messageId, final)).toBe('rejected');
      const message = await spine.messages.findById(messageId);
      expect(message?.statusReason).toMatch(reason);
      expect(message?.rawPayload).toBe(raw);
    }
    // Unsigned, it is refused and recorded like any other failed verification.
    const unsigned: TestResponse = await fetch(`${spine.url}/v1/webhooks/acme-wms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(unsigned.status).toBe(401);
  });

  /** Sends `body` as it is, correctly signed for acme-wms (Standard Webhooks): its bytes verify, whatever they hold. */
  const sendSignedBytes = (body: Buffer): Promise<TestResponse> => {
    const id = `msg_${randomUUID()}`;
    const at = Math.floor(Date.now() / 1000);
    const key = Buffer.from(wmsSecret.slice('whsec_'.length), 'base64');
    const signature = `v1,${createHmac('sha256', key).update(`${id}.${at}.`).update(body).digest('base64')}`;
    return fetch(`${spine.url}/v1/webhooks/acme-wms`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(at),
        'webhook-signature': signature,
      },
      body,
    });
  };

  it('says a correctly signed body that is not UTF-8 is not UTF-8 (its bytes verify), and records the refusal', async () => {
    const body = Buffer.concat([
      Buffer.from('{"event":"purchase_order.created","data":{"poNumber":"PO-'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}'),
    ]);
    const response = await sendSignedBytes(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'Webhook body is not UTF-8',
      details: ['the body is not valid UTF-8: webhook bodies are JSON, which is UTF-8 text'],
    });
    const [refusal] = (await spine.messages.search({ partnerId: 'acme-wms', status: 'rejected', limit: 1 })).items;
    expect(refusal.statusReason).toMatch(/not valid UTF-8/);
  });

  it('refuses a correctly signed body holding a raw NUL byte, naming where, and records the refusal', async () => {
    const body = Buffer.concat([
      Buffer.from('{"event":"purchase_order.created","data":{"poNumber":"PO-'),
      Buffer.from([0]),
      Buffer.from('9101"}}'),
    ]);
    const response = await sendSignedBytes(body);
    expect(response.status).toBe(400);
    const reason = 'the body holds a NUL byte at offset 57: JSON text has none (a NUL in a value is written \\u0000)';
    expect(await response.json()).toMatchObject({ error: 'Webhook body refused', details: [reason] });
    // The newest message of the partner is the refusal: nothing was accepted with the NUL changed.
    const [latest] = (await spine.messages.search({ partnerId: 'acme-wms', limit: 1 })).items;
    expect(latest).toMatchObject({
      status: 'rejected',
      statusReason: expect.stringContaining('NUL byte at offset 57'),
    });
  });

  it('refuses a signed body nested deeper than 64 levels, naming it, and records the refusal', async () => {
    const deep = (levels: number): unknown => (levels === 0 ? 'PO-9100' : { a: deep(levels - 1) });
    const response = await sendStandard({ ...purchaseOrder('PO-9100'), data: deep(100) });
    expect(response.status).toBe(400);
    const reason = expect.stringMatching(/^the JSON body nests deeper than 64 levels \(at position \d+\)$/) as string;
    expect(await response.json()).toMatchObject({ error: 'Webhook body refused', details: [reason] });
    const [refusal] = (await spine.messages.search({ partnerId: 'acme-wms', status: 'rejected', limit: 1 })).items;
    expect(refusal.statusReason).toEqual(reason);
    // Within the limits, the same purchase order goes through.
    expect((await sendStandard({ ...purchaseOrder('PO-9101'), data: deep(20) })).status).toBe(202);
  });

  it('answers 404 for a partner id that cannot exist (a NUL in it), not 500', async () => {
    const response: TestResponse = await fetch(`${spine.url}/v1/webhooks/acme%00wms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect((await response.json()).details).toEqual([expect.stringMatching(/^no webhook endpoint for partner/)]);
  });

  it('refuses missing signature headers with 401 naming them', async () => {
    const response: TestResponse = await fetch(`${spine.url}/v1/webhooks/acme-wms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(purchaseOrder('PO-9003')),
    });
    expect(response.status).toBe(401);
    expect((await response.json()).details[0]).toMatch(
      /missing webhook-id, webhook-timestamp, webhook-signature headers/,
    );
  });

  it('refuses an HMAC webhook signed with another secret, and every webhook of a partner with no active secret', async () => {
    const raw = JSON.stringify({
      eventId: 'forged-1',
      type: 'booking.requested',
      booking: {
        carrierScac: 'FFRT',
        supplier: 'SUP-KETTLE',
        slotStart: '2026-12-02T08:00:00Z',
        minutes: 30,
        pallets: 2,
      },
    });
    const post = (partner: string, header: string, signature: string): Promise<TestResponse> =>
      fetch(`${spine.url}/v1/webhooks/${partner}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [header]: signature },
        body: raw,
      });
    // fast-freight verifies HMAC-SHA256 (hex, "sha256=") in X-TMS-Signature: a well-formed HMAC under another secret.
    const [all, rejected] = await Promise.all([
      spine.messages.countBy({ partnerId: 'fast-freight' }),
      spine.messages.countBy({ partnerId: 'fast-freight', status: 'rejected' }),
    ]);
    const forged = await post(
      'fast-freight',
      'x-tms-signature',
      `sha256=${createHmac('sha256', 'not-the-tms-secret').update(raw).digest('hex')}`,
    );
    expect(forged.status).toBe(401);
    expect((await forged.json()).details).toEqual([
      'webhook verification failed: x-tms-signature does not match the sha256 HMAC of the body under any active secret',
    ]);
    // Recorded as refused, and nothing else: no message was accepted for translation.
    expect(await spine.messages.countBy({ partnerId: 'fast-freight', status: 'rejected' })).toBe(rejected + 1);
    expect(await spine.messages.countBy({ partnerId: 'fast-freight' })).toBe(all + 1);

    // A partner whose only secret has expired: even a signature made with that secret is refused.
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'lapsed-tms',
        name: 'Lapsed TMS',
        locationOrganisationId: DEMO.mainDc,
        settings: { webhook: { verification: 'hmac', signatureHeader: 'x-sig' } },
      },
      'api',
    );
    const secrets = spine.app.get(WebhookSecretRepository);
    const { record } = await secrets.add('lapsed-tms', { secret: 'lapsed-secret-0123456789', label: 'lapsed' });
    await secrets.expire('lapsed-tms', record.id);
    for (const signature of [
      createHmac('sha256', 'lapsed-secret-0123456789').update(raw).digest('hex'),
      createHmac('sha256', '').update(raw).digest('hex'),
      'anything',
    ]) {
      const response = await post('lapsed-tms', 'x-sig', signature);
      expect(response.status).toBe(401);
      expect((await response.json()).details).toEqual([
        'webhook verification failed: the partner has no active webhook secret',
      ]);
    }
    await spine.app.get(RefusalLog).flush();
    const lapsed = (await spine.messages.search({ partnerId: 'lapsed-tms', limit: 10 })).items;
    expect(lapsed.map((m) => m.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });

  it('accepts both secrets while a rotation overlaps, and only the new one after the old expires', async () => {
    const secrets = spine.app.get(WebhookSecretRepository);
    const rotated = await secrets.add('acme-wms', { label: 'rotated' });
    const withNew = await sendStandard(purchaseOrder('PO-9004'), { secret: rotated.secret });
    const withOld = await sendStandard(purchaseOrder('PO-9005'));
    expect([withNew.status, withOld.status]).toEqual([202, 202]);
    for (const response of [withNew, withOld]) {
      await spine.waitForStatus((await response.json()).messageId, final);
    }
    const old = (await secrets.list('acme-wms')).find((s) => s.label === 'production')!;
    await secrets.expire('acme-wms', old.id);
    // Gateways keep an endpoint's secrets for ENDPOINT_TTL_MS: an expiry set from elsewhere applies within that.
    await new Promise((resolve) => setTimeout(resolve, ENDPOINT_TTL_MS + 100));
    expect((await sendStandard(purchaseOrder('PO-9006'))).status).toBe(401);
    const afterExpiry = await sendStandard(purchaseOrder('PO-9007'), { secret: rotated.secret });
    expect(afterExpiry.status).toBe(202);
    await spine.waitForStatus((await afterExpiry.json()).messageId, final);
    wmsSecret = rotated.secret;
  });

  it('keeps webhook secrets encrypted in the database, sealing any stored before, and still verifies with them', async () => {
    const db = spine.app.get(DataSource);
    const stored: { secret: string }[] = await db.query(
      `SELECT secret FROM partner_webhook_secret WHERE partner_id = 'fast-freight'`,
    );
    expect(stored.length).toBeGreaterThan(0);
    for (const { secret } of stored) {
      expect(secret).toMatch(/^enc:v1:/);
      expect(secret).not.toContain(tmsSecret);
    }
    // A secret written in plain text (as before encryption at rest) is read, then sealed at start.
    await db.query(`UPDATE partner_webhook_secret SET secret = $1 WHERE partner_id = 'fast-freight'`, [tmsSecret]);
    await new Promise((resolve) => setTimeout(resolve, ENDPOINT_TTL_MS + 100));
    expect((await sendTms({ eventId: 'seal-1', type: 'ping' })).status).toBe(202);
    expect(await spine.app.get(WebhookSecretRepository).sealPlaintext()).toBe(stored.length);
    const resealed: { secret: string }[] = await db.query(
      `SELECT secret FROM partner_webhook_secret WHERE partner_id = 'fast-freight'`,
    );
    expect(resealed.every((row) => row.secret.startsWith('enc:v1:'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, ENDPOINT_TTL_MS + 100));
    expect((await sendTms({ eventId: 'seal-2', type: 'ping' })).status).toBe(202);
  });

  it('answers a repeated webhook-id with 200 and the original message id, and does not deliver it again', async () => {
    const id = `msg_${randomUUID()}`;
    const first = await (await sendStandard(purchaseOrder('PO-9008'), { id })).json();
    await spine.waitForStatus(first.messageId, final);
    const repeat = await sendStandard(purchaseOrder('PO-9008', { supplier: { code: 'CHANGED' } }), { id });
    expect(repeat.status).toBe(200);
    expect(await repeat.json()).toMatchObject({ messageId: first.messageId, duplicate: true });
    const duplicates = await spine.messages.search({ partnerId: 'acme-wms', status: 'duplicate', limit: 5 });
    expect(duplicates.items[0].metadata).toMatchObject({ duplicateOf: first.messageId });
    // Only the first message carries an operation on PO-9008: the repeat was never translated.
    expect((await spine.messages.search({ documentId: 'PO-9008' })).items.map((m) => m.id)).toEqual([first.messageId]);
    expect((await (await documentAt('PO-9008')).json()).offsite.coreId).toBe('SUP-KETTLE');
  });

  it('records one message for concurrent repeats of a webhook-id (one group commit), and each distinct webhook once', async () => {
    const id = `msg_${randomUUID()}`;
    // Sent at once, so they share commits: the key must still be claimed exactly once.
    const repeats = await Promise.all(Array.from({ length: 12 }, () => sendStandard(purchaseOrder('PO-9030'), { id })));
    const distinct = await Promise.all(Array.from({ length: 12 }, (_, i) => sendStandard(purchaseOrder(`PO-902${i}`))));
    const answers = await Promise.all(repeats.map(async (r) => ({ status: r.status, body: await r.json() })));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(11);
    const original = answers.find((a) => a.status === 202)!.body.messageId;
    expect(new Set(answers.map((a) => a.body.messageId))).toEqual(new Set([original]));
    expect(distinct.map((r) => r.status)).toEqual(Array(12).fill(202));
    const distinctIds = await Promise.all(distinct.map(async (r) => (await r.json()).messageId));
    expect(new Set(distinctIds).size).toBe(12);
    for (const messageId of [original, ...distinctIds]) {
      expect(await spine.waitForStatus(messageId, final)).toBe('delivered');
    }
    expect((await spine.messages.search({ documentId: 'PO-9030' })).items.map((m) => m.id)).toEqual([original]);
  });

  it('refuses a body over the partner limit with 413, recorded as a rejected request', async () => {
    const big: unknown = purchaseOrder('PO-9009', {
      lines: Array.from({ length: 200 }, (_, i) => ({ sku: `S${i}`, description: 'x'.repeat(20), qty: 1 })),
    });
    const response = await sendStandard(big);
    expect(response.status).toBe(413);
    const [rejected] = (await spine.messages.search({ partnerId: 'acme-wms', status: 'rejected', limit: 1 })).items;
    expect(rejected.statusReason).toMatch(/exceeds the partner's limit of 4096 bytes/);
  });

  it('records a flood of refusals one by one only up to the per-minute limit, then as one summary', async () => {
    // A partner of its own, so the flood leaves the other tests' refusals alone.
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'flood-wms',
        name: 'Flood WMS',
        locationOrganisationId: DEMO.mainDc,
        settings: { webhook: { verification: 'api-key', apiKeyHeader: 'x-flood-key' } },
      },
      'api',
    );
    await spine.app
      .get(WebhookSecretRepository)
      .add('flood-wms', { secret: 'the-right-key-0123456789', label: 'flood' });
    const limit = spine.config.gateway.refusalsPerMinute;
    const send = (key: string) =>
      fetch(`${spine.url}/v1/webhooks/flood-wms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-flood-key': key },
        body: '{"n":1}',
      });
    for (let i = 0; i < limit + 7; i++) {
      expect((await send(`wrong-key-${i}`)).status).toBe(401);
    }
    const refused = () => spine.messages.search({ partnerId: 'flood-wms', status: 'rejected', limit: 500 });
    expect((await refused()).items).toHaveLength(limit);

    await spine.app.get(RefusalLog).flush();
    const items = (await refused()).items;
    expect(items).toHaveLength(limit + 1);
    const summary = items.find((m) => m.metadata.suppressed !== undefined)!;
    expect(summary.metadata).toMatchObject({
      refusedAtIngress: true,
      suppressed: 7,
      suppressedByKind: { 'verification failed': 7 },
    });
    expect(summary.statusReason).toMatch(
      /^7 more webhooks refused in the minute from .+ \(7 verification failed\), counted, not recorded one by one$/,
    );
    // The key itself is never written anywhere.
    expect(JSON.stringify(items)).not.toContain('wrong-key-');
    // Accepted webhooks are never limited.
    expect((await send('the-right-key-0123456789')).status).toBe(202);
  });

  it('keeps a bounded diagnosis of refused bodies, never the bodies: a flood of large badly signed posts grows the store by little', async () => {
    // HMAC: the signature is over the body, so these bodies are read before they are refused.
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'flood-big',
        name: 'Flood of big posts',
        locationOrganisationId: DEMO.mainDc,
        settings: { webhook: { verification: 'hmac', signatureHeader: 'x-flood-sig' } },
      },
      'api',
    );
    await spine.app
      .get(WebhookSecretRepository)
      .add('flood-big', { secret: 'the-right-key-0123456789', label: 'flood' });
    const body = JSON.stringify({ filler: 'x'.repeat(900 * 1024) });
    for (let i = 0; i < 60; i++) {
      const response = await fetch(`${spine.url}/v1/webhooks/flood-big`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-flood-sig': `wrong-${i}`,
          authorization: `Bearer secret-${i}`,
        },
        body,
      });
      expect(response.status).toBe(401);
    }
    await spine.app.get(RefusalLog).flush();
    const [stored] = await spine.app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS rows, coalesce(sum(octet_length(raw_payload) + octet_length(metadata::text) + octet_length(status_reason)), 0)::int AS bytes FROM message WHERE partner_id = 'flood-big'`,
      );
    // 60 posts of ~900 KiB (53 MiB): the store keeps at most the minute's budget plus one summary.
    expect(stored.bytes).toBeLessThanOrEqual(spine.config.gateway.refusalBytesPerMinute + 1024);
    const items = (await spine.messages.search({ partnerId: 'flood-big', status: 'rejected', limit: 100 })).items;
    const one = await spine.messages.findById(items.find((m) => m.metadata.size !== undefined)!.id);
    expect(one!.rawPayload.length).toBeLessThanOrEqual(1024);
    expect(one!.metadata).toMatchObject({
      size: body.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      headers: { 'content-type': 'application/json' },
    });
    // Neither the signature nor any other credential header is kept.
    expect(JSON.stringify(items)).not.toMatch(/wrong-|secret-/);
    expect(items.find((m) => m.metadata.suppressed !== undefined)?.metadata.suppressed).toBe(60 - (items.length - 1));
  });

  it('refuses a webhook whose headers already fail verification before reading its body, recording the headers only', async () => {
    // An API key is checked from the headers alone: a wrong one is refused before the upload below is read.
    await spine.app.get(PartnerRepository).upsert(
      {
        id: 'keyed-wms',
        name: 'Keyed WMS',
        locationOrganisationId: DEMO.mainDc,
        settings: { webhook: { verification: 'api-key', apiKeyHeader: 'x-flood-key' } },
      },
      'api',
    );
    await spine.app
      .get(WebhookSecretRepository)
      .add('keyed-wms', { secret: 'the-right-key-0123456789', label: 'keyed' });
    const { status, body, sent } = await postEndless(`${spine.url}/v1/webhooks/keyed-wms`, {
      'content-type': 'application/json',
      'x-flood-key': 'not-the-key-42',
    });
    expect(status).toBe(401);
    expect(JSON.parse(body).details).toEqual([
      'webhook verification failed: x-flood-key does not match an active secret',
    ]);
    expect(sent).toBeLessThan(8 * 1024 * 1024);
    // Missing Standard Webhooks headers are refused the same way.
    const unsigned: TestResponse = await fetch(`${spine.url}/v1/webhooks/acme-wms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect((await unsigned.json()).details[0]).toMatch(
      /missing webhook-id, webhook-timestamp, webhook-signature headers/,
    );
    await spine.app.get(RefusalLog).flush();
    const items = (await spine.messages.search({ partnerId: 'keyed-wms', status: 'rejected', limit: 10 })).items;
    expect(items).toHaveLength(1);
    const refusal = (await spine.messages.findById(items[0].id))!;
    expect(refusal.statusReason).toBe('verification failed: x-flood-key does not match an active secret');
    expect(refusal.rawPayload).toBe('');
    expect(refusal.metadata).toMatchObject({ refusedAtIngress: true, headers: { 'content-type': 'application/json' } });
    expect(JSON.stringify(refusal)).not.toContain('not-the-key-42');
  });

  /** Sets acme-wms's body limit for the duration of `run` (endpoints are cached for a second). */
  const withWmsBodyLimit = async (maxBodyBytes: number, run: () => Promise<void>) => {
    const partners = spine.app.get(PartnerRepository);
    const setLimit = async (limit: number) => {
      const wms = (await partners.findById('acme-wms'))!;
      await partners.upsert(
        { ...wms, settings: { ...wms.settings, webhook: { ...wms.settings.webhook!, maxBodyBytes: limit } } },
        'api',
      );
      await new Promise((resolve) => setTimeout(resolve, ENDPOINT_TTL_MS + 100));
    };
    await setLimit(maxBodyBytes);
    try {
      await run();
    } finally {
      await setLimit(4096);
    }
  };

  it("takes bodies up to the partner's limit even above the gateway's general one, and refuses one declared over it unread", async () => {
    const gatewayLimit = spine.config.gateway.bodyLimitBytes;
    await withWmsBodyLimit(gatewayLimit + 2 * 1024 * 1024, async () => {
      const accepted = await sendStandard(purchaseOrder('PO-9040', { notes: 'x'.repeat(gatewayLimit + 1024 * 1024) }));
      expect(accepted.status).toBe(202);
      expect(await spine.waitForStatus((await accepted.json()).messageId, final)).toBe('delivered');

      const over = await sendStandard(purchaseOrder('PO-9041', { notes: 'x'.repeat(gatewayLimit + 3 * 1024 * 1024) }));
      expect(over.status).toBe(413);
      expect((await over.json()).details[0]).toMatch(/exceeds the partner's limit of \d+ bytes/);
      const [rejected] = (await spine.messages.search({ partnerId: 'acme-wms', status: 'rejected', limit: 1 })).items;
      expect(rejected.statusReason).toBe(
        `body of ${JSON.stringify(purchaseOrder('PO-9041', { notes: 'x'.repeat(gatewayLimit + 3 * 1024 * 1024) })).length} bytes exceeds the partner's limit of ${gatewayLimit + 2 * 1024 * 1024} bytes`,
      );
    });
  });

  it('reads a body sent without a declared length (chunked) only up to the partner limit', async () => {
    // An endless body (up to 64 MiB, the most a route admits) in 16 KiB chunks, made as they are pulled.
    const chunk = new TextEncoder().encode(`{"pad":"${'y'.repeat(16 * 1024)}`);
    let pulled = 0;
    const endless = new ReadableStream({
      pull(controller) {
        if (pulled >= 64 * 1024 * 1024) {
          return controller.close();
        }
        pulled += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const response = await fetch(`${spine.url}/v1/webhooks/acme-wms`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(wmsSecret).sign(id, at, 'x'),
      },
      body: endless,
      duplex: 'half',
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      statusCode: 413,
      details: [expect.stringMatching(/^body of at least \d+ bytes exceeds the partner's limit of 4096 bytes$/)],
    });
    // The gateway stopped reading at the limit: far less than the whole body was ever sent.
    expect(pulled).toBeLessThan(8 * 1024 * 1024);
    const [rejected] = (await spine.messages.search({ partnerId: 'acme-wms', status: 'rejected', limit: 1 })).items;
    expect(rejected.statusReason).toMatch(/^body of at least \d+ bytes exceeds the partner's limit of 4096 bytes$/);
  });

  it('rejects a payload the mapping turns into invalid operations, naming the path', async () => {
    const { messageId } = await (
      await sendStandard(purchaseOrder('PO-9010', { lines: [{ sku: 'S', description: 'D', qty: 'lots' }] }))
    ).json();
    expect(await spine.waitForStatus(messageId, final)).toBe('rejected');
    expect((await spine.messages.findById(messageId))?.statusReason).toMatch(
      /mapping v1 produced invalid operations: operations\[0\]\.document\.loads\[0\]\.quantity/,
    );
  });

  it('books through the TMS, refuses a status the platform does not allow with its reason, and retries GraphQL 502s', async () => {
    const created = await (
      await sendTms({
        eventId: 'ev-1',
        type: 'booking.requested',
        booking: {
          carrierScac: 'FFRT',
          supplier: 'SUP-KETTLE',
          slotStart: '2026-12-01T08:00:00Z',
          minutes: 45,
          pallets: 12,
        },
      })
    ).json();
    expect(await spine.waitForStatus(created.messageId, final)).toBe('delivered');
    const [operation] = await spine.app.get(OperationRepository).listByMessage(created.messageId);
    const bookingId = operation.targetId!;
    expect(bookingId).toMatch(/^MDB-26-/);

    const refused = await (
      await sendTms({ eventId: 'ev-2', type: 'booking.status_changed', bookingId, status: 'Completed' })
    ).json();
    expect(await spine.waitForStatus(refused.messageId, final)).toBe('failed');
    const [failed] = await spine.app.get(OperationRepository).listByMessage(refused.messageId);
    expect(failed).toMatchObject({ errorClass: 'permanent', attemptCount: 1 });
    expect(failed.lastError).toMatch(/Completed/);

    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ method: 'POST', path: '/api/v1/graphql', status: 502, count: 2 }] },
    });
    const arrived = await (
      await sendTms({ eventId: 'ev-3', type: 'booking.status_changed', bookingId, status: 'Arrived', trailer: 'TR-77' })
    ).json();
    expect(await spine.waitForStatus(arrived.messageId, final)).toBe('delivered');
    const [retried] = await spine.app.get(OperationRepository).listByMessage(arrived.messageId);
    expect(retried.attemptCount).toBe(3);

    const again = await sendTms({
      eventId: 'ev-3',
      type: 'booking.status_changed',
      bookingId,
      status: 'Arrived',
      trailer: 'TR-77',
    });
    expect(again.status).toBe(200);
  });

  it('delivers status changes to one booking in the order they were sent, even when the first is slow', async () => {
    const created = await (
      await sendTms({
        eventId: 'ev-order-1',
        type: 'booking.requested',
        booking: {
          carrierScac: 'FFRT',
          supplier: 'SUP-KETTLE',
          slotStart: '2026-12-03T08:00:00Z',
          minutes: 30,
          pallets: 4,
        },
      })
    ).json();
    expect(await spine.waitForStatus(created.messageId, final)).toBe('delivered');
    const bookingId = (await spine.app.get(OperationRepository).listByMessage(created.messageId))[0].targetId!;
    // The first change takes 600 ms at the platform; the second must wait for it, not overtake it.
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: {
        rules: [
          {
            method: 'POST',
            path: '/api/v1/graphql',
            graphqlOperation: 'updateBookingStatus',
            latencyMs: 600,
            status: 0,
            count: 1,
          },
        ],
      },
    });
    const arrived = await (
      await sendTms({
        eventId: 'ev-order-2',
        type: 'booking.status_changed',
        bookingId,
        status: 'Arrived',
        trailer: 'TR-9',
      })
    ).json();
    const unloading = await (
      await sendTms({ eventId: 'ev-order-3', type: 'booking.status_changed', bookingId, status: 'Unloading' })
    ).json();
    expect(await spine.waitForStatus(arrived.messageId, final)).toBe('delivered');
    expect(await spine.waitForStatus(unloading.messageId, final)).toBe('delivered');
    const gql = await spine.sandbox.call('POST', '/api/v1/graphql', {
      body: { query: `{ booking(id: "${bookingId}") { status { name } } }` },
    });
    expect((await gql.json()).data.booking.status.name).toBe('Unloading');
  });

  it('does not retry a createBooking whose outcome is unknown (no idempotency key): it fails, saying so', async () => {
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: {
        rules: [{ method: 'POST', path: '/api/v1/graphql', status: 502, count: 1, graphqlOperation: 'createBooking' }],
      },
    });
    const created = await (
      await sendTms({
        eventId: 'ev-unknown',
        type: 'booking.requested',
        booking: {
          carrierScac: 'FFRT',
          supplier: 'SUP-KETTLE',
          slotStart: '2026-12-02T08:00:00Z',
          minutes: 30,
          pallets: 2,
        },
      })
    ).json();
    expect(await spine.waitForStatus(created.messageId, final)).toBe('failed');
    const [operation] = await spine.app.get(OperationRepository).listByMessage(created.messageId);
    expect(operation).toMatchObject({ attemptCount: 1, errorClass: 'permanent' });
    expect(operation.lastError).toMatch(/outcome unknown after .*check the platform before replaying/);
  });

  it('replays with the original mapping version or the current one, as the operator chooses', async () => {
    const { messageId } = await (await sendStandard(purchaseOrder('PO-9011'))).json();
    await spine.waitForStatus(messageId, final);
    await spine.app
      .get(PartnerMappingRepository)
      .publish('acme-wms', mapping('acme-wms.jsonata').replace('"Open"', '"Open (v2)"'));

    const original = await (
      await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, { auth: 'admin', body: {} })
    ).json();
    await spine.waitForStatus(original.messageId, final);
    expect((await (await documentAt('PO-9011')).json()).status.name).toBe('Open');
    const current = await (
      await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, {
        auth: 'admin',
        body: { mapping: 'current' },
      })
    ).json();
    expect(await spine.waitForStatus(current.messageId, final)).toBe('delivered');
    expect((await (await documentAt('PO-9011')).json()).status.name).toBe('Open (v2)');
    expect((await spine.messages.findById(current.messageId))?.metadata).toMatchObject({ mappingVersion: 2 });
  });
  it('runs a mapping on a sample without recording anything: the operations, or the error at its position', async () => {
    const trial = (body: unknown) =>
      spine.call('POST', '/v1/admin/partners/acme-wms/mapping/test', { auth: 'admin', body });
    const before = await spine.messages.countBy({ partnerId: 'acme-wms' });
    const published = await trial({ sample: purchaseOrder('PO-TRY-1') });
    expect(published.status).toBe(200);
    const result = await published.json();
    expect(result.mappingVersion).toEqual(expect.any(Number));
    expect(result.operations).toEqual([
      expect.objectContaining({ kind: 'document.upsert', document: expect.objectContaining({ id: 'PO-TRY-1' }) }),
    ]);
    // A draft that does not parse: JSONata's message and where in the expression.
    const broken = await (await trial({ sample: {}, expression: '{ "a": data.( }' })).json();
    expect(broken).toEqual({ mappingVersion: null, error: expect.objectContaining({ position: expect.any(Number) }) });
    const nothing = await (await trial({ sample: { event: 'x' }, expression: 'data.nothing' })).json();
    expect(nothing.error.message).toBe('produced no operations for this payload');
    const invalid = await (await trial({ sample: {}, expression: '{"kind": "document.upsert"}' })).json();
    expect(invalid.error.message).toMatch(/^produced invalid operations: operations\[0\]/);
    expect((await trial({ expression: '1' })).status).toBe(400);
    expect(
      (await spine.call('POST', '/v1/admin/partners/nobody/mapping/test', { auth: 'admin', body: { sample: {} } }))
        .status,
    ).toBe(404);
    expect(await spine.messages.countBy({ partnerId: 'acme-wms' })).toBe(before);
  });
});

/**
 * Posts up to 64 MiB of spaces and resolves with the answer and the bytes written until it came.
 * The gateway answers and closes without reading such a body, so writes after the answer may fail
 * (EPIPE), which fetch reports instead of the answer; node:http reports the answer first.
 */
function postEndless(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8'), sent }));
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) {
        reject(error);
      }
    });
    const write = () => {
      while (!answered && sent < 64 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
      if (!answered) {
        req.end();
      }
    };
    write();
  });
}
