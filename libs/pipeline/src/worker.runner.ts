import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, UnrecoverableError } from 'bullmq';
import type { Job, Worker } from 'bullmq';
import { AppConfig } from '@dockbridge/config';
import { DeliverBatch } from './delivery/deliver-batch';
import { DeliverOperation, DeliveryTry } from './delivery/deliver-operation';
import { MessageQueues, startWorker } from './message-queues';
import { PartnerRepository } from '@dockbridge/partners';
import { ExportJobData, RunExport } from './export/run-export';
import { BatchJobData, DeliverJobData, exportSchedulerId, messageIdsOf, QueueName, QUEUES, TranslateJobData } from './queues';
import { RetryPolicy } from './retry-policy';
import { SweepStuck } from './sweep/sweep-stuck';
import { PurgeExpired } from './retention/purge-expired';
import { TranslateMessage } from './translate/translate-message';
import { BulkReplays } from './replay/bulk-replay';


/**
 * Starts one BullMQ worker per queue, each handing its jobs to a use case; schedules the sweeper
 * (which also applies the audit retention).
 * On shutdown (SIGTERM) each worker stops taking jobs and waits for its running ones to finish, so
 * nothing is half-recorded.
 */
/** After Redis returns, messages older than this without a live job are queued again (newer ones may still be being enqueued). */
const RECONNECT_STALE_MS = 2_000;

