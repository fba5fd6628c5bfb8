import { DataSource } from 'typeorm';
import { MessageQueues, QUEUES } from '@dockbridge/pipeline';
import { DEMO, TestResponse } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/**
 * A platform outage longer than a handful of tries heals by itself: retries run for a duration
 * (the horizon), not a count, and a failing platform account pauses its deliveries and probes
 * instead of burning tries. While it waits, the message says `retrying`, when, and why.
 */
const final = ['delivered', 'failed', 'partially_failed', 'rejected', 'duplicate', 'superseded'];

describe('platform outages heal without a person', () => {
  let spine: Spine;
  const faults = (rules: unknown[]) =>
    spine.sandbox.call('POST', '/__sandbox/faults', { token: null, body: { rules } });

  beforeAll(async () => {
    // Tries every 20-200 ms: the old budget of 8 tries was spent within a second of an outage.
    spine = await startSpine({ 'delivery.retryHorizonMs': 120_000, 'delivery.breakerThreshold': 3 });
  }, 60_000);
  afterAll(() => spine?.close());

  it('delivers what a 4 s outage held up, with few tries, showing retrying meanwhile', async () => {
    await spine.sandbox.reset();
    await faults([{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 502 }]);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const response: TestResponse = await fetch(`${spine.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          operations: [
            {
              kind: 'document.upsert',
              organisationId: DEMO.mainDc,
              document: { id: `PO-OUT-${n}`, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
            },
          ],
        }),
      });
      ids.push((await response.json()).messageId);
    }
    const outageStarted = Date.now();
    let waiting: { status: string; operations: Record<string, unknown>[] } = { status: '', operations: [] };
    while (waiting.status !== 'retrying' && Date.now() - outageStarted < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      waiting = await (await spine.call('GET', `/v1/messages/${ids[0]}`)).json();
    }
    expect(waiting.status).toBe('retrying');
    expect(waiting.operations[0]).toMatchObject({
      status: 'retrying',
      error: expect.stringMatching(/502/),
      nextAttemptAt: expect.any(String),
    });

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 4000 - (Date.now() - outageStarted))));
    await spine.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
    for (const id of ids) {
      expect(await spine.waitForStatus(id, final, 90_000)).toBe('delivered');
    }

    // 4 s of 502s at 20-200 ms backoff would be 20+ tries each without the breaker.
    const [{ tries }] = await spine.app
      .get(DataSource)
      .query(`SELECT max(attempt_count)::int AS tries FROM operation WHERE message_id = ANY($1)`, [ids]);
    expect(tries).toBeLessThanOrEqual(12);
    const delivered = await (await spine.call('GET', `/v1/messages/${ids[0]}`)).json();
    expect(delivered).toMatchObject({ status: 'delivered', operations: [{ status: 'delivered', error: null }] });
  }, 120_000);
});

describe('an outage longer than the retry horizon', () => {
  let spine: Spine;
  beforeAll(async () => (spine = await startSpine({ 'delivery.retryHorizonMs': 1500 })), 60_000);
  afterAll(() => spine?.close());

  it('fails the operation with the reason once the horizon is reached, and its job ends there', async () => {
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 502 }] },
    });
    const response: TestResponse = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        operations: [
          {
            kind: 'document.upsert',
            organisationId: DEMO.mainDc,
            document: { id: 'PO-HORIZON', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
          },
        ],
      }),
    });
    const { messageId } = await response.json();
    expect(await spine.waitForStatus(messageId, final, 30_000)).toBe('failed');
    const [op] = await spine.app
      .get(DataSource)
      .query(`SELECT id, last_error FROM operation WHERE message_id = $1`, [messageId]);
    expect(op.last_error).toMatch(/502/);
    // Ended by the horizon, not left for BullMQ to retry (its count is a million).
    const job = await spine.app.get(MessageQueues).queue(QUEUES.deliver).getJob(op.id);
    expect(await job!.getState()).toBe('failed');
  }, 60_000);
});

describe("a retryable failure on every one of a deliver job's tries", () => {
  let spine: Spine;
  // A cap of 3 tries and a horizon far away: the count, not the horizon, ends retrying.
  beforeAll(async () => (spine = await startSpine({ 'delivery.attempts': 3 })), 60_000);
  afterAll(() => spine?.close());

  it('settles the operation failed on its last try, with the reason, and its job ends there', async () => {
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/PO-TRIES', status: 503 }] },
    });
    const response: TestResponse = await fetch(`${spine.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': spine.partnerKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        operations: [
          {
            kind: 'document.upsert',
            organisationId: DEMO.mainDc,
            document: { id: 'PO-TRIES', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
          },
        ],
      }),
    });
    const { messageId } = await response.json();
    expect(await spine.waitForStatus(messageId, final, 30_000)).toBe('failed');
    const [op] = await spine.app
      .get(DataSource)
      .query(`SELECT id, status, error_class, last_error, next_attempt_at FROM operation WHERE message_id = $1`, [
        messageId,
      ]);
    expect(op).toMatchObject({ status: 'failed', error_class: 'retryable', last_error: expect.stringMatching(/503/) });
    const attempts: { outcome: string }[] = await spine.app
      .get(DataSource)
      .query(`SELECT outcome FROM attempt WHERE operation_id = $1 ORDER BY started_at`, [op.id]);
    expect(attempts.map((a) => a.outcome)).toEqual(['retryable', 'retryable', 'retryable']);
    const job = await spine.app.get(MessageQueues).queue(QUEUES.deliver).getJob(op.id);
    expect(await job!.getState()).toBe('failed');
    expect(job!.attemptsMade).toBe(3);
  }, 60_000);
});
