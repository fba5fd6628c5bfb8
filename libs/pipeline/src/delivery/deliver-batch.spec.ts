import { UnrecoverableError } from 'bullmq';
import type { AttemptRecord, MessageRepository, OperationRepository } from '@dockbridge/audit';
import {
  PlatformCallError,
  type DocumentInput,
  type DocumentJob,
  type DocumentStream,
  type DocumentJobResultEntry,
  type PlatformAccounts,
  type PlatformClient,
} from '@dockbridge/platform';
import type { MessageQueues } from '../message-queues';
import type { BatchJobData } from '../queues';
import { BatchOptions, DeliverBatch } from './deliver-batch';

const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const CHUNK = '5b1e0c9a-7d2f-4e6b-8a3c-1f2e3d4c5b6a';
const upsert = (id: string) => ({
  kind: 'document.upsert',
  organisationId: ORG,
  document: { id, direction: 'Inbound' },
  options: { enableBaseOrgs: true },
});
const remove = (id: string) => ({ kind: 'document.delete', organisationId: ORG, documentId: id });

type Verdict = 'go' | 'wait' | 'superseded' | 'settled' | 'missing';
type Op = { id: string; status: string; payload: object; verdict?: Verdict };

/** DeliverBatch over recording fakes; the platform's job answers as `platform` says. */
function batch(ops: Op[], platform: Partial<PlatformClient> | undefined, options: Partial<BatchOptions> = {}) {
  const calls: unknown[][] = [];
  const attempts: AttemptRecord[] = [];
  const remembered: Partial<BatchJobData>[] = [];
  /** recordAttempts' holdMs, per call. */
  const held: (number | undefined)[] = [];
  /** Whether the message is behind an untranslated one of its partner (OperationRepository.behindUntranslated). */
  const state = { behind: false };
  const operations = {
    behindUntranslated: async () => state.behind,
    batchEntriesOf: async (ids: string[]) =>
      ops
        .filter((op) => ids.includes(op.id))
        .map((op) => ({
          id: op.id,
          status: op.status,
          targetId:
            (op.payload as { document?: { id: string } }).document?.id ??
            (op.payload as { documentId?: string }).documentId ??
            null,
          bytes: JSON.stringify(op.payload).length,
          options: (op.payload as { options?: object }).options ?? null,
        })),
    jsonOf: async function* (ids: string[], field: string) {
      for (const id of ids) {
        yield JSON.stringify((ops.find((op) => op.id === id)!.payload as Record<string, unknown>)[field]);
      }
    },
    gateChunk: async (ids: string[], leaseMs: number, chunk: string) => {
      calls.push(['gateChunk', ids, leaseMs, chunk]);
      return ids.map((id) => ({ id, verdict: ops.find((op) => op.id === id)!.verdict ?? 'go' }));
    },
    extendClaims: async (ids: string[], leaseMs: number, chunk: string) =>
      void calls.push(['extendClaims', ids, leaseMs, chunk]),
    recordAttempts: async (records: AttemptRecord[], holdMs?: number) => {
      attempts.push(...records);
      held.push(holdMs);
    },
  } as unknown as OperationRepository;
  const messages = {
    settleMessage: async (id: string, actor: string) => void calls.push(['settleMessage', id, actor]),
  } as unknown as MessageRepository;
  const queues = {
    enqueueDeliveries: async (ids: string[]) => void calls.push(['enqueueDeliveries', ids]),
  } as unknown as MessageQueues;
  const client = platform && ({ ...platform } as PlatformClient);
  const accounts = {
    clientFor: (org: string) => {
      calls.push(['clientFor', org]);
      return client;
    },
  } as unknown as PlatformAccounts;
  const deliver = new DeliverBatch(messages, operations, accounts, queues, {
    unknownOutcomeMs: 20_000,
    pollMs: 1,
    maxWaitMs: 1000,
    ...options,
  });
  const run = (data: Partial<BatchJobData> = {}, isLast = false) =>
    deliver.execute(
      {
        messageId: 'message-1',
        organisationId: ORG,
        kind: 'document.upsert',
        operationIds: ops.map((op) => op.id),
        ...data,
      },
      { attempt: 1, isLast },
      async (patch) => void remembered.push(patch),
      CHUNK,
    );
  return { run, calls, attempts, remembered, held, state };
}

