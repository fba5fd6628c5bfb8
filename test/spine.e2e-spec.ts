import { Client } from 'pg';
import { OperationRepository, ReplayRunRepository } from '@dockbridge/audit';
import { PartnerRepository } from '@dockbridge/partners';
import {
  AcceptMessage,
  BULK_REPLAY_LIMIT,
  BulkReplays,
  CANONICAL_CONTENT_TYPE,
  DeliverOperation,
  JSON_CUT_CHARS,
  MessageQueues,
  QUEUES,
  ReplayMessage,
  SweepStuck,
  translateJobId,
} from '@dockbridge/pipeline';
import { bulkReplay, waitForRun } from './support/replay-runs';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

const document = (id: string, extra: Record<string, unknown> = {}): Record<string, any> => ({
  id,
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' },
  carrier: { coreName: 'SCAC', coreId: 'FFRT' },
  loads: [{ name: 'Pallet', quantity: 10 }],
  type: { name: 'PurchaseOrder' },
  ...extra,
});
const upsert = (doc: Record<string, unknown>) => ({
  kind: 'document.upsert',
  organisationId: DEMO.mainDc,
  document: doc,
});

describe('delivery spine: gateway, queue, worker, sandbox', () => {
  let spine: Spine;
  // At 50% injected 502s an operation fails all of n tries with probability 2^-n: 25 tries make a
  // flaky run (20 operations) about one in a million, where the default 8 would be one in thirteen.
  // The breaker stays shut: once the last operation alone failed 5 times in a row it paused it 1, 2,
  // 4, … s per failed probe, past the test's minute one run in ~64 (test/outage covers the breaker).
  beforeAll(
    async () => (spine = await startSpine({ 'delivery.attempts': 25, 'delivery.breakerThreshold': 1_000 })),
    60_000,
  );
  afterAll(() => spine?.close());
  beforeEach(() => spine.sandbox.reset());

  it('delivers a message of 10 documents: 10 documents at the sandbox, message delivered, 10 attempts', async () => {
    const response = await spine.call('POST', '/v1/messages', {
      body: { operations: Array.from({ length: 10 }, (_, i) => upsert(document(`PO-${i}`))) },
    });
    expect(response.status).toBe(202);
    const { messageId, status } = await response.json();
    expect(status).toBe('received');

    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed'])).toBe('delivered');
    const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    expect(stats.documents[DEMO.mainDc]).toBe(10);
    const stored = await (
      await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/PO-3`)
    ).json();
    expect(stored).toMatchObject({
      id: 'PO-3',
      carrier: { id: DEMO.fastFreight },
      loads: [{ name: 'Pallet', quantity: 10 }],
    });

    const detail = await (await spine.call('GET', `/v1/admin/messages/${messageId}`, { auth: 'admin' })).json();
    expect(detail.operations).toHaveLength(10);
    expect(detail.operations.flatMap((op: { attempts: unknown[] }) => op.attempts)).toHaveLength(10);
    expect(detail.operations.every((op: { status: string }) => op.status === 'delivered')).toBe(true);
    expect(detail.events.map((e: { toStatus: string }) => e.toStatus)).toEqual([
      'received',
      'translating',
      'delivering',
      'delivered',
    ]);

    const own = await (await spine.call('GET', `/v1/messages/${messageId}`)).json();
    expect(own).toMatchObject({ messageId, status: 'delivered' });
  });

  it('queues the messages of one commit as a translate job per 32, and delivers every one of them', async () => {
    const accept = spine.app.get(AcceptMessage);
    const messageOf = (id: string) => ({
      partnerId: 'test-wms',
      channel: 'api' as const,
      contentType: CANONICAL_CONTENT_TYPE,
      rawPayload: JSON.stringify({ operations: [upsert(document(id))] }),
    });
    // Submitted in one turn of the event loop: one group commit.
    const accepted = await Promise.all(Array.from({ length: 40 }, (_, i) => accept.execute(messageOf(`G-${i}`))));
    const ids = accepted.map((a) => a.messageId);
    const jobIds = (await Promise.all(ids.map((id) => spine.messages.findById(id)))).map(
      (m) => m?.metadata.ingressJob as string,
    );
    expect(new Set(jobIds).size).toBe(2);
    for (const jobId of jobIds) {
      expect(jobId).toMatch(/^ingress-/);
    }
    const queue = spine.app.get(MessageQueues).queue(QUEUES.translate);
    const [first, second] = await Promise.all([queue.getJob(jobIds[0]), queue.getJob(jobIds[39])]);
    expect(first?.data).toEqual({ messageIds: ids.slice(0, 32) });
    expect(second?.data).toEqual({ messageIds: ids.slice(32) });
    for (const id of ids) {
      expect(await spine.waitForStatus(id, ['delivered', 'failed', 'partially_failed'])).toBe('delivered');
    }
    const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    expect(stats.documents[DEMO.mainDc]).toBe(40);
  });

  it('sweeps a received message only once the job of its commit is gone', async () => {
    const queue = spine.app.get(MessageQueues).queue(QUEUES.translate);
    const ingressJob = `ingress-test-${Date.now()}`;
    const [recorded] = await spine.messages.recordMany([
      {
        message: {
          partnerId: 'test-wms',
          channel: 'api',
          contentType: CANONICAL_CONTENT_TYPE,
          rawPayload: JSON.stringify({ operations: [upsert(document('S-1'))] }),
          metadata: { ingressJob },
        },
      },
    ]);
    if (recorded instanceof Error) {
      throw recorded;
    }
    // Its commit's job waits (a backlog): the sweeper leaves the message to it.
    const backlog = await queue.add(
      QUEUES.translate,
      { messageIds: [recorded.id] },
      { jobId: ingressJob, delay: 3_600_000 },
    );
    const later = new Date(Date.now() + 3_600_000);
    const sweep = spine.app.get(SweepStuck);
    await sweep.execute(later);
    expect(await queue.getJob(translateJobId(recorded.id))).toBeUndefined();
    // The job is lost (a Redis restart, say): the sweeper queues the message on its own.
    await backlog.remove();
    await sweep.execute(later);
    expect(await spine.waitForStatus(recorded.id, ['delivered', 'failed', 'partially_failed'])).toBe('delivered');
  });

  it('recovers a backlog of lost messages in one sweep, not 500 a sweep', async () => {
    // 1,200 messages recorded while Redis was away: no job anywhere. An unknown content type makes their translation cheap (rejected).
    const recorded = await spine.messages.recordMany(
      Array.from({ length: 1200 }, (_, i) => ({
        message: {
          partnerId: 'test-wms',
          channel: 'api' as const,
          contentType: 'application/x-lost',
          rawPayload: `{"n":${i}}`,
          metadata: { ingressJob: `ingress-gone-${i}` },
        },
      })),
    );
    const ids = recorded.map((r) => {
      if (r instanceof Error) {
        throw r;
      }
      return r.id;
    });
    const report = await spine.app.get(SweepStuck).execute(new Date(Date.now() + 3_600_000));
    expect(report.translations).toBeGreaterThanOrEqual(1200);
    for (const id of [ids[0], ids[599], ids[1199]]) {
      expect(await spine.waitForStatus(id, ['rejected'], 60_000)).toBe('rejected');
    }
  }, 90_000);

  it('settles a message whose operations were all delivered when a job finds it so, without waiting for the sweeper', async () => {
    const message = await spine.messages.record({
      partnerId: 'test-wms',
      channel: 'api',
      contentType: CANONICAL_CONTENT_TYPE,
      rawPayload: JSON.stringify({ operations: [upsert(document('S-9'))] }),
    });
    const operations = spine.app.get(OperationRepository);
    const [op] = await operations.addMany(message.id, [
      { kind: 'document.upsert', organisationId: DEMO.mainDc, targetId: 'S-9', payload: upsert(document('S-9')) },
    ]);
    await spine.messages.transition(message.id, 'delivering', 'worker');
    // Delivered, but the worker died before settling the message.
    await operations.recordAttempt(
      op.id,
      { startedAt: new Date(), durationMs: 1, outcome: 'success' },
      { status: 'delivered' },
    );
    expect((await spine.messages.findById(message.id))!.status).toBe('delivering');
    expect(await spine.app.get(DeliverOperation).execute(op.id, { attempt: 2, isLast: false })).toBe('already-settled');
    expect((await spine.messages.findById(message.id))!.status).toBe('delivered');
  });

  it('ends a message that fails translation on every try as failed with the error, instead of leaving it for the sweeper', async () => {
    // A partner of its own: the failed message must not count in other tests' searches.
    await spine.app
      .get(PartnerRepository)
      .upsert({ id: 'poison-wms', name: 'Poison WMS', locationOrganisationId: DEMO.mainDc }, 'api');
    const [recorded] = await spine.messages.recordMany([
      {
        message: {
          partnerId: 'poison-wms',
          channel: 'api',
          contentType: CANONICAL_CONTENT_TYPE,
          rawPayload: JSON.stringify({ operations: [upsert(document('POISON-1'))] }),
        },
      },
    ]);
    if (recorded instanceof Error) {
      throw recorded;
    }
    // A real, lasting failure: the database refuses this message's operations.
    const db = new Client({ connectionString: spine.database.url });
    await db.connect();
    try {
      await db.query(`CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.message_id = '${recorded.id}' THEN RAISE EXCEPTION 'operations of this message cannot be stored'; END IF; RETURN NEW; END $$`);
      await db.query(
        `CREATE TRIGGER refuse_poison BEFORE INSERT ON operation FOR EACH ROW EXECUTE FUNCTION refuse_poison()`,
      );
      const queue = spine.app.get(MessageQueues).queue(QUEUES.translate);
      await queue.add(
        QUEUES.translate,
        { messageIds: [recorded.id] },
        { jobId: translateJobId(recorded.id), attempts: 2, backoff: { type: 'fixed', delay: 10 } },
      );
      expect(await spine.waitForStatus(recorded.id, ['failed', 'delivered'])).toBe('failed');
      expect((await spine.messages.findById(recorded.id))?.statusReason).toBe(
        'translation failed on each of 2 tries: operations of this message cannot be stored',
      );
    } finally {
      await db.query(`DROP TRIGGER IF EXISTS refuse_poison ON operation; DROP FUNCTION IF EXISTS refuse_poison()`);
      await db.end();
    }
    // Not stuck: the sweeper leaves it to the engineers (a replay), and it stays failed.
    await spine.app.get(SweepStuck).execute(new Date(Date.now() + 3_600_000));
    expect((await spine.messages.findById(recorded.id))?.status).toBe('failed');
  });

  it('refuses a bad body with 400 naming the field, and records nothing', async () => {
    const before = await spine.messages.countBy({});
    const response = await spine.call('POST', '/v1/messages', {
      body: { operations: [upsert(document('PO-X', { direction: 'Up' }))] },
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toMatchObject({
      statusCode: 400,
      error: 'Invalid message',
      details: [expect.stringMatching(/^operations\[0\]\.document\.direction/)],
    });
    expect(await spine.messages.countBy({})).toBe(before);
    expect((await spine.call('POST', '/v1/messages', { body: '{"operations": [' })).status).toBe(400);
  });

  it('takes a body too large to parse at once as a small one: the same message, the same refusals', async () => {
    const operations = Array.from({ length: 1500 }, (_, i) => upsert(document(`PO-LARGE-${i}`)));
    const text = JSON.stringify({ operations });
    expect(text.length).toBeGreaterThan(JSON_CUT_CHARS); // parsed in turns of the event loop
    const small = JSON.stringify({ operations: operations.slice(0, 1) });
    const refusal = async (body: string) => {
      const response = await spine.call('POST', '/v1/messages', { body });
      return { status: response.status, body: await response.json() };
    };
    const before = await spine.messages.countBy({});
    const poisoned = [
      (body: string) => body.slice(0, -1),
      (body: string) => body.replace('{"operations"', '{"__proto__":{"admin":true},"operations"'),
      (body: string) => body.replace('{"operations"', '{"constructor":{"prototype":{"admin":true}},"operations"'),
      (body: string) => body.replace('"id":"PO-LARGE-0"', '"id":"PO-LARGE-0","__proto__":{"admin":true}'),
      // A byte-order mark is not JSON inside a body (Fastify's parser strips one only at its start).
      (body: string) => body.replace('{"operations":[', '{"operations":[\uFEFF'),
    ];
    for (const spoil of poisoned) {
      const large = await refusal(spoil(text));
      expect(large).toEqual(await refusal(spoil(small)));
      expect(large).toMatchObject({ status: 400, body: { details: [expect.stringMatching(/not valid JSON/)] } });
    }
    expect(await spine.messages.countBy({})).toBe(before);

    const accepted = await spine.call('POST', '/v1/messages', { body: text });
    expect(accepted.status).toBe(202);
    const { messageId } = await accepted.json();
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed'], 60_000)).toBe('delivered');
    const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    expect(stats.documents[DEMO.mainDc]).toBe(1500);
  }, 90_000);

  it('refuses, naming the problem, what would otherwise be accepted and then never settle, and records nothing', async () => {
    const before = await spine.messages.countBy({});
    // An array where an operation belongs passed validation, and translation failed on it for ever (stuck in translating).
    const nested = await spine.call('POST', '/v1/messages', { body: '{"operations":[[]]}' });
    expect(nested.status).toBe(400);
    expect((await nested.json()).details).toEqual(['operations[0] must be an object']);
    // Valid JSON, but an unpaired surrogate cannot be stored as jsonb: the operation rows were never written.
    const surrogate = await spine.call('POST', '/v1/messages', {
      body: `{"operations":[{"kind":"document.delete","organisationId":"${DEMO.mainDc}","documentId":"PO-\\ud800"}]}`,
    });
    expect(surrogate.status).toBe(400);
    expect((await surrogate.json()).details).toEqual([
      expect.stringMatching(/^operations\[0\]\.documentId contains an unpaired UTF-16 surrogate/),
    ]);
    // Bytes sent as another type were judged as operations ("a string contains the NUL character"); the type is the problem.
    const binary = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/octet-stream' },
      body: Buffer.from([0, 1, 2, 255]),
    });
    expect(binary.status).toBe(415);
    expect(await binary.json()).toEqual({
      statusCode: 415,
      error: 'Unsupported media type',
      details: ['content-type must be application/json (got application/octet-stream)'],
    });
    const notJson = await spine.call('POST', '/v1/messages', { body: '{"operations": [' });
    expect(await notJson.json()).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      details: [expect.stringMatching(/not valid JSON/)],
    });
    expect(await spine.messages.countBy({})).toBe(before);
  });

  it('answers admin filters and fields the store cannot hold with 400 naming them, not 500', async () => {
    const search = await spine.call('GET', '/v1/admin/messages?partner=%00', { auth: 'admin' });
    expect(search.status).toBe(400);
    expect((await search.json()).details).toEqual([
      'partner contains the NUL character (\\u0000), which cannot be stored',
    ]);
    const bulk = await spine.call('POST', '/v1/admin/messages/replay', {
      auth: 'admin',
      body: { documentId: 'PO-\u0000' },
    });
    expect(bulk.status).toBe(400);
    const label = await spine.call('POST', '/v1/admin/partners/test-wms/api-keys', {
      auth: 'admin',
      body: { label: 'x\u0000' },
    });
    expect((await label.json()).details).toEqual([
      'label contains the NUL character (\\u0000), which cannot be stored',
    ]);
    const expire = await spine.call(
      'POST',
      '/v1/admin/partners/%00/webhook-secrets/00000000-0000-0000-0000-000000000000/expire',
      { auth: 'admin', body: {} },
    );
    expect(expire.status).toBe(404);
    // "no" was taken as a dry run without a word; only true or false mean anything.
    const dryRun = await spine.call('POST', '/v1/admin/messages/replay', {
      auth: 'admin',
      body: { status: ['failed'], dryRun: 'no' },
    });
    expect(dryRun.status).toBe(400);
    expect((await dryRun.json()).details).toEqual(['dryRun must be a boolean value']);
  });

  it('refuses a missing or wrong API key with 401, and the admin API without its token', async () => {
    expect(
      (await spine.call('POST', '/v1/messages', { auth: null, body: { operations: [upsert(document('A'))] } })).status,
    ).toBe(401);
    const wrong = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'dbk_wrong', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    expect((await spine.call('GET', '/v1/admin/messages', { auth: 'partner' })).status).toBe(401);
  });

  it('retries through 50% injected 502s until every document is delivered, without changing any twice', async () => {
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 502, rate: 0.5 }] },
    });
    const docs = Array.from({ length: 20 }, (_, i) => document(`RT-${i}`, { description: `revision ${i}` }));
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', { body: { operations: docs.map(upsert) } })
    ).json();
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed'], 60_000)).toBe('delivered');

    const detail = await (await spine.call('GET', `/v1/admin/messages/${messageId}`, { auth: 'admin' })).json();
    const attempts = detail.operations.flatMap(
      (op: { attempts: { outcome: string; httpStatus: number }[] }) => op.attempts,
    );
    expect(attempts.filter((a: { outcome: string }) => a.outcome === 'success')).toHaveLength(20);
    const retried = attempts.filter((a: { outcome: string }) => a.outcome === 'retryable');
    expect(retried.length).toBeGreaterThan(0);
    expect(retried.every((a: { httpStatus: number }) => a.httpStatus === 502)).toBe(true);

    const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    const puts = stats.requests['PUT /api/v2/organisations/:orgId/documents/:docId'];
    expect(puts['201']).toBe(20); // each document created exactly once; a retry after a 502 finds nothing to undo
    for (const doc of docs) {
      const stored = await (
        await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/${doc.id}`)
      ).json();
      expect(stored.description).toBe(doc.description);
    }
  });

  it('ends a 400 at once with the platform reason (partially_failed), and edit-and-replay delivers it', async () => {
    const bad = document('BAD-1', { offsite: { coreName: 'ACME', coreId: 'SUP-UNKNOWN' } });
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', { body: { operations: [upsert(document('OK-1')), upsert(bad)] } })
    ).json();
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed'])).toBe('partially_failed');

    const detail = await (await spine.call('GET', `/v1/admin/messages/${messageId}`, { auth: 'admin' })).json();
    const failed = detail.operations.find((op: { targetId: string }) => op.targetId === 'BAD-1');
    expect(failed).toMatchObject({ status: 'failed', errorClass: 'permanent', attemptCount: 1 });
    expect(failed.lastError).toMatch(/offsite: no organisation with Core ID ACME\/SUP-UNKNOWN/);

    const search = await (
      await spine.call('GET', `/v1/admin/messages?status=partially_failed&documentId=BAD-1`, { auth: 'admin' })
    ).json();
    expect(search.items.map((m: { id: string }) => m.id)).toEqual([messageId]);

    const fixed = { operations: [upsert({ ...bad, offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' } })] };
    const replay = await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, {
      auth: 'admin',
      body: { payload: fixed, reason: 'fixed the supplier code', operator: 'jo' },
    });
    expect(replay.status).toBe(202);
    const { messageId: replayId, replayOf } = await replay.json();
    expect(replayOf).toBe(messageId);
    expect(await spine.waitForStatus(replayId, ['delivered', 'failed', 'partially_failed'])).toBe('delivered');
    expect((await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/BAD-1`)).status).toBe(200);
    // The original is never rewritten.
    expect((await spine.messages.findById(messageId))?.status).toBe('partially_failed');
  });

  it('retries only the failed operations, and counts a bulk replay before doing it', async () => {
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', {
        body: { operations: [upsert(document('F-1', { carrier: { coreName: 'SCAC', coreId: 'NOPE' } }))] },
      })
    ).json();
    expect(await spine.waitForStatus(messageId, ['failed', 'delivered'])).toBe('failed');
    await spine.sandbox.call('POST', '/__sandbox/reset', { token: null });

    const dry = await (
      await spine.call('POST', '/v1/admin/messages/replay', {
        auth: 'admin',
        body: { status: ['failed'], partner: 'test-wms' },
      })
    ).json();
    expect(dry).toEqual({ dryRun: true, matching: 1, skipped: [] });
    const retry = await (
      await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, {
        auth: 'admin',
        body: { mode: 'failed-only' },
      })
    ).json();
    expect(await spine.waitForStatus(retry.messageId, ['failed', 'delivered'])).toBe('failed');
    const replayed = await spine.messages.findById(retry.messageId);
    expect(replayed).toMatchObject({ replayOf: messageId, channel: 'replay' });
  });

  it('replays failed-only as just the failed operations of a message of several, leaving the delivered ones alone', async () => {
    // FO-2 and FO-4 are refused once (a permanent 400); FO-1 and FO-3 are delivered.
    const rules = ['FO-2', 'FO-4'].map((id) => ({
      method: 'PUT',
      path: `/api/v2/organisations/*/documents/${id}`,
      status: 400,
      count: 1,
    }));
    await spine.sandbox.call('POST', '/__sandbox/faults', { token: null, body: { rules } });
    const ids = ['FO-1', 'FO-2', 'FO-3', 'FO-4'];
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', { body: { operations: ids.map((id) => upsert(document(id))) } })
    ).json();
    expect(await spine.waitForStatus(messageId, ['failed', 'delivered', 'partially_failed'])).toBe('partially_failed');
    const operations = spine.app.get(OperationRepository);
    const statusOf = async (id: string) =>
      Object.fromEntries((await operations.listByMessage(id)).map((op) => [op.targetId, op.status]));
    expect(await statusOf(messageId)).toEqual({
      'FO-1': 'delivered',
      'FO-2': 'failed',
      'FO-3': 'delivered',
      'FO-4': 'failed',
    });
    const puts = async () => {
      const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
      const put = stats.requests['PUT /api/v2/organisations/:orgId/documents/:docId'] ?? {};
      return Object.entries(put).reduce((sum, [status, n]) => sum + (status.startsWith('2') ? Number(n) : 0), 0);
    };
    const before = await puts();

    const retry = await (
      await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, {
        auth: 'admin',
        body: { mode: 'failed-only' },
      })
    ).json();
    expect(await spine.waitForStatus(retry.messageId, ['failed', 'delivered', 'partially_failed'])).toBe('delivered');
    // The replay carries the two failed operations, in order, and nothing else: two more writes, not four.
    expect((await operations.listByMessage(retry.messageId)).map((op) => op.targetId)).toEqual(['FO-2', 'FO-4']);
    expect(
      JSON.parse((await spine.messages.findById(retry.messageId))!.rawPayload).operations.map(
        (op: { document: { id: string } }) => op.document.id,
      ),
    ).toEqual(['FO-2', 'FO-4']);
    expect(await puts()).toBe(before + 2);
    expect(await statusOf(messageId)).toEqual({
      'FO-1': 'delivered',
      'FO-2': 'failed',
      'FO-3': 'delivered',
      'FO-4': 'failed',
    });
  });

  it('skips in bulk what was already replayed successfully (dry run and real run alike), unless told to include it', async () => {
    const { messageId } = await (
      await spine.call('POST', '/v1/messages', {
        body: { operations: [upsert(document('R-1', { carrier: { coreName: 'SCAC', coreId: 'NOPE' } }))] },
      })
    ).json();
    expect(await spine.waitForStatus(messageId, ['failed', 'delivered'])).toBe('failed');
    const fixed = await spine.call('POST', `/v1/admin/messages/${messageId}/replay`, {
      auth: 'admin',
      body: { payload: { operations: [upsert(document('R-1'))] } },
    });
    const fixedId = (await fixed.json()).messageId;
    expect(await spine.waitForStatus(fixedId, ['failed', 'delivered'])).toBe('delivered');

    const bulk = (body: Record<string, unknown>) =>
      spine
        .call('POST', '/v1/admin/messages/replay', {
          auth: 'admin',
          body: { status: ['failed'], documentId: 'R-1', ...body },
        })
        .then((r) => r.json());
    const reason = `already replayed: replay ${fixedId} was delivered (includeReplayed: true replays it again)`;
    expect(await bulk({})).toEqual({ dryRun: true, matching: 0, skipped: [{ id: messageId, reason }] });
    expect(await bulk({ includeReplayed: true })).toEqual({ dryRun: true, matching: 1, skipped: [] });
    expect(await bulkReplay(spine, { status: ['failed'], documentId: 'R-1' })).toMatchObject({
      status: 'completed',
      total: 1,
      done: 1,
      replayed: 0,
      skipped: 1,
      skips: [{ id: messageId, reason }],
    });
    // The message links to its replays and their outcome.
    const detail = await (await spine.call('GET', `/v1/admin/messages/${messageId}`, { auth: 'admin' })).json();
    expect(detail.replays).toEqual([expect.objectContaining({ id: fixedId, status: 'delivered' })]);
  });

  /** Messages sent now that end failed (an unknown carrier), and the time before they were sent. */
  const failedMessages = async (prefix: string, count: number) => {
    const since = new Date().toISOString();
    const ids: string[] = [];
    for (let n = 1; n <= count; n++) {
      ids.push(
        (
          await (
            await spine.call('POST', '/v1/messages', {
              body: {
                operations: [upsert(document(`${prefix}-${n}`, { carrier: { coreName: 'SCAC', coreId: 'NOPE' } }))],
              },
            })
          ).json()
        ).messageId,
      );
    }
    for (const id of ids) {
      expect(await spine.waitForStatus(id, ['failed', 'delivered'])).toBe('failed');
    }
    return { since, ids };
  };

  it('runs a real bulk replay as a job: 202 with its id and Location, then completed with exact counts, one replay per original', async () => {
    const { since, ids } = await failedMessages('JOB', 3);
    const response = await spine.call('POST', '/v1/admin/messages/replay', {
      auth: 'admin',
      body: {
        status: ['failed'],
        partner: 'test-wms',
        from: since,
        dryRun: false,
        reason: 'carrier fixed',
        operator: 'jo',
      },
    });
    // It used to answer 200 only when every replay was recorded: 2,000 messages outlived the CLI's timeout.
    expect(response.status).toBe(202);
    const started = await response.json();
    expect(started).toEqual({
      dryRun: false,
      runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'queued',
      limit: BULK_REPLAY_LIMIT,
      location: `/v1/admin/replays/${started.runId}`,
    });
    expect(response.headers.get('location')).toBe(started.location);

    const run = await waitForRun(spine, started.runId);
    expect(run).toMatchObject({
      status: 'completed',
      total: 3,
      done: 3,
      replayed: 3,
      skipped: 0,
      skips: [],
      limit: BULK_REPLAY_LIMIT,
      limitReached: false,
      error: null,
      actor: 'operator:jo',
      reason: 'carrier fixed',
      request: { mode: 'rerun', oldestFirst: true },
    });
    expect(run.startedAt).toEqual(expect.any(String));
    expect(run.finishedAt).toEqual(expect.any(String));
    for (const id of ids) {
      const replays = await spine.messages.replaysOf(id);
      expect(replays).toHaveLength(1);
      expect((await spine.messages.findById(replays[0].id))?.metadata.replay).toMatchObject({
        run: started.runId,
        by: 'operator:jo',
        reason: 'carrier fixed',
      });
      expect(await spine.waitForStatus(replays[0].id, ['failed', 'delivered'])).toBe('failed'); // the carrier is still unknown
    }
    const listed = await (await spine.call('GET', '/v1/admin/replays?limit=5', { auth: 'admin' })).json();
    expect(listed.items[0]).toMatchObject({ runId: started.runId, status: 'completed', replayed: 3 });
    expect(
      (await spine.call('GET', '/v1/admin/replays/01900000-0000-7000-8000-000000000000', { auth: 'admin' })).status,
    ).toBe(404);
    expect((await spine.call('GET', '/v1/admin/replays/not-a-run', { auth: 'admin' })).status).toBe(400);
    expect((await spine.call('GET', `/v1/admin/replays/${started.runId}`, { auth: null })).status).toBe(401);
  });

  it('resumes an interrupted bulk replay run without replaying any original twice', async () => {
    const { since, ids } = await failedMessages('RESUME', 3);
    const runs = spine.app.get(ReplayRunRepository);
    const run = await runs.create({
      filter: { status: ['failed'], partnerId: 'test-wms', from: since },
      request: { mode: 'rerun' },
      actor: 'operator:test',
    });
    // A worker took the run, replayed two originals and died before it recorded the page (its claim then lapses).
    expect((await runs.claim(run.id, 'a-worker-that-died', 0)).outcome).toBe('claimed');
    await spine.app
      .get(ReplayMessage)
      .replayEach([{ id: ids[0] }, { id: ids[1] }], { mode: 'rerun', actor: 'operator:test' }, { runId: run.id });
    expect(await runs.findById(run.id)).toMatchObject({ status: 'running', done: 0, replayed: 0 });

    // The job runs again, twice at once (a retry and a stalled-job redelivery): one replay per original.
    const bulk = spine.app.get(BulkReplays);
    const executions = await Promise.allSettled([bulk.execute(run.id), bulk.execute(run.id)]);
    expect(executions.some((e) => e.status === 'fulfilled')).toBe(true);
    await bulk.execute(run.id); // and once more after it ended
    expect(await runs.findById(run.id)).toMatchObject({
      status: 'completed',
      total: 3,
      done: 3,
      replayed: 3,
      skipped: 0,
      limitReached: false,
    });
    for (const id of ids) {
      const replays = await spine.messages.replaysOf(id);
      expect(replays).toHaveLength(1);
      expect(await spine.waitForStatus(replays[0].id, ['failed', 'delivered'])).toBe('failed'); // settled before the next test counts platform calls
    }
  });

  it('queues again a bulk replay run whose job was lost (Redis restarted empty), and it completes', async () => {
    const { since, ids } = await failedMessages('LOSTRUN', 2);
    const runs = spine.app.get(ReplayRunRepository);
    // Recorded, but its job never reached Redis (or Redis forgot it).
    const run = await runs.create({
      filter: { status: ['failed'], partnerId: 'test-wms', from: since },
      request: { mode: 'rerun' },
      actor: 'operator:test',
    });
    await spine.app.get(MessageQueues).queue(QUEUES.replay).remove(`replay-${run.id}`);
    const db = new Client({ connectionString: spine.database.url });
    await db.connect();
    await db
      .query(`UPDATE replay_run SET updated_at = now() - interval '1 hour' WHERE id = $1`, [run.id])
      .finally(() => db.end());
    const report = await spine.app.get(SweepStuck).execute();
    expect(report.replayRuns).toBe(1);
    for (let i = 0; i < 200 && (await runs.findById(run.id))!.status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await runs.findById(run.id)).toMatchObject({ status: 'completed', replayed: 2 });
    for (const id of ids) {
      const replays = await spine.messages.replaysOf(id);
      expect(replays).toHaveLength(1);
      expect(await spine.waitForStatus(replays[0].id, ['failed', 'delivered'])).toBe('failed');
    }
  });

  it('sends 1,000 documents in one message through the batch path', async () => {
    const operations = Array.from({ length: 1000 }, (_, i) => upsert(document(`B-${String(i).padStart(4, '0')}`)));
    const { messageId } = await (await spine.call('POST', '/v1/messages', { body: { operations } })).json();
    expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed'], 60_000)).toBe('delivered');
    const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    expect(stats.documents[DEMO.mainDc]).toBe(1000);
    expect(stats.requests['POST /api/v2/organisations/:orgId/document-jobs']).toEqual({ '200': 1 });
    expect(stats.requests['PUT /api/v2/organisations/:orgId/documents/:docId']).toBeUndefined();
    const counts = await spine.app.get(OperationRepository).statusCounts(messageId);
    expect(counts.delivered).toBe(1000);
  });

  it("takes the batch path from the partner's own batch threshold when it has one", async () => {
    const partners = spine.app.get(PartnerRepository);
    const partner = (await partners.findById('test-wms'))!;
    await partners.upsert({ ...partner, settings: { ...partner.settings, batchThreshold: 3 } }, 'api');
    try {
      const operations = ['T-1', 'T-2', 'T-3'].map((id) => upsert(document(id)));
      const { messageId } = await (await spine.call('POST', '/v1/messages', { body: { operations } })).json();
      expect(await spine.waitForStatus(messageId, ['delivered', 'failed', 'partially_failed'])).toBe('delivered');
      const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
      expect(stats.requests['POST /api/v2/organisations/:orgId/document-jobs']).toEqual({ '200': 1 });
      expect(stats.requests['PUT /api/v2/organisations/:orgId/documents/:docId']).toBeUndefined();
    } finally {
      await partners.upsert(partner, 'api');
    }
  });
});