@Injectable()
export class WorkerRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Worker');
  private workers: Worker[] = [];

  constructor(
    private readonly config: AppConfig,
    private readonly policy: RetryPolicy,
    private readonly queues: MessageQueues,
    private readonly translate: TranslateMessage,
    private readonly deliver: DeliverOperation,
    private readonly batch: DeliverBatch,
    private readonly sweep: SweepStuck,
    private readonly retention: PurgeExpired,
    private readonly exports: RunExport,
    private readonly partners: PartnerRepository,
    private readonly bulkReplays: BulkReplays,
  ) {}

  /** Which try of its job this is, and whether the retry policy allows another (the horizon, not a count). */
  private readonly tryOf = (job: Job): DeliveryTry => ({ attempt: job.attemptsMade + 1, isLast: this.policy.isLastTry(job) });

  async onApplicationBootstrap(): Promise<void> {
    const tryOf = this.tryOf;
    const { concurrency } = this.config.delivery;
    this.workers = [
      this.start<TranslateJobData>(QUEUES.translate, async (job) => {
        const messageIds = messageIdsOf(job.data);
        const { failed, error } = await this.translate.executeMany(messageIds);
        if (failed.length === 0) return;
        const attempt = tryOf(job);
        if (attempt.isLast) return this.translate.giveUp(failed, error, attempt.attempt);
        // Retried with the messages that failed only; the others are done.
        if (failed.length < messageIds.length) await job.updateData({ messageIds: failed });
        throw error;
      }, 4),
      this.start<DeliverJobData>(QUEUES.deliver, async (job, token) => {
        const result = await this.deliver.execute(job.data.operationId, tryOf(job));
        if (typeof result !== 'object') return result;
        // Not now (an older write first, or the account paused): wait without spending a try.
        await job.moveToDelayed(Date.now() + result.deferMs, token);
        throw new DelayedError();
      }, concurrency),
      this.start<BatchJobData>(QUEUES.batch, (job) => this.batch.execute(job.data, tryOf(job), (patch) => job.updateData({ ...job.data, ...patch })), 2),
      // The run's scheduled time names the file, so a retried run replaces its file instead of adding one.
      this.start<ExportJobData>(QUEUES.export, async (job) => {
        const runAt = scheduledRunAt(job);
        try {
          return await this.exports.execute(job.data, runAt, (messageId) => job.updateData({ ...job.data, messageId }));
        } catch (error) {
          // A permanent or auth failure (an unknown layout, a refused token) ends the run at once, like a delivery;
          // a run that gives up is audited even when it never had a file.
          const jobError = RetryPolicy.toJobError(error, tryOf(job).isLast);
          if (jobError instanceof UnrecoverableError) await this.exports.recordFailedRun(job.data, runAt, error);
          throw jobError;
        }
      }, 1),
      this.start<{ staleMs?: number }>(QUEUES.sweep, async (job) => {
        const report = await this.sweep.execute(new Date(), job.data.staleMs);
        await this.syncExportSchedules();
        if (report.translations || report.deliveries || report.exports || report.settled || report.replayRuns) this.logger.log({ msg: 'sweeper re-queued work', ...report });
        const purged = await this.retention.execute();
        if (purged.messages || purged.receipts) this.logger.log({ msg: 'retention purged settled messages', ...purged });
        return { ...report, purged };
      }, 1),
      // Bulk replay runs (one at a time per worker); a run interrupted by a crash resumes where its row says.
      this.start<{ runId: string }>(QUEUES.replay, (job) => this.bulkReplays.execute(job.data.runId, tryOf(job).isLast), 1),
    ];
    await this.scheduleSweep();
    await this.syncExportSchedules();
    // Redis without persistence forgets the schedule when it restarts: assert it again on every reconnect,
    // and sweep at once, not a period later, for what was recorded while it was away.
    this.queues.connection.on('ready', () => void this.sweepNow().catch(() => undefined));
  }

  /**
   * One job scheduler per configured partner export; schedulers of exports no longer configured are
   * removed. An unchanged schedule is left alone (re-asserting it would move its next run); a changed
   * one starts no earlier than the old one's next run, so switching cron to an interval never adds a run.
   */
  private async syncExportSchedules(): Promise<void> {
    const queue = this.queues.queue(QUEUES.export);
    const wanted = new Set<string>();
    const existing = new Map((await queue.getJobSchedulers(0, -1)).map((scheduler) => [scheduler.key, scheduler]));
    for (const partner of await this.partners.list()) {
      if (!partner.enabled) continue;
      for (const spec of partner.settings.exports ?? []) {
        const id = exportSchedulerId(partner.id, spec.id);
        wanted.add(id);
        const data: ExportJobData = { partnerId: partner.id, exportId: spec.id };
        const repeat = spec.cron ? { pattern: spec.cron, tz: 'UTC' } : { every: spec.everyMs ?? 86_400_000 };
        const current = existing.get(id);
        if (current && (current.pattern ?? undefined) === repeat.pattern && (current.every ?? undefined) === repeat.every) continue;
        const startDate = current?.next && current.next > Date.now() ? new Date(current.next) : undefined;
        try {
          await queue.upsertJobScheduler(id, { ...repeat, ...(startDate && { startDate }) }, { name: QUEUES.export, data, opts: this.policy.jobOptions() });
        } catch (error) {
          // One partner's bad schedule must not stop the others (nor the sweeper).
          this.logger.warn({ msg: 'export not scheduled', partnerId: partner.id, exportId: spec.id, error: (error as Error).message });
        }
      }
    }
    for (const id of existing.keys()) if (id.startsWith('export-') && !wanted.has(id)) await queue.removeJobScheduler(id);
  }

  private async sweepNow(): Promise<void> {
    await this.scheduleSweep();
    await this.queues.queue(QUEUES.sweep).add('sweep', { staleMs: RECONNECT_STALE_MS }, { jobId: `sweep-ready-${Date.now()}`, removeOnComplete: true, removeOnFail: true });
  }

  private scheduleSweep() {
    return this.queues.queue(QUEUES.sweep).upsertJobScheduler('sweep', { every: this.config.delivery.sweepEveryMs }, { name: 'sweep', data: {} });
  }

  /**
   * Before any module lets go of its connections (onApplicationShutdown closes the platform client,
   * Redis and the database): running jobs finish with everything they need, and no new one starts.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }

  private start<T>(name: QueueName, handle: (job: Job<T>, token?: string) => Promise<unknown>, concurrency: number): Worker<T> {
    const worker = startWorker<T>(name, handle, { redis: this.config.redis, prefix: this.config.redis.prefix, policy: this.policy, concurrency });
    worker.on('failed', (job, error) => {
      if (!job) return;
      const final = error.name === 'UnrecoverableError' || job.finishedOn !== undefined;
      this.logger[final ? 'warn' : 'debug']({ msg: final ? 'job failed' : 'job will be retried', queue: name, jobId: job.id, attempt: job.attemptsMade, error: error.message });
    });
    return worker;
  }
}

/** When a scheduled run was due (its job id is `repeat:<scheduler>:<millis>`); a job added by hand runs "now", when it was added. */
export function scheduledRunAt(job: Pick<Job, 'id' | 'timestamp'>): Date {
  const due = /^repeat:.+:(\d+)$/.exec(job.id ?? '')?.[1];
  return new Date(due ? Number(due) : job.timestamp);
}
