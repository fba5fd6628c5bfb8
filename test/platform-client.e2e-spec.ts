import { createServer } from 'node:net';
import { PlatformCallError, PlatformClient } from '@dockbridge/platform';
import type { DocumentInput } from '@dockbridge/platform';
import { DEMO, RunningSandbox, startSandbox } from './support/sandbox';

const doc = (id: string, extra: Partial<DocumentInput> = {}): DocumentInput => ({
  id,
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  carrier: { coreName: 'SCAC', coreId: 'FFRT' },
  loads: [{ name: 'Pallet', quantity: 6 }],
  ...extra,
});

/** The PlatformCallError a call fails with (fails the test if it succeeds or throws anything else). */
async function failure(call: Promise<unknown>): Promise<PlatformCallError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof PlatformCallError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('PlatformClient against the sandbox over HTTP', () => {
  let sandbox: RunningSandbox;
  let client: PlatformClient;
  const fault = (rules: unknown[]) => sandbox.call('POST', '/__sandbox/faults', { token: null, body: { rules } });

  beforeAll(async () => {
    sandbox = await startSandbox();
    client = new PlatformClient({ baseUrl: sandbox.url, token: DEMO.tokens.location, timeoutMs: 2000 });
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });
  beforeEach(() => sandbox.reset());

  describe('REST documents', () => {
    it('upserts (created, then updated), reads, lists and deletes', async () => {
      expect(await client.upsertDocument(DEMO.mainDc, doc('PO-1'))).toBe('created');
      expect(await client.upsertDocument(DEMO.mainDc, doc('PO-1', { description: 'v2' }))).toBe('updated');
      expect(await client.putDocument(DEMO.mainDc, doc('PO-1', { description: 'v3' }))).toBe('updated');
      const stored = await client.getDocument(DEMO.mainDc, 'PO-1');
      expect(stored).toMatchObject({
        id: 'PO-1',
        description: 'v3',
        carrier: { id: DEMO.fastFreight, name: 'Fast Freight' },
      });
      const created = await client.createDocument(DEMO.mainDc, doc('PO-2'));
      expect(created.occupant).toMatchObject({ id: DEMO.mainDc });
      expect((await client.listDocuments(DEMO.mainDc, { pageSize: 1, pageNumber: 2 })).data.map((d) => d.id)).toEqual([
        'PO-2',
      ]);
      await client.deleteDocument(DEMO.mainDc, 'PO-1');
      expect((await failure(client.getDocument(DEMO.mainDc, 'PO-1'))).status).toBe(404);
    });

    it('passes enableBaseOrgs and selfCoreId', async () => {
      const unknown = doc('PO-3', {
        carrier: { coreName: 'SCAC', coreId: 'ZZZZ' },
        occupant: { coreName: 'GLN', coreId: '0614141000005' },
      });
      expect((await failure(client.upsertDocument(DEMO.mainDc, unknown))).errorClass).toBe('permanent');
      expect(
        await client.upsertDocument(DEMO.mainDc, unknown, { enableBaseOrgs: true, selfCoreId: '0614141000005' }),
      ).toBe('created');
    });

    it('classifies a 400 as permanent and carries the platform reason that names the field', async () => {
      const error = await failure(
        client.upsertDocument(DEMO.mainDc, { ...doc('PO-4'), loads: [{ name: 'Pallet', quantity: -1 }] }),
      );
      expect(error).toMatchObject({ errorClass: 'permanent', status: 400, retryable: false });
      expect(error.reason).toMatch(/^Invalid document: loads\[0\]\.quantity/);
      expect(
        (
          await failure(
            client.createDocument(DEMO.mainDc, doc('PO-4')).then(() => client.createDocument(DEMO.mainDc, doc('PO-4'))),
          )
        ).status,
      ).toBe(409);
    });

    it('classifies 401 and 403 as auth, and never puts the token in an error', async () => {
      const secret = 'not-a-real-token-0123456789';
      const stranger = new PlatformClient({ baseUrl: sandbox.url, token: secret });
      const unauthenticated = await failure(stranger.upsertDocument(DEMO.mainDc, doc('PO-5')));
      expect(unauthenticated).toMatchObject({ errorClass: 'auth', status: 401 });
      for (const text of [
        unauthenticated.message,
        unauthenticated.reason,
        unauthenticated.stack ?? '',
        JSON.stringify(unauthenticated),
      ]) {
        expect(text).not.toContain(secret);
      }
      const readonly = new PlatformClient({ baseUrl: sandbox.url, token: DEMO.tokens.readonly });
      expect(await failure(readonly.upsertDocument(DEMO.mainDc, doc('PO-5')))).toMatchObject({
        errorClass: 'auth',
        status: 403,
      });
    });

    it('classifies 502, 503, 504 and 408 as retryable, and 429 as retryable with its Retry-After', async () => {
      const put = '/api/v2/organisations/*/documents/*';
      await fault([
        ...[502, 503, 504, 408].map((status) => ({ method: 'PUT', path: put, status, count: 1 })),
        { method: 'GET', path: '/api/v2/organisations/*/documents', status: 429 },
      ]);
      for (const status of [502, 503, 504, 408]) {
        expect(await failure(client.upsertDocument(DEMO.mainDc, doc('PO-6')))).toMatchObject({
          errorClass: 'retryable',
          status,
        });
      }
      expect(await client.upsertDocument(DEMO.mainDc, doc('PO-6'))).toBe('created');
      expect(await failure(client.listDocuments(DEMO.mainDc))).toMatchObject({
        errorClass: 'retryable',
        status: 429,
        retryAfterMs: 1000,
      });
    });

    it('turns a call that outlives its timeout into a retryable failure', async () => {
      await fault([{ path: '/api/v2/organisations/*/documents/*', latencyMs: 1500, status: 0 }]);
      const impatient = new PlatformClient({ baseUrl: sandbox.url, token: DEMO.tokens.location, timeoutMs: 200 });
      const error = await failure(impatient.getDocument(DEMO.mainDc, 'PO-7'));
      expect(error).toMatchObject({ errorClass: 'retryable', status: undefined });
      expect(error.reason).toMatch(/no answer within 200 ms/);
    });

    it('turns a refused connection into a retryable failure', async () => {
      const port = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as { port: number };
          server.close(() => resolve(port));
        });
      });
      const nowhere = new PlatformClient({ baseUrl: `http://127.0.0.1:${port}`, token: DEMO.tokens.location });
      const error = await failure(nowhere.getDocument(DEMO.mainDc, 'PO-8'));
      expect(error.errorClass).toBe('retryable');
      expect(error.reason).toMatch(/ECONNREFUSED/);
    });
  });

  describe('REST batch jobs', () => {
    it('submits, polls, reads results, deletes in batch and cancels', async () => {
      const job = await client.submitUpsertJob(DEMO.mainDc, [
        doc('A'),
        doc('B'),
        { ...doc('C'), direction: 'Up' as never },
      ]);
      expect(job).toMatchObject({ status: 'Queued', documentCount: 3 });
      let current = job;
      while (!current.completedAt) {
        current = await client.getJob(DEMO.mainDc, job.id);
      }
      expect(current).toMatchObject({ status: 'Completed', errors: 1 });
      const result = await client.getJobResult(DEMO.mainDc, job.id);
      expect(result.map((e) => e.status)).toEqual(['Created', 'Created', 'Failed']);

      await sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: true } });
      const deletion = await client.submitDeleteJob(DEMO.mainDc, ['A', 'B']);
      expect((await client.listJobs(DEMO.mainDc)).map((j) => j.id)).toEqual([job.id, deletion.id]);
      expect(await client.cancelJob(DEMO.mainDc, deletion.id)).toMatchObject({ status: 'Cancelled' });
      expect((await failure(client.cancelJob(DEMO.mainDc, deletion.id))).status).toBe(409);
      await sandbox.call('POST', '/__sandbox/jobs', { token: null, body: { paused: false } });
    });

    it('sends a job of documents read as a stream of their JSON, in the order read', async () => {
      const ids = Array.from({ length: 3000 }, (_, i) => `STREAM-${i}`);
      async function* texts() {
        for (const id of ids) {
          // jsonb's text form, as the operation rows give it (spaces after the separators).
          yield JSON.stringify(doc(id)).replaceAll('":', '": ').replaceAll(',"', ', "');
        }
      }
      const job = await client.submitUpsertJob(DEMO.mainDc, { json: texts(), bytes: 3000 * 150 });
      expect(job).toMatchObject({ documentCount: 3000 });
      let current = job;
      while (!current.completedAt) {
        current = await client.getJob(DEMO.mainDc, job.id);
      }
      const result = await client.getJobResult(DEMO.mainDc, job.id);
      expect(result.map((e) => e.id)).toEqual(ids);
      expect(result.every((e) => e.status === 'Created')).toBe(true);
    });
  });
});
