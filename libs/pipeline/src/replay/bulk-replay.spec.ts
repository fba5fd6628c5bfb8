import { UnrecoverableError } from 'bullmq';
import type {
  MessageRepository,
  MessageSearch,
  ReplayRun,
  ReplayRunProgress,
  ReplayRunRepository,
} from '@dockbridge/audit';
import type { MessageQueues } from '../message-queues';
import { BulkReplays, REPLAY_RUN_PAGE } from './bulk-replay';
import { BULK_REPLAY_LIMIT, BulkReplayOutcome, ReplayMessage } from './replay-message';

const RUN_ID = '01900000-0000-7000-8000-000000000001';

/** Matching originals in the order search gives them, paged as MessageRepository.search pages (cursor = the last id of the previous page). */
function fakeMessages(count: number) {
  const ids = Array.from({ length: count }, (_, i) => `m-${String(i).padStart(6, '0')}`);
  return {
    ids,
    countBy: async () => ids.length,
    search: async ({ limit = 50, cursor }: MessageSearch) => {
      const start = cursor ? ids.indexOf(cursor) + 1 : 0;
      const rows = ids.slice(start, start + limit + 1);
      const items = rows.slice(0, limit).map((id) => ({ id }));
      return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
    },
  };
}

/** replay_run in memory, with a clock for claims; replays remembered per original with the run that made them. */
function fakeRuns(now: { ms: number }, made: Map<string, string[]>) {
  const run: ReplayRun = {
    id: RUN_ID,
    filter: {},
    request: { mode: 'rerun' },
    actor: 'operator:test',
    reason: null,
    status: 'queued',
    total: null,
    done: 0,
    replayed: 0,
    skipped: 0,
    skips: [],
    limitReached: false,
    resumeAfter: null,
    error: null,
    claimedBy: null,
    claimedUntil: null,
    createdAt: new Date(0),
    startedAt: null,
    finishedAt: null,
    updatedAt: new Date(0),
  };
  let checkpoints = 0;
  const save = (owner: string, p: ReplayRunProgress) => {
    if (run.claimedBy !== owner || run.status !== 'running') {
      return false;
    }
    Object.assign(run, { ...p, skips: [...p.skips] });
    return true;
  };
  const repo = {
    claim: async (_id: string, owner: string, leaseMs: number) => {
      if (run.status === 'completed' || run.status === 'failed') {
        return { outcome: 'finished' as const, run: { ...run } };
      }
      if (run.claimedBy && run.claimedBy !== owner && run.claimedUntil!.getTime() >= now.ms) {
        return { outcome: 'busy' as const, run: { ...run } };
      }
      Object.assign(run, { status: 'running', claimedBy: owner, claimedUntil: new Date(now.ms + leaseMs) });
      return { outcome: 'claimed' as const, run: { ...run, skips: [...run.skips] } };
    },
    checkpoint: async (_id: string, owner: string, p: ReplayRunProgress, leaseMs: number) => {
      checkpoints++;
      const saved = save(owner, p);
      if (saved) {
        run.claimedUntil = new Date(now.ms + leaseMs);
      }
      return saved;
    },
    complete: async (_id: string, owner: string, p: ReplayRunProgress) =>
      save(owner, p) && Object.assign(run, { status: 'completed', claimedBy: null }) !== undefined,
    fail: async (_id: string, error: string) => void Object.assign(run, { status: 'failed', error }),
    release: async (_id: string, owner: string) =>
      void (run.claimedBy === owner && Object.assign(run, { claimedBy: null, claimedUntil: null })),
    findById: async () => ({ ...run }),
    replaysByRun: async (runId: string, ids: readonly string[]) =>
      new Map(ids.filter((id) => made.get(id)?.includes(runId)).map((id) => [id, `replay-of-${id}`])),
  };
  return { run, repo, checkpoints: () => checkpoints };
}

function setUp(count: number, replayEach?: (items: readonly { id: string }[], runId: string) => BulkReplayOutcome[]) {
  const now = { ms: 1_000_000 };
  const made = new Map<string, string[]>();
  const messages = fakeMessages(count);
  const runs = fakeRuns(now, made);
  const replays = {
    replayEach: async (items: readonly { id: string }[], _request: unknown, { runId }: { runId: string }) => {
      if (replayEach) {
        return replayEach(items, runId);
      }
      return items.map(({ id }) => {
        made.set(id, [...(made.get(id) ?? []), runId]);
        return { id, replayId: `replay-of-${id}` };
      });
    },
  };
  const bulk = new BulkReplays(
    messages as unknown as MessageRepository,
    runs.repo as unknown as ReplayRunRepository,
    replays as unknown as ReplayMessage,
    {} as MessageQueues,
  );
  return { now, made, messages, runs, bulk };
}

