import type { DocumentJob, DocumentJobResultEntry } from '@dockbridge/platform';
import { DEMO, RunningSandbox, startSandbox } from './support/sandbox';

const jobs = (orgId: string = DEMO.mainDc) => `/api/v2/organisations/${orgId}/document-jobs`;
const doc = (id: string) => ({
  id,
  direction: 'Outbound',
  offsite: { coreName: 'ACME', coreId: 'CUS-HARBOUR' },
  loads: [{ name: 'Case', quantity: 4 }],
});

async function settle(sandbox: RunningSandbox, jobId: string): Promise<DocumentJob> {
  for (let i = 0; i < 500; i++) {
    const job: DocumentJob = await (await sandbox.call('GET', `${jobs()}/${jobId}`)).json();
    if (job.completedAt) {
      return job;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe('sandbox batch document jobs', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => (sandbox = await startSandbox()));
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());

  it('queues an upsert batch at once (200 with the job record), then completes it asynchronously', async () => {
    const response = await sandbox.call('POST', `${jobs()}/`, {
      body: [doc('A'), doc('B'), { ...doc('C'), direction: 'Sideways' }],
    });
    expect(response.status).toBe(200);
    const queued: DocumentJob = await response.json();
    expect(queued).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      status: 'Queued',
      completedAt: null,
      documentCount: 3,
      errors: 0,
    });

    const done = await settle(sandbox, queued.id);
    expect(done).toMatchObject({ status: 'Completed', documentCount: 3, errors: 1 });
    const result: DocumentJobResultEntry[] = await (await sandbox.call('GET', `${jobs()}/${queued.id}/result`)).json();
    expect(result).toEqual([
      { id: 'A', status: 'Created' },
      { id: 'B', status: 'Created' },
      { id: 'C', status: 'Failed', error: { code: 'InvalidDocument', message: expect.stringMatching(/direction/) } },
    ]);
    expect((await sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/B`)).status).toBe(200);
  });

  it('accepts the {"documents": [...]} container and reports Updated for existing documents', async () => {
    const first: DocumentJob = await (await sandbox.call('POST', jobs(), { body: [doc('A')] })).json();
    await settle(sandbox, first.id);
    const second: DocumentJob = await (
      await sandbox.call('POST', jobs(), { body: { documents: [doc('A'), doc('B')] } })
    ).json();
    await settle(sandbox, second.id);
    const result = await (await sandbox.call('GET', `${jobs()}/${second.id}/result`)).json();
    expect(result.map((e: DocumentJobResultEntry) => e.status)).toEqual(['Updated', 'Created']);
  });

  it('deletes in batch: Deleted, or Failed with DocumentNotFound', async () => {
    await settle(sandbox, (await (await sandbox.call('POST', jobs(), { body: [doc('A'), doc('B')] })).json()).id);
    const response = await sandbox.call('DELETE', `${jobs()}/documents`, { body: ['A', 'GHOST', 'B'] });
    expect(response.status).toBe(200);
    const job = await settle(sandbox, (await response.json()).id);
    expect(job).toMatchObject({ status: 'Completed', documentCount: 3, errors: 1 });
    const result = await (await sandbox.call('GET', `${jobs()}/${job.id}/result`)).json();
    expect(result).toEqual([
      { id: 'A', status: 'Deleted' },
      { id: 'GHOST', status: 'Failed', error: { code: 'DocumentNotFound', message: expect.stringContaining('GHOST') } },
      { id: 'B', status: 'Deleted' },
    ]);
  });

  it('refuses an empty delete list, a non-array body, an empty upsert and more than 25,000 documents with 400', async () => {
    const empty = await sandbox.call('DELETE', `${jobs()}/documents`, { body: [] });
    expect(empty.status).toBe(400);
    expect((await empty.json()).details[0]).toMatch(/must not be empty/);
    expect((await sandbox.call('DELETE', `${jobs()}/documents`, { body: { ids: ['A'] } })).status).toBe(400);
    expect((await sandbox.call('POST', jobs(), { body: [] })).status).toBe(400);
    const tooMany = await sandbox.call('POST', jobs(), {
      body: Array.from({ length: 25_001 }, (_, i) => doc(`D${i}`)),
    });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).details[0]).toMatch(/25001 documents exceed the limit of 25000/);
  });

  it('refuses batches where documents are not enabled (400) and without permission (403)', async () => {
    expect((await sandbox.call('DELETE', `${jobs(DEMO.crossDock)}/documents`, { body: ['A'] })).status).toBe(400);
    expect((await sandbox.call('POST', jobs(), { body: [doc('A')], token: DEMO.tokens.readonly })).status).toBe(403);
    expect((await sandbox.call('POST', jobs(), { body: [doc('A')], token: null })).status).toBe(401);
  });

  it('cancels a Queued job (200, Cancelled) and refuses to cancel a finished one (409)', async () => {
    await sandbox.call('POST', '/__sandbox/jobs', { body: { paused: true }, token: null });
    const queued: DocumentJob = await (await sandbox.call('POST', jobs(), { body: [doc('A')] })).json();
    const cancelled = await sandbox.call('DELETE', `${jobs()}/${queued.id}`);
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id: queued.id, status: 'Cancelled' });
    await sandbox.call('POST', '/__sandbox/jobs', { body: { paused: false }, token: null });

    const finished = await settle(
      sandbox,
      (await (await sandbox.call('POST', jobs(), { body: [doc('B')] })).json()).id,
    );
    expect((await sandbox.call('DELETE', `${jobs()}/${finished.id}`)).status).toBe(409);
    expect((await sandbox.call('DELETE', `${jobs()}/${queued.id}`)).status).toBe(409);
    expect((await sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/A`)).status).toBe(404);
  });

  it("lists the location's jobs as a bare array, and 404s for an unknown job", async () => {
    const a: DocumentJob = await (await sandbox.call('POST', jobs(), { body: [doc('A')] })).json();
    const b: DocumentJob = await (await sandbox.call('DELETE', `${jobs()}/documents`, { body: ['A'] })).json();
    const list: DocumentJob[] = await (await sandbox.call('GET', jobs())).json();
    expect(list.map((j) => j.id)).toEqual([a.id, b.id]);
    expect((await sandbox.call('GET', `${jobs()}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await sandbox.call('GET', `${jobs()}/00000000-0000-4000-8000-000000000000/result`)).status).toBe(404);
  });
});

describe('sandbox controls', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => (sandbox = await startSandbox()));
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());

  const put = (id: string) =>
    sandbox.call('PUT', `/api/v2/organisations/${DEMO.mainDc}/documents/${id}?upsert=true`, { body: doc(id) });

  it('injects a status for matching requests, `count` times, before authentication', async () => {
    const set = await sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 503, count: 2 }] },
    });
    expect(set.status).toBe(200);
    expect((await put('A')).status).toBe(503);
    const second = await sandbox.call('PUT', `/api/v2/organisations/${DEMO.mainDc}/documents/A?upsert=true`, {
      body: doc('A'),
      token: null,
    });
    expect(second.status).toBe(503);
    expect((await put('A')).status).toBe(201);
    expect((await sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/A`)).status).toBe(200);
  });

  it('defaults to 502 at rate 1, and `*` matches exactly one segment', async () => {
    await sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ path: '/api/v2/organisations/*/documents' }] },
    });
    expect((await sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents`)).status).toBe(502);
    expect((await put('A')).status).toBe(201);
  });

  it('applies a rate: roughly that share of requests fails', async () => {
    await sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ path: '/api/v2/organisations/*/documents/*', rate: 0.5 }] },
    });
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => put(`R${i}`).then((r) => r.status)));
    const failed = statuses.filter((s) => s === 502).length;
    expect(failed).toBeGreaterThan(60);
    expect(failed).toBeLessThan(140);
  });

  it('adds latency, passes through with status 0, and clears with DELETE', async () => {
    await sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ path: '/api/v2/organisations/*/documents/*', latencyMs: 150, status: 0 }] },
    });
    const started = Date.now();
    expect((await put('A')).status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await sandbox.call('DELETE', '/__sandbox/faults', { token: null })).status).toBe(200);
    expect((await (await sandbox.call('GET', '/__sandbox/faults', { token: null })).json()).rules).toEqual([]);
  });

  it('refuses malformed rules with 400 naming the rule', async () => {
    const response = await sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ path: 'no-slash', rate: 2 }] },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).details).toEqual([
      expect.stringMatching(/^rules\[0\]\.path/),
      expect.stringMatching(/^rules\[0\]\.rate/),
    ]);
  });

  it('counts requests per route and status, and documents per organisation; reset returns to the seed', async () => {
    await put('A');
    await put('A');
    await sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/NOPE`);
    const stats = await (await sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    expect(stats.requests['PUT /api/v2/organisations/:orgId/documents/:docId']).toEqual({ '200': 1, '201': 1 });
    expect(stats.requests['GET /api/v2/organisations/:orgId/documents/:docId']).toEqual({ '404': 1 });
    expect(stats.documents).toEqual({ [DEMO.mainDc]: 1 });

    await sandbox.reset();
    const after = await (await sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    expect(after).toMatchObject({ requests: {}, documents: {}, bookings: 0 });
    expect((await sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/A`)).status).toBe(404);
  });

  it('is absent unless enabled', async () => {
    const closed = await startSandbox({ controls: false });
    try {
      expect((await closed.call('POST', '/__sandbox/reset', { token: null })).status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});
