import { processPipeline, type ProcessPipeline } from './support/processes';
import { DEMO } from './support/sandbox';

/**
 * Large JSON messages posted at once to a worker whose V8 heap is capped, as the worker is deployed
 * (docs/operations.md): each holds several times its text while it is translated, so the worker
 * admits them within worker.textBytesAtOnce (one at a time here) instead of reading them all at
 * once. Without that budget (WORKER_TEXT_BYTES_AT_ONCE set past them all) the worker runs out of
 * heap and dies on this test.
 */
const HEAP_MIB = 128;
const MESSAGES = 4;
const DOCUMENTS = 20_000; // ~8.5 MiB of JSON a message: two exceed the 16 MiB budget
const ADMIN_TOKEN = 'budget-admin-token-0123456789abc';

const document = (id: string, i: number) => ({
  id,
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  loads: [
    { name: 'Pallet', quantity: 1 + (i % 20), loadTag: `SKU-${i % 997}` },
    { name: 'Case', quantity: 10 + (i % 7) },
  ],
  validDates: { begin: '2026-12-01T00:00:00Z', end: '2026-12-08T00:00:00Z' },
  attributes: { note: `message document ${i} of a large batch, padded to the size of a real one` },
  type: { name: 'AdvanceShipNotice' },
});

describe(`${MESSAGES} JSON messages of ${DOCUMENTS} documents at once, the worker's heap ${HEAP_MIB} MiB`, () => {
  let pipeline: ProcessPipeline;
  beforeAll(async () => {
    pipeline = await processPipeline('budget', ADMIN_TOKEN, {
      heapMiB: HEAP_MIB,
      env: { GATEWAY_BODY_LIMIT_BYTES: String(16 * 1024 * 1024) },
    });
  }, 300_000);
  afterAll(() => pipeline?.stop());

  it('translates them in turn and delivers every document once, the worker never out of heap', async () => {
    const { admin, call, sandboxUrl, worker } = pipeline;
    await admin('PUT', '/v1/admin/partners/acme-wms', { name: 'ACME WMS', locationOrganisationId: DEMO.mainDc });
    const { key } = (await admin('POST', '/v1/admin/partners/acme-wms/api-keys', { label: 'budget' })) as {
      key: string;
    };
    const bodies = Array.from({ length: MESSAGES }, (_, m) =>
      JSON.stringify({
        operations: Array.from({ length: DOCUMENTS }, (_, i) => ({
          kind: 'document.upsert',
          organisationId: DEMO.mainDc,
          document: document(`BUDGET-${m}-${i}`, i),
        })),
      }),
    );
    const ids = await Promise.all(
      bodies.map(async (body) => {
        const response = await call('POST', '/v1/messages', { 'x-api-key': key }, body);
        expect(response.status).toBe(202);
        return ((await response.json()) as { messageId: string }).messageId;
      }),
    );

    const statuses = async () =>
      Promise.all(
        ids.map(
          async (id) =>
            (
              (await (
                await call('GET', `/v1/admin/messages/${id}?operationsLimit=1`, {
                  authorization: `Bearer ${ADMIN_TOKEN}`,
                })
              ).json()) as {
                message: { status: string };
              }
            ).message.status,
        ),
      );
    // waitUntil fails at once, with its output, should the worker die (out of heap).
    const settled = ['delivered', 'partially_failed', 'failed', 'rejected'];
    await worker.waitUntil(
      async () => (await statuses()).every((s) => settled.includes(s)),
      'every message settled',
      300_000,
    );
    expect(await statuses()).toEqual(ids.map(() => 'delivered'));
    expect(worker.running).toBe(true);
    // Each document went to the platform once: the jobs carried them all once, and the platform holds them.
    const jobs = (await (
      await fetch(`${sandboxUrl}/api/v2/organisations/${DEMO.mainDc}/document-jobs/`, {
        headers: { authorization: `Bearer ${DEMO.tokens.location}` },
      })
    ).json()) as { documentCount: number }[];
    expect(jobs.reduce((sum, job) => sum + job.documentCount, 0)).toBe(MESSAGES * DOCUMENTS);
    const stats = (await (await fetch(`${sandboxUrl}/__sandbox/stats`)).json()) as {
      documents: Record<string, number>;
    };
    expect(stats.documents[DEMO.mainDc]).toBe(MESSAGES * DOCUMENTS);
  }, 900_000);
});
