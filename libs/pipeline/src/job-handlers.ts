import { Injectable, Logger } from '@nestjs/common';
import { DelayedError, UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { AppConfig } from '@dockbridge/config';
import { DeliverBatch } from './delivery/deliver-batch';
import { DeliverOperation, DeliveryTry } from './delivery/deliver-operation';
import { RunExport } from './export/run-export';
import { chunkOfBatchJob, JobDataOf, messageIdsOf, QueueName } from './queues';
import { BulkReplays } from './replay/bulk-replay';
import { PurgeExpired } from './retention/purge-expired';
import { RetryPolicy } from './retry-policy';
import { Schedules } from './schedules';
import { SweepStuck } from './sweep/sweep-stuck';
import { TranslateMessage } from './translate/translate-message';

/** What runs one queue's jobs. The runner decides once whether a try was the last; handlers only act on it. */
export interface JobHandler<Q extends QueueName> {
  /** Jobs of this queue run at once in one worker process. */
  concurrency: number;
  /** One try. Throw to fail it (retried by the policy unless final); `token` is the job's lock (to move it to delayed). */
  run(job: Job<JobDataOf<Q>>, attempt: DeliveryTry, token?: string): Promise<unknown>;
  /** Called once, when a try failed and no other follows (the horizon is reached, or the failure is permanent). */
  onFinalFailure?(job: Job<JobDataOf<Q>>, error: unknown, attempt: DeliveryTry): Promise<void>;
}

/** Exactly one handler per queue: a queue added to QUEUES without one does not compile. */
export type JobHandlers = { [Q in QueueName]: JobHandler<Q> };

/**
 * Runs one try of a job through its handler, and is the one place that decides "was that the last
 * try?": a permanent failure or the retry horizon makes it final, the handler's onFinalFailure runs,
 * and the job ends (UnrecoverableError); otherwise the error goes back to BullMQ to be retried.
 */
export async function runTry<Q extends QueueName>(
  handler: JobHandler<Q>,
  job: Job<JobDataOf<Q>>,
  policy: RetryPolicy,
  token?: string,
): Promise<unknown> {
  const attempt: DeliveryTry = {
    attempt: job.attemptsMade + 1,
    isLast: policy.isLastTry(job),
    queuedAt: job.timestamp,
  };
  try {
    return await handler.run(job, attempt, token);
  } catch (error) {
    if (error instanceof DelayedError) {
      throw error;
    }
    const jobError = RetryPolicy.toJobError(error, attempt.isLast);
    if (jobError instanceof UnrecoverableError) {
      await handler.onFinalFailure?.(job, error, attempt);
    }
    throw jobError;
  }
}

/** Moves the job to delayed for `deferMs` and ends the try without counting it (runTry lets DelayedError through). */
async function waitWithoutTry(job: Job, deferMs: number, token: string | undefined): Promise<never> {
  await job.moveToDelayed(Date.now() + deferMs, token);
  throw new DelayedError();
}

/** The job handlers of the pipeline: each queue's use case, its concurrency and what its last failure records. */
@Injectable()
export class PipelineJobHandlers {
  readonly handlers: JobHandlers;

  private readonly logger = new Logger('Worker');

  constructor(
    config: AppConfig,
    translate: TranslateMessage,
    deliver: DeliverOperation,
    batch: DeliverBatch,
    exports: RunExport,
    bulkReplays: BulkReplays,
    sweep: SweepStuck,
    retention: PurgeExpired,
    schedules: Schedules,
  ) {
    const logger = this.logger;
    this.handlers = {
      translate: {
        concurrency: 4,
        async run(job) {
          const messageIds = messageIdsOf(job.data);
          const { failed, error } = await translate.executeMany(messageIds);
          if (failed.length === 0) {
            return;
          }
          // Retried with the messages that failed only; the others are done.
          if (failed.length < messageIds.length) {
            await job.updateData({ messageIds: failed });
          }
          throw error;
        },
        // Only the database or Redis away for the whole horizon gets here: the content is not to blame, but it was never translated.
        onFinalFailure: (job, error, attempt) => translate.giveUp(messageIdsOf(job.data), error, attempt.attempt),
      },
      deliver: {
        concurrency: config.delivery.concurrency,
        async run(job, attempt, token) {
          const result = await deliver.execute(job.data.operationId, attempt);
          // Not now (an older write first, or the account paused): wait without spending a try.
          return typeof result === 'object' ? waitWithoutTry(job, result.deferMs, token) : result;
        },
        // The attempt row settles the operation `failed` when the try is final: nothing more to record.
      },
      batch: {
        concurrency: 2,
        async run(job, attempt, token) {
          const result = await batch.execute(
            job.data,
            attempt,
            (patch) => job.updateData({ ...job.data, ...patch }),
            chunkOfBatchJob(job.id!),
          );
          // Behind a message not yet translated: wait without spending a try.
          return 'deferMs' in result ? waitWithoutTry(job, result.deferMs, token) : result;
        },
      },
      export: {
        concurrency: 1,
        run: (job) =>
          exports.execute(job.data, scheduledRunAt(job), (messageId) => job.updateData({ ...job.data, messageId })),
        // A run that gives up is audited, even when it never had a file.
        onFinalFailure: (job, error) => exports.recordFailedRun(job.data, scheduledRunAt(job), error),
      },
      replay: {
        concurrency: 1,
        run: (job) => bulkReplays.execute(job.data.runId),
        onFinalFailure: (job, error) => bulkReplays.fail(job.data.runId, error),
      },
      // The sweeper also re-asserts the export schedules and applies the audit retention.
      sweep: {
        concurrency: 1,
        async run(job) {
          const report = await sweep.execute(new Date(), job.data.staleMs);
          await schedules.syncExports();
          if (Object.values(report).some((count) => count > 0)) {
            logger.log({ msg: 'sweeper re-queued work', ...report });
          }
          const purged = await retention.execute();
          if (purged.messages || purged.receipts || purged.abandonedChunks) {
            logger.log({ msg: 'retention purged settled messages', ...purged });
          }
          return { ...report, purged };
        },
      },
    };
  }
}

/** When a scheduled run was due (its job id is `repeat:<scheduler>:<millis>`); a job added by hand runs "now", when it was added. */
export function scheduledRunAt(job: Pick<Job, 'id' | 'timestamp'>): Date {
  const due = /^repeat:.+:(\d+)$/.exec(job.id ?? '')?.[1];
  return new Date(due ? Number(due) : job.timestamp);
}