const job = (id: string, extra: Partial<DocumentJob> = {}): DocumentJob => ({
  id,
  createdAt: '2026-11-22T08:00:00.000Z',
  status: 'Completed',
  completedAt: '2026-11-22T08:00:05.000Z',
  documentCount: 2,
  errors: 0,
  ...extra,
});

/** The documents a stream carries, as the platform would read them. */
async function parsed(stream: DocumentStream): Promise<unknown[]> {
  const documents: unknown[] = [];
  for await (const json of stream.json) {
    documents.push(JSON.parse(json));
  }
  return documents;
}

/** A platform whose jobs complete at once with `entries`, recording what it is asked. */
function platformAnswering(entries: DocumentJobResultEntry[], asked: unknown[][] = []) {
  return {
    asked,
    client: {
      submitUpsertJob: async (org: string, documents: DocumentInput[] | DocumentStream, options: unknown) => {
        asked.push(['submitUpsertJob', org, Array.isArray(documents) ? documents : await parsed(documents), options]);
        return job('job-1');
      },
      submitDeleteJob: async (org: string, ids: string[]) => {
        asked.push(['submitDeleteJob', org, ids]);
        return job('job-1');
      },
      getJob: async (org: string, id: string) => {
        asked.push(['getJob', org, id]);
        return job(id);
      },
      getJobResult: async (org: string, id: string) => {
        asked.push(['getJobResult', org, id]);
        return entries;
      },
    } satisfies Partial<PlatformClient>,
  };
}

const failure = async (run: Promise<unknown>): Promise<Error> =>
  run.then(
    () => {
      throw new Error('expected the batch to fail');
    },
    (error: Error) => error,
  );

