import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import {
  Actor,
  DomainError,
  MessageFilter,
  MessageRepository,
  ReplayRun,
  ReplayRunProgress,
  ReplayRunRepository,
} from '@dockbridge/audit';
import { MessageQueues } from '../message-queues';
import { BULK_REPLAY_LIMIT, BulkReplayRequest, ReplayMessage } from './replay-message';

/** Originals handled between two progress writes: a 10,000-message run writes its row ~100 times. */
export const REPLAY_RUN_PAGE = 100;
/** Skipped messages kept with their reason on the run (`skipped` counts them all). */
export const REPLAY_RUN_SKIPS_KEPT = 100;
/** How long a worker's claim on a run lasts without a progress write: a crashed worker's run is taken over after this. */
const CLAIM_MS = 2 * 60_000;

/**
 * The options of a bulk replay as stored on its run, and the order it goes in: `oldestFirst` on
 * every run started since replays are recorded in their originals' order (a run recorded before
 * that goes on newest first: its `resumeAfter` is a cursor in that order).
 */
export type ReplayRunRequest = Omit<BulkReplayRequest, 'actor' | 'reason'> & { oldestFirst?: boolean };

/** A bulk replay run could not be queued (Redis away): the run is recorded `failed` with the reason. */
export class ReplayRunNotQueuedError extends DomainError {
  readonly kind = 'unavailable';
}

/** Another worker holds the run: retried later (the claim lapses if that worker died). */
class RunBusyError extends Error {}

/**
 * Bulk replay as a job: `start` records a `replay_run` and queues it (the API answers 202 with its
 * id); a worker runs `execute`, a page of originals at a time, writing progress to the row after
 * each page. The executor is a BullMQ job (queue `replay`), not the gateway's memory: a gateway
 * restart or a client's timeout loses nothing, and a worker that dies mid-run leaves the job to be
 * taken up again (stalled-job recovery, retries under the one retry policy). A resumed run starts
 * after the last page it recorded and first looks up the replays it already made (their
 * `metadata.replay.run`), so no original is replayed twice by one run.
 */
@Injectable()
export class BulkReplays {
  private readonly logger = new Logger('BulkReplay');

  constructor(
    private readonly messages: MessageRepository,
    private readonly runs: ReplayRunRepository,
    private readonly replays: ReplayMessage,
    private readonly queues: MessageQueues,
  ) {}

  /** Records the run (`queued`) and queues its job; throws ReplayRunNotQueuedError (the run then `failed`) when Redis cannot take it. */
  async start(filter: MessageFilter, request: ReplayRunRequest, actor: Actor, reason?: string): Promise<ReplayRun> {
    const run = await this.runs.create({
      filter: filterToJson(filter),
      request: { ...request, oldestFirst: true },
      actor,
      reason,
    });
    try {
      await this.enqueue(run.id);
    } catch (error) {
      const reason = `the run could not be queued: ${(error as Error).message}`;
      await this.runs.fail(run.id, reason);
      throw new ReplayRunNotQueuedError(reason);
    }
    return run;
  }

  /** Queues the run's job (idempotent: one job id per run). */
  async enqueue(runId: string): Promise<void> {
    await this.queues.enqueueReplayRuns([runId]);
  }

  /** Runs (or resumes) the run to its end. A failure is thrown for the job to be retried. */
  async execute(runId: string): Promise<ReplayRun | null> {
    return this.run(runId);
  }

  /** The run's job gave up (its last try failed): the run ends `failed` with the reason. */
  async fail(runId: string, error: unknown): Promise<void> {
    await this.runs.fail(runId, error instanceof Error ? error.message : String(error));
  }

  private async run(runId: string): Promise<ReplayRun | null> {
    const owner = randomUUID();
    const claim = await this.runs.claim(runId, owner, CLAIM_MS);
    if (claim.outcome === 'missing') {
      throw new UnrecoverableError(`replay run ${runId} does not exist`);
    }
    if (claim.outcome === 'finished') {
      return claim.run;
    }
    if (claim.outcome === 'busy') {
      throw new RunBusyError(
        `replay run ${runId} is being run by another worker (claimed until ${claim.run.claimedUntil?.toISOString()})`,
      );
    }
    const run = claim.run;
    try {
      return await this.runClaimed(run, owner);
    } catch (error) {
      // A failure in this process (the database away, say): the retry may take the run up at once.
      if (!(error instanceof RunBusyError)) {
        await this.runs.release(runId, owner).catch(() => undefined);
      }
      throw error;
    }
  }