describe('BulkReplays.execute', () => {
  it(`stops at the cap (${BULK_REPLAY_LIMIT}) and says so, writing progress every ${REPLAY_RUN_PAGE} messages`, async () => {
    const { bulk, runs, made } = setUp(BULK_REPLAY_LIMIT + 50);
    const run = await bulk.execute(RUN_ID);
    expect(run).toMatchObject({
      status: 'completed',
      total: BULK_REPLAY_LIMIT,
      done: BULK_REPLAY_LIMIT,
      replayed: BULK_REPLAY_LIMIT,
      skipped: 0,
      limitReached: true,
    });
    expect(made.size).toBe(BULK_REPLAY_LIMIT);
    expect(runs.checkpoints()).toBeGreaterThanOrEqual(BULK_REPLAY_LIMIT / REPLAY_RUN_PAGE - 1);
    expect(runs.checkpoints()).toBeLessThanOrEqual(BULK_REPLAY_LIMIT / REPLAY_RUN_PAGE + 1);
  });

  it('does not report the cap when exactly the cap matched', async () => {
    const { bulk } = setUp(250);
    expect(await bulk.execute(RUN_ID)).toMatchObject({
      status: 'completed',
      total: 250,
      done: 250,
      limitReached: false,
    });
  });

  it('resumes a run whose worker died mid-page: every original replayed once, counts exact', async () => {
    let calls = 0;
    const { bulk, runs, made, now } = setUp(450, (items, runId) => {
      // The 4th page: half of it replayed, then the process dies before the page is recorded.
      if (++calls === 4) {
        for (const { id } of items.slice(0, 50)) {
          made.set(id, [...(made.get(id) ?? []), runId]);
        }
        throw new Error('worker killed');
      }
      return items.map(({ id }) => {
        if (id.endsWith('7')) {
          return { id, skipped: 'refused at ingress' };
        }
        made.set(id, [...(made.get(id) ?? []), runId]);
        return { id, replayId: `replay-of-${id}` };
      });
    });
    await expect(bulk.execute(RUN_ID)).rejects.toThrow('worker killed');
    expect(runs.run).toMatchObject({ status: 'running', done: 300 });
    // A process that dies does not release its claim.
    Object.assign(runs.run, { claimedBy: 'the-dead-worker', claimedUntil: new Date(now.ms + 120_000) });
    // Its claim is still live: another worker waits (a retryable failure, not the end of the run).
    const busy = bulk.execute(RUN_ID);
    await expect(busy).rejects.toThrow(/being run by another worker/);
    await expect(busy).rejects.not.toBeInstanceOf(UnrecoverableError);
    now.ms += 3 * 60_000; // the dead worker's claim lapses
    const run = await bulk.execute(RUN_ID);
    // Skipped: the ids ending in 7 (45), but the 5 of the half page replayed before the death (300-349), which count as replayed.
    expect(run).toMatchObject({
      status: 'completed',
      total: 450,
      done: 450,
      replayed: 410,
      skipped: 40,
      limitReached: false,
    });
    expect(made.size).toBe(410);
    expect([...made.values()].every((runIds) => runIds.length === 1)).toBe(true);
    // Run again (a duplicate job): nothing more.
    expect(await bulk.execute(RUN_ID)).toMatchObject({ status: 'completed', replayed: 410 });
    expect([...made.values()].every((runIds) => runIds.length === 1)).toBe(true);
  });

  it('goes oldest first when its run says so, and a run recorded before that went newest first goes on so', async () => {
    const orders = async (request: Record<string, unknown>) => {
      const { bulk, runs, messages } = setUp(250);
      const asked: (boolean | undefined)[] = [];
      const search = messages.search;
      messages.search = async (query: MessageSearch) => {
        asked.push(query.oldestFirst);
        return search(query);
      };
      runs.run.request = request;
      await bulk.execute(RUN_ID);
      return [...new Set(asked)];
    };
    expect(await orders({ mode: 'rerun', oldestFirst: true })).toEqual([true]);
    expect(await orders({ mode: 'rerun' })).toEqual([false]);
  });

  it('leaves the run running on a failure, and records it failed with the reason when its job gives up', async () => {
    const { bulk, runs } = setUp(10, () => {
      throw new Error('database unavailable');
    });
    const failure = await bulk.execute(RUN_ID).catch((error: Error) => error);
    expect(failure).toMatchObject({ message: 'database unavailable' });
    expect(runs.run.status).toBe('running');
    // The job runner decides the try was the last and calls fail once.
    await bulk.fail(RUN_ID, failure);
    expect(runs.run).toMatchObject({ status: 'failed', error: 'database unavailable' });
  });
});