describe('DeliverBatch: a chunk through one platform job', () => {
  it('submits the open operations once, remembering the submit then the job, and settles each from its entry', async () => {
    const { client, asked } = platformAnswering([
      { id: 'PO-1', status: 'Created' },
      { id: null, status: 'Failed', error: { code: 'InvalidDocument', message: 'direction: unknown' } },
    ]);
    const { run, calls, attempts, remembered } = batch(
      [
        { id: 'op-1', status: 'pending', payload: upsert('PO-1') },
        { id: 'op-2', status: 'delivering', payload: upsert('PO-2') },
        { id: 'op-3', status: 'delivered', payload: upsert('PO-3') },
      ],
      client,
    );
    await expect(run()).resolves.toEqual({ delivered: 1, failed: 1 });
    // What is submitted is remembered first: a retry matches the job's results to it by position.
    expect(remembered).toEqual([
      { operationIds: ['op-1', 'op-2'] },
      { submittedAt: expect.any(String) },
      { platformJobId: 'job-1' },
    ]);
    expect(Date.now() - Date.parse(remembered[1].submittedAt!)).toBeLessThan(5000);
    expect(asked).toEqual([
      [
        'submitUpsertJob',
        ORG,
        [
          { id: 'PO-1', direction: 'Inbound' },
          { id: 'PO-2', direction: 'Inbound' },
        ],
        { enableBaseOrgs: true },
      ],
      ['getJob', ORG, 'job-1'],
      ['getJobResult', ORG, 'job-1'],
    ]);
    expect(calls).toEqual([
      ['gateChunk', ['op-1', 'op-2'], 61_000, CHUNK],
      ['enqueueDeliveries', []],
      ['clientFor', ORG],
      ['settleMessage', 'message-1', 'worker'],
    ]);
    expect(attempts).toEqual([
      {
        operationId: 'op-1',
        startedAt: expect.any(Date),
        durationMs: expect.any(Number),
        httpStatus: 200,
        outcome: 'success',
        error: null,
        requestSummary: 'batch document.upsert job job-1 #1',
        settlement: { status: 'delivered' },
      },
      {
        operationId: 'op-2',
        startedAt: expect.any(Date),
        durationMs: expect.any(Number),
        httpStatus: 200,
        outcome: 'permanent',
        error: 'direction: unknown',
        requestSummary: 'batch document.upsert job job-1 #2',
        settlement: { status: 'failed', lastError: 'InvalidDocument: direction: unknown', errorClass: 'permanent' },
      },
    ]);
  });

  it('waits whole, neither gated nor submitted, while a message its partner sent before is not translated', async () => {
    const { client, asked } = platformAnswering([{ id: 'PO-1', status: 'Created' }]);
    const { run, calls, remembered, state } = batch(
      [{ id: 'op-1', status: 'pending', payload: upsert('PO-1') }],
      client,
    );
    state.behind = true;
    await expect(run()).resolves.toEqual({ deferMs: expect.any(Number) });
    expect([calls, asked, remembered]).toEqual([[], [], []]);
    state.behind = false;
    await expect(run()).resolves.toEqual({ delivered: 1, failed: 0 });
    expect(calls[0]).toEqual(['gateChunk', ['op-1'], 61_000, CHUNK]);
  });

  it('fails an operation the job returned no entry for, and one failed without a reason', async () => {
    const { client } = platformAnswering([{ id: null, status: 'Failed' }]);
    const { run, attempts } = batch(
      [
        { id: 'op-1', status: 'pending', payload: upsert('PO-1') },
        { id: 'op-2', status: 'pending', payload: upsert('PO-2') },
      ],
      client,
    );
    await expect(run()).resolves.toEqual({ delivered: 0, failed: 2 });
    expect(attempts.map((a) => [a.outcome, a.error, a.settlement])).toEqual([
      ['permanent', null, { status: 'failed', lastError: 'Failed: no reason given', errorClass: 'permanent' }],
      [
        'permanent',
        null,
        {
          status: 'failed',
          lastError: 'platform job job-1 returned no result entry for this document',
          errorClass: 'permanent',
        },
      ],
    ]);
  });

  it('deletes by document id, a document already gone counting as deleted', async () => {
    const notFound = { code: 'DocumentNotFound', message: 'no such document' };
    const { client, asked } = platformAnswering([
      { id: 'PO-1', status: 'Failed', error: notFound },
      { id: 'PO-2', status: 'Failed', error: { code: 'InvalidDocument', message: 'locked' } },
      { id: 'PO-3', status: 'Deleted' },
    ]);
    const { run, attempts } = batch(
      ['PO-1', 'PO-2', 'PO-3'].map((id, i) => ({ id: `op-${i + 1}`, status: 'pending', payload: remove(id) })),
      client,
    );
    await expect(run({ kind: 'document.delete' })).resolves.toEqual({ delivered: 2, failed: 1 });
    expect(asked[0]).toEqual(['submitDeleteJob', ORG, ['PO-1', 'PO-2', 'PO-3']]);
    expect(attempts.map((a) => [a.outcome, a.error, a.settlement?.status, a.requestSummary])).toEqual([
      ['success', 'no such document', 'delivered', 'batch document.delete job job-1 #1'],
      ['permanent', 'locked', 'failed', 'batch document.delete job job-1 #2'],
      ['success', null, 'delivered', 'batch document.delete job job-1 #3'],
    ]);
  });

  it('fails an upsert the platform did not find: only a delete wants a document gone', async () => {
    const { client } = platformAnswering([
      { id: null, status: 'Failed', error: { code: 'DocumentNotFound', message: 'gone' } },
    ]);
    const { run } = batch([{ id: 'op-1', status: 'pending', payload: upsert('PO-1') }], client);
    await expect(run()).resolves.toEqual({ delivered: 0, failed: 1 });
  });

  it('submits upserts with no options when the first has none', async () => {
    const { client, asked } = platformAnswering([{ id: 'PO-1', status: 'Created' }]);
    const { options: _options, ...plain } = upsert('PO-1');
    const { run } = batch([{ id: 'op-1', status: 'pending', payload: plain }], client);
    await run();
    expect(asked[0]).toEqual(['submitUpsertJob', ORG, [{ id: 'PO-1', direction: 'Inbound' }], {}]);
  });

  it('does nothing for a chunk whose operations are all settled', async () => {
    const { client, asked } = platformAnswering([]);
    const { run, calls, attempts } = batch([{ id: 'op-1', status: 'failed', payload: upsert('PO-1') }], client);
    await expect(run()).resolves.toEqual({ delivered: 0, failed: 0 });
    expect([calls, attempts, asked]).toEqual([[], [], []]);
  });
});