  private async runClaimed(run: ReplayRun, owner: string): Promise<ReplayRun | null> {
    const runId = run.id;
    const { oldestFirst, ...options } = run.request as ReplayRunRequest;
    const request = { ...options, actor: run.actor, reason: run.reason ?? undefined };
    // Only messages received before the run was asked for: never its own replays, nor what arrives while it runs.
    const filter = filterFromJson(run.filter, run.createdAt);
    const progress: ReplayRunProgress = {
      total: run.total,
      done: run.done,
      replayed: run.replayed,
      skipped: run.skipped,
      skips: [...run.skips],
      limitReached: run.limitReached,
      resumeAfter: run.resumeAfter,
    };
    if (progress.total === null) {
      const matching = await this.messages.countBy(filter);
      progress.total = Math.min(matching, BULK_REPLAY_LIMIT);
      progress.limitReached = matching > BULK_REPLAY_LIMIT;
      await this.save(runId, owner, progress);
    }
    if (run.done > 0) {
      this.logger.log({ msg: 'bulk replay resumed', runId, done: run.done, resumeAfter: run.resumeAfter });
    }

    for (;;) {
      const room = BULK_REPLAY_LIMIT - progress.done;
      const page = await this.messages.search({
        ...filter,
        limit: Math.max(1, Math.min(REPLAY_RUN_PAGE, room)),
        cursor: progress.resumeAfter,
        oldestFirst: oldestFirst === true,
      });
      if (room <= 0) {
        // The cap: whatever still matches is left for another run.
        progress.limitReached = page.items.length > 0;
        break;
      }
      if (page.items.length === 0) {
        progress.limitReached = false;
        break;
      }
      // What an interrupted execution of this run already replayed counts as replayed, and is not replayed again.
      const mine = await this.runs.replaysByRun(
        runId,
        page.items.map((m) => m.id),
      );
      const outcomes = await this.replays.replayEach(
        page.items.filter((m) => !mine.has(m.id)),
        request,
        { runId },
      );
      progress.replayed += mine.size;
      for (const outcome of outcomes) {
        if ('replayId' in outcome) {
          progress.replayed++;
          continue;
        }
        progress.skipped++;
        if (progress.skips.length < REPLAY_RUN_SKIPS_KEPT) {
          progress.skips.push({ id: outcome.id, reason: outcome.skipped });
        }
      }
      progress.done += page.items.length;
      progress.resumeAfter = page.items[page.items.length - 1].id;
      if (!page.nextCursor) {
        progress.limitReached = false;
        break;
      }
      await this.save(runId, owner, progress);
    }
    // Exact once over: what was looked at (messages removed by retention meanwhile are not counted).
    progress.total = progress.done;
    if (!(await this.runs.complete(runId, owner, progress))) {
      throw new RunBusyError(`replay run ${runId} was taken over by another worker`);
    }
    this.logger.log({
      msg: 'bulk replay completed',
      runId,
      replayed: progress.replayed,
      skipped: progress.skipped,
      limitReached: progress.limitReached,
    });
    return this.runs.findById(runId);
  }

  private async save(runId: string, owner: string, progress: ReplayRunProgress): Promise<void> {
    if (!(await this.runs.checkpoint(runId, owner, progress, CLAIM_MS))) {
      throw new RunBusyError(`replay run ${runId} was taken over by another worker`);
    }
  }
}

/** A filter as stored on a run (dates as ISO strings). */
function filterToJson(filter: MessageFilter): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filter)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
  );
}

/** A stored filter, held to messages received before `createdAt`. */
function filterFromJson(json: Record<string, unknown>, createdAt: Date): MessageFilter {
  const filter = { ...json } as MessageFilter & { from?: unknown; to?: unknown };
  const from = typeof json.from === 'string' ? new Date(json.from) : undefined;
  const to = typeof json.to === 'string' ? new Date(json.to) : undefined;
  return { ...filter, from, to: to && to < createdAt ? to : createdAt };
}
