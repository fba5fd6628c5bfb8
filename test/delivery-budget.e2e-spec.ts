import { processPipeline, type ProcessPipeline } from './support/processes';
import { DEMO } from './support/sandbox';

/**
 * Operations as dense as a message may carry (MAX_OPERATION_VALUES of `{}`, ~10 MB of heap each
 * parsed) delivered by a worker whose heap is capped as deployed, while the platform is slow to
 * answer: the worker holds each payload parsed until its call ends, 16 calls at once. It admits
 * them within its payload budget (worker.textBytesAtOnce, shared with translation), by the weight
 * stored with each, before it claims or reads one, instead of parsing as many as its concurrency
 * lets in. Without that budget (WORKER_TEXT_BYTES_AT_ONCE set
 * past them all) the worker runs out of heap and dies on this test.
 */
const HEAP_MIB = 192;
const MESSAGES = 2;
const OPERATIONS = 8; // a message of 8 x 149,990 values stays within the 1,500,000 a body may hold
const VALUES = 149_990;
const SLOW_MS = 1_000;
const ADMIN_TOKEN = 'delivery-budget-admin-token-0123456789';

describe(`${MESSAGES * OPERATIONS} operations of ${VALUES} values delivered by a worker of ${HEAP_MIB} MiB`, () => {
  let pipeline: ProcessPipeline;
  beforeAll(async () => {
    pipeline = await processPipeline('delivery-budget', ADMIN_TOKEN, { heapMiB: HEAP_MIB });
  }, 300_000);
  afterAll(() => pipeline?.stop());

  it("settles every one on the platform's answer to its one call, the worker never out of heap", async () => {
    const { admin, call, sandboxUrl, worker } = pipeline;
    await admin('PUT', '/v1/admin/partners/acme-tms', { name: 'ACME TMS', locationOrganisationId: DEMO.mainDc });
    const { key } = (await admin('POST', '/v1/admin/partners/acme-tms/api-keys', { label: 'budget' })) as {
      key: string;
    };
    const faults = await fetch(`${sandboxUrl}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ method: 'POST', path: '/api/v1/graphql', status: 0, latencyMs: SLOW_MS }] }),
    });
    expect(faults.ok).toBe(true);
    const dense = `[${'{},'.repeat(VALUES - 1)}{}]`;
    const body = (m: number) =>
      `{"operations":[${Array.from(
        { length: OPERATIONS },
        (_, i) =>
          `{"kind":"booking.create","organisationId":"${DEMO.mainDc}","booking":{"tasks":[],"name":"M${m}-${i}","extra":${dense}}}`,
      ).join(',')}]}`;
    const ids: string[] = [];
    for (let m = 0; m < MESSAGES; m++) {
      const response = await call('POST', '/v1/messages', { 'x-api-key': key }, body(m));
      expect(response.status).toBe(202);
      ids.push(((await response.json()) as { messageId: string }).messageId);
    }

    const detail = async (id: string) =>
      (await (await call('GET', `/v1/admin/messages/${id}`, { authorization: `Bearer ${ADMIN_TOKEN}` })).json()) as {
        message: { status: string };
        operations: { status: string; attemptCount: number; lastError: string }[];
      };
    const settled = ['delivered', 'partially_failed', 'failed', 'rejected'];
    // waitUntil fails at once, with its output, should the worker die (out of heap).
    await worker.waitUntil(
      async () => (await Promise.all(ids.map(detail))).every((d) => settled.includes(d.message.status)),
      'every message settled',
      300_000,
    );
    expect(worker.running).toBe(true);
    // Each was sent once and refused by the platform's schema (`extra` is no field of a booking): the
    // payloads went whole, and nothing was retried or lost.
    for (const id of ids) {
      const { message, operations } = await detail(id);
      expect(message.status).toBe('failed');
      expect(operations).toHaveLength(OPERATIONS);
      for (const operation of operations) {
        expect(operation).toMatchObject({ status: 'failed', attemptCount: 1 });
        expect(operation.lastError).toMatch(/extra/);
      }
    }
  }, 600_000);
});