describe('DeliverBatch: the gate before the submit', () => {
  it('keeps what may go, hands what must wait to single delivery, and settles the message for what was superseded', async () => {
    const { client, asked } = platformAnswering([{ id: 'PO-1', status: 'Created' }]);
    const { run, calls, remembered } = batch(
      [
        { id: 'op-1', status: 'pending', payload: upsert('PO-1'), verdict: 'go' },
        { id: 'op-2', status: 'pending', payload: upsert('PO-2'), verdict: 'wait' },
        { id: 'op-3', status: 'pending', payload: upsert('PO-3'), verdict: 'superseded' },
        { id: 'op-4', status: 'pending', payload: upsert('PO-4'), verdict: 'settled' },
      ],
      client,
      { maxWaitMs: 5000 },
    );
    await expect(run()).resolves.toEqual({ delivered: 1, failed: 0 });
    expect(calls.slice(0, 4)).toEqual([
      ['gateChunk', ['op-1', 'op-2', 'op-3', 'op-4'], 65_000, CHUNK],
      ['enqueueDeliveries', ['op-2']],
      ['settleMessage', 'message-1', 'worker'],
      ['clientFor', ORG],
    ]);
    expect(remembered[0]).toEqual({ operationIds: ['op-1'] });
    expect(asked[0]).toEqual([
      'submitUpsertJob',
      ORG,
      [{ id: 'PO-1', direction: 'Inbound' }],
      { enableBaseOrgs: true },
    ]);
  });

  it('passes a large chunk through the gate 2,000 operations at a time, keeping every verdict', async () => {
    const ops: Op[] = Array.from({ length: 5_000 }, (_, i) => ({
      id: `op-${i}`,
      status: 'pending',
      payload: upsert(`PO-${i}`),
      ...(i === 3_000 && { verdict: 'wait' as const }),
    }));
    const { client } = platformAnswering([]);
    client.getJobResult = async () =>
      ops.map((op) => ({ id: (op.payload as { document: { id: string } }).document.id, status: 'Updated' }));
    const { run, calls } = batch(ops, client);
    await run();
    const gates = calls.filter((c) => c[0] === 'gateChunk').map((c) => c[1] as string[]);
    expect(gates.map((ids) => ids.length)).toEqual([2_000, 2_000, 1_000]);
    expect(gates.flat()).toEqual(ops.map((op) => op.id));
    expect(calls).toContainEqual(['enqueueDeliveries', ['op-3000']]);
  });

  it('submits nothing when nothing may go', async () => {
    const { client, asked } = platformAnswering([]);
    const { run, calls, remembered } = batch(
      [{ id: 'op-1', status: 'pending', payload: upsert('PO-1'), verdict: 'wait' }],
      client,
    );
    await expect(run()).resolves.toEqual({ delivered: 0, failed: 0 });
    expect(calls).toEqual([
      ['gateChunk', ['op-1'], 61_000, CHUNK],
      ['enqueueDeliveries', ['op-1']],
    ]);
    expect(remembered).toEqual([{ operationIds: [] }]);
    expect(asked).toEqual([]);
  });

  it('leaves the job as it is when every operation may go', async () => {
    const { client } = platformAnswering([{ id: 'PO-1', status: 'Created' }]);
    const { run, remembered } = batch([{ id: 'op-1', status: 'pending', payload: upsert('PO-1') }], client);
    await run();
    expect(remembered.some((patch) => 'operationIds' in patch)).toBe(false);
  });
});

describe('DeliverBatch: a retry after a submit', () => {
  it('polls the job it already submitted, without the gate or a new submit, keeping its claims', async () => {
    const { client, asked } = platformAnswering([{ id: 'PO-1', status: 'Updated' }]);
    const { run, calls, remembered } = batch([{ id: 'op-1', status: 'delivering', payload: upsert('PO-1') }], client);
    await expect(run({ platformJobId: 'job-7' })).resolves.toEqual({ delivered: 1, failed: 0 });
    expect(asked.map((a) => a[0])).toEqual(['getJob', 'getJobResult']);
    expect(asked[0]).toEqual(['getJob', ORG, 'job-7']);
    expect(calls.some((c) => c[0] === 'gateChunk')).toBe(false);
    // The job may still be applying them: nobody else may take them for another longest wait.
    expect(calls).toContainEqual(['extendClaims', ['op-1'], 61_000, CHUNK]);
    expect(remembered).toEqual([{ platformJobId: 'job-7' }]);
  });

  it('matches the results to what was submitted by position, skipping what settled since', async () => {
    const { client } = platformAnswering([
      { id: 'PO-1', status: 'Updated' },
      { id: 'PO-2', status: 'Failed', error: { code: 'InvalidDocument', message: 'direction: unknown' } },
      { id: 'PO-3', status: 'Updated' },
    ]);
    const { run, attempts } = batch(
      [
        { id: 'op-1', status: 'delivering', payload: upsert('PO-1') },
        { id: 'op-2', status: 'delivered', payload: upsert('PO-2') }, // another job delivered it after its claim lapsed
        { id: 'op-3', status: 'delivering', payload: upsert('PO-3') },
      ],
      client,
    );
    await expect(run({ platformJobId: 'job-7' })).resolves.toEqual({ delivered: 2, failed: 0 });
    expect(attempts.map((a) => [a.operationId, a.outcome, a.requestSummary])).toEqual([
      ['op-1', 'success', 'batch document.upsert job job-7 #1'],
      ['op-3', 'success', 'batch document.upsert job job-7 #3'],
    ]);
  });

  it('polls until the job has completed', async () => {
    let polls = 0;
    const { client, asked } = platformAnswering([{ id: 'PO-1', status: 'Created' }]);
    client.getJob = async (_org: string, id: string) => {
      polls++;
      return job(id, polls < 3 ? { status: 'Processing', completedAt: null } : {});
    };
    const { run } = batch([{ id: 'op-1', status: 'pending', payload: upsert('PO-1') }], client, { pollMs: 5 });
    const started = Date.now();
    await expect(run()).resolves.toEqual({ delivered: 1, failed: 0 });
    expect(polls).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9);
    expect(asked.map((a) => a[0])).toEqual(['submitUpsertJob', 'getJobResult']);
  });

  describe('after a submit that got no answer', () => {
    const submittedAt = '2026-11-22T08:00:00.000Z';
    const at = (ms: number) => new Date(Date.parse(submittedAt) + ms).toISOString();
    afterEach(() => jest.restoreAllMocks());

    it.each([
      ['the earliest made since the submit, before any made within the clock skew before it', 'later'],
      ['without one since, the nearest within a minute before (the platform clock may be behind)', 'near'],
    ])('takes, of the jobs of as many documents, %s', async (_, expected) => {
      jest.spyOn(Date, 'now').mockReturnValue(Date.parse(submittedAt) + 5000);
      const { client, asked } = platformAnswering([
        { id: 'PO-1', status: 'Created' },
        { id: 'PO-2', status: 'Created' },
      ]);
      const listJobs = async () => [
        job('too-old', { createdAt: at(-60_001) }),
        job('other-size', { createdAt: at(-1000), documentCount: 3 }),
        job('skewed', { createdAt: at(-60_000) }),
        job('near', { createdAt: at(-5000) }),
        ...(expected === 'later' ? [job('latest', { createdAt: at(4000) }), job('later', { createdAt: at(0) })] : []),
      ];
      const { run, remembered } = batch(
        [
          { id: 'op-1', status: 'delivering', payload: upsert('PO-1') },
          { id: 'op-2', status: 'delivering', payload: upsert('PO-2') },
        ],
        { ...client, listJobs },
      );
      await expect(run({ submittedAt })).resolves.toEqual({ delivered: 2, failed: 0 });
      expect(remembered).toEqual([{ platformJobId: expected, jobFromListing: true }]);
      expect(asked[0]).toEqual(['getJob', ORG, expected]);
    });

    it("sets a cancelled job found by its size aside, keeping the submit: it may be another chunk's", async () => {
      jest.spyOn(Date, 'now').mockReturnValue(Date.parse(submittedAt) + 5000);
      const { client, asked } = platformAnswering([]);
      const listJobs = async () => [job('cancelled', { createdAt: at(100), status: 'Cancelled' })];
      const ops: Op[] = [
        { id: 'op-1', status: 'delivering', payload: upsert('PO-1') },
        { id: 'op-2', status: 'delivering', payload: upsert('PO-2') },
      ];
      const getJob = async (org: string, id: string) => {
        asked.push(['getJob', org, id]);
        return job(id, { status: 'Cancelled' });
      };
      const { run, remembered, attempts, held } = batch(ops, { ...client, listJobs, getJob });
      const error = await failure(run({ submittedAt }));
      expect(error).toMatchObject({ errorClass: 'retryable', operation: 'batch job' });
      expect(remembered).toEqual([
        { platformJobId: 'cancelled', jobFromListing: true },
        { platformJobId: undefined, jobFromListing: undefined, notThisChunks: ['cancelled'] },
      ]);
      expect(asked.map((a) => a[0])).toEqual(['getJob']);
      expect(attempts.map((a) => a.settlement)).toEqual([undefined, undefined]);
      expect(held).toEqual([61_000]);
    });

    it('looks for a job of the size it submitted, keeping its list and claims, even once some settled since', async () => {
      jest.spyOn(Date, 'now').mockReturnValue(Date.parse(submittedAt) + 5000);
      const { client } = platformAnswering([
        { id: 'PO-1', status: 'Updated' },
        { id: 'PO-2', status: 'Updated' },
      ]);
      const { run, calls, attempts, remembered } = batch(
        [
          { id: 'op-1', status: 'delivering', payload: upsert('PO-1') },
          // Its claim lapsed and another job delivered it: the gate would drop it from the list.
          { id: 'op-2', status: 'delivered', payload: upsert('PO-2'), verdict: 'settled' },
        ],
        { ...client, listJobs: async () => [job('made', { createdAt: at(100), documentCount: 2 })] },
      );
      await expect(run({ submittedAt })).resolves.toEqual({ delivered: 1, failed: 0 });
      expect(calls.some((c) => c[0] === 'gateChunk')).toBe(false);
      expect(calls).toContainEqual(['extendClaims', ['op-1'], 61_000, CHUNK]);
      expect(remembered).toEqual([{ platformJobId: 'made', jobFromListing: true }]);
      expect(attempts.map((a) => [a.operationId, a.requestSummary])).toEqual([
        ['op-1', 'batch document.upsert job made #1'],
      ]);
    });

    it("does not settle by another chunk's job of the same size: it is set aside and its own is looked for", async () => {
      jest.spyOn(Date, 'now').mockReturnValue(Date.parse(submittedAt) + 5000);
      const asked: unknown[][] = [];
      const results: Record<string, DocumentJobResultEntry[]> = {
        other: [
          { id: 'PO-8', status: 'Updated' },
          { id: 'PO-9', status: 'Updated' },
        ],
        own: [
          { id: 'PO-1', status: 'Updated' },
          { id: 'PO-2', status: 'Updated' },
        ],
      };
      const { client } = platformAnswering([], asked);
      const listJobs = async () => [job('other', { createdAt: at(100) }), job('own', { createdAt: at(200) })];
      const getJobResult = async (_org: string, id: string) => results[id];
      const ops: Op[] = [
        { id: 'op-1', status: 'delivering', payload: upsert('PO-1') },
        { id: 'op-2', status: 'delivering', payload: upsert('PO-2') },
      ];
      const first = batch(ops, { ...client, listJobs, getJobResult });
      const error = await failure(first.run({ submittedAt }));
      expect(error).toMatchObject({
        errorClass: 'retryable',
        reason:
          "platform job other, found by its size, may be another chunk's (its entry #1 is document PO-8, not PO-1): looking for this chunk's own job again",
      });
      expect(first.remembered).toEqual([
        { platformJobId: 'other', jobFromListing: true },
        { platformJobId: undefined, jobFromListing: undefined, notThisChunks: ['other'] },
      ]);
      // Nothing settled; the claims are held, as the chunk's own job may still run.
      expect(first.attempts.map((a) => [a.operationId, a.outcome, a.settlement])).toEqual([
        ['op-1', 'retryable', undefined],
        ['op-2', 'retryable', undefined],
      ]);
      expect(first.held).toEqual([61_000]);

      const retry = batch(ops, { ...client, listJobs, getJobResult });
      await expect(retry.run({ submittedAt, notThisChunks: ['other'] })).resolves.toEqual({ delivered: 2, failed: 0 });
      expect(retry.remembered).toEqual([{ platformJobId: 'own', jobFromListing: true }]);
    });

    it('checks a job found by its size when it polls it again after a restart', async () => {
      const { client } = platformAnswering([{ id: 'PO-7', status: 'Updated' }]);
      const { run, attempts } = batch([{ id: 'op-1', status: 'delivering', payload: upsert('PO-1') }], client);
      const error = await failure(run({ submittedAt, platformJobId: 'job-9', jobFromListing: true }));
      expect(error).toMatchObject({ errorClass: 'retryable', operation: 'batch job' });
      expect(attempts.map((a) => a.settlement)).toEqual([undefined]);
    });

    it('looks again later while the earlier submit may still land (its timeout plus its upload)', async () => {
      // 20 s for an answer, 3 ms a document to upload: 20.006 s for two documents.
      jest.spyOn(Date, 'now').mockReturnValue(Date.parse(submittedAt) + 20_005);
      const { client, asked } = platformAnswering([]);
      const ops = [
        { id: 'op-1', status: 'delivering', payload: upsert('PO-1') },
        { id: 'op-2', status: 'delivering', payload: upsert('PO-2') },
      ];
      const { run, attempts, remembered } = batch(ops, { ...client, listJobs: async () => [] });
      const error = await failure(run({ submittedAt }));
      expect(error).not.toBeInstanceOf(UnrecoverableError);
      expect(error).toMatchObject({
        errorClass: 'retryable',
        operation: 'submit job',
        reason:
          'the earlier submit of this batch got no answer and its job is not listed yet; looking again before submitting anew',
      });
      expect(asked).toEqual([]);
      expect(remembered).toEqual([]);
      expect(attempts.map((a) => [a.operationId, a.outcome, a.settlement])).toEqual([
        ['op-1', 'retryable', undefined],
        ['op-2', 'retryable', undefined],
      ]);
    });

    it('submits anew once the earlier submit has surely landed or failed', async () => {
      jest.spyOn(Date, 'now').mockReturnValue(Date.parse(submittedAt) + 20_006);
      const { client, asked } = platformAnswering([
        { id: 'PO-1', status: 'Created' },
        { id: 'PO-2', status: 'Created' },
      ]);
      const { run, calls } = batch(
        [
          { id: 'op-1', status: 'delivering', payload: upsert('PO-1') },
          { id: 'op-2', status: 'delivering', payload: upsert('PO-2') },
        ],
        { ...client, listJobs: async () => [job('other-size', { createdAt: at(1000), documentCount: 1 })] },
      );
      await expect(run({ submittedAt })).resolves.toEqual({ delivered: 2, failed: 0 });
      expect(asked[0][0]).toBe('submitUpsertJob');
      // A new submit goes through the gate, as a chunk never submitted does.
      expect(calls.some((c) => c[0] === 'gateChunk')).toBe(true);
    });
  });
});

describe('DeliverBatch: failures', () => {
  const ops: Op[] = [
    { id: 'op-1', status: 'pending', payload: upsert('PO-1') },
    { id: 'op-2', status: 'pending', payload: upsert('PO-2') },
  ];

  it('records a retryable failure on every operation, unsettled, and throws it back to be retried', async () => {
    const { client } = platformAnswering([]);
    const badGateway = new PlatformCallError('retryable', 'submit upsert job', 'could not be queued', 502);
    client.submitUpsertJob = async () => {
      throw badGateway;
    };
    const { run, calls, attempts, remembered, held } = batch(ops, client);
    expect(await failure(run())).toBe(badGateway);
    // An answer came: no job was made, so the retry does not look for one, and the claims are given back.
    expect(remembered).toEqual([{ submittedAt: expect.any(String) }, { submittedAt: undefined }]);
    expect(held).toEqual([undefined]);
    expect(attempts).toEqual(
      ['op-1', 'op-2'].map((operationId) => ({
        operationId,
        startedAt: expect.any(Date),
        durationMs: expect.any(Number),
        httpStatus: 502,
        outcome: 'retryable',
        error: 'could not be queued',
        requestSummary: 'batch document.upsert',
        settlement: undefined,
      })),
    );
    expect(calls.some((c) => c[0] === 'settleMessage')).toBe(false);
  });

  it('keeps the submit remembered when no answer came, so the retry looks for its job', async () => {
    const { client } = platformAnswering([]);
    client.submitUpsertJob = async () => {
      throw new PlatformCallError('retryable', 'submit upsert job', 'no answer within 10000 ms');
    };
    const { run, attempts, remembered, held } = batch(ops, client);
    await failure(run());
    expect(remembered).toEqual([{ submittedAt: expect.any(String) }]);
    expect(attempts[0].httpStatus).toBeNull();
    // The job it may have made may still apply the documents: nobody else may send them meanwhile.
    expect(held).toEqual([61_000]);
  });

  it('settles every operation failed, and the message, on the last try, and ends the job', async () => {
    const { client } = platformAnswering([]);
    client.submitUpsertJob = async () => {
      throw new PlatformCallError('retryable', 'submit upsert job', 'Bad gateway', 502);
    };
    const { run, calls, attempts } = batch(ops, client);
    const error = await failure(run({}, true));
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(error.message).toMatch(/Bad gateway/);
    expect(attempts.map((a) => a.settlement)).toEqual([
      { status: 'failed', lastError: 'Bad gateway', errorClass: 'retryable' },
      { status: 'failed', lastError: 'Bad gateway', errorClass: 'retryable' },
    ]);
    expect(calls.at(-1)).toEqual(['settleMessage', 'message-1', 'worker']);
  });

  it('fails the chunk at once when no platform account acts for the organisation', async () => {
    const { run, calls, attempts } = batch(ops, undefined);
    const error = await failure(run());
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(error.message).toBe(`submit job failed (auth): no platform account is configured for organisation ${ORG}`);
    expect(attempts.map((a) => [a.outcome, a.httpStatus, a.settlement?.status])).toEqual([
      ['auth', null, 'failed'],
      ['auth', null, 'failed'],
    ]);
    expect(calls.at(-1)).toEqual(['settleMessage', 'message-1', 'worker']);
  });

  it('treats any other error as retryable, with its message', async () => {
    const { client } = platformAnswering([]);
    client.getJobResult = async () => {
      throw new TypeError('the result was not JSON');
    };
    const { run, attempts } = batch(ops, client);
    const error = await failure(run());
    expect(error).toMatchObject({ errorClass: 'retryable', operation: 'batch job', reason: 'the result was not JSON' });
    expect(attempts[0]).toMatchObject({
      outcome: 'retryable',
      error: 'the result was not JSON',
      settlement: undefined,
    });
  });

  it('forgets a cancelled job so the retry submits again', async () => {
    const { client } = platformAnswering([]);
    client.getJob = async (_org: string, id: string) => job(id, { status: 'Cancelled' });
    const { run, remembered, attempts, held } = batch(ops, client);
    const error = await failure(run());
    expect(error).toMatchObject({
      errorClass: 'retryable',
      operation: 'batch job',
      reason: 'platform job job-1 was cancelled; it will be submitted again',
    });
    // Neither the job nor the submit that made it is looked for again: the retry submits anew.
    expect(remembered.at(-1)).toEqual({ platformJobId: undefined, submittedAt: undefined });
    expect(attempts).toHaveLength(2);
    expect(held).toEqual([undefined]);
  });

  it('gives up waiting for a job after the longest wait, as a retryable timeout', async () => {
    const { client } = platformAnswering([]);
    client.getJob = async (_org: string, id: string) => job(id, { status: 'Processing', completedAt: null });
    const { run, held } = batch(ops, client, { maxWaitMs: 30, pollMs: 5 });
    const started = Date.now();
    expect(await failure(run())).toMatchObject({
      errorClass: 'retryable',
      operation: 'poll job',
      reason: 'platform job job-1 not finished after 30 ms',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    // The platform job runs on: the documents stay claimed for this batch's retry.
    expect(held).toEqual([60_030]);
  });
});
