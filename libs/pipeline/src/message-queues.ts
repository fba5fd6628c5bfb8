import { Job, JobsOptions, Queue, Worker, WorkerOptions } from 'bullmq';
import {
  BatchJobData,
  batchJobId,
  DeliverJobData,
  deliverJobId,
  QueueName,
  QUEUES,
  ReplayRunJobData,
  replayRunJobId,
  TranslateJobData,
  translateJobId,
} from './queues';
import { createRedisConnection, RedisConnection, RedisTarget } from './redis-connection';
import { RetryPolicy } from './retry-policy';

/** A translate job: its id and the messages it translates. */
export interface TranslateJob {
  jobId: string;
  messageIds: string[];
}

/** The translate job of one message on its own (replay, sweeper): job id = message id. */
export const translateJobOf = (messageId: string): TranslateJob => ({
  jobId: translateJobId(messageId),
  messageIds: [messageId],
});

export interface MessageQueuesOptions {
  redis: RedisTarget;
  prefix: string;
  policy: RetryPolicy;
}

/** Completed jobs are kept briefly (dedup window, dashboard); failed ones longer, for inspection. The audit log is the record. */
const RETENTION: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** The producer side of the pipeline: one Queue per name over one fail-fast connection. */
export class MessageQueues {
  readonly connection: RedisConnection;
  private readonly queues = new Map<QueueName, Queue>();

  constructor(private readonly options: MessageQueuesOptions) {
    this.connection = createRedisConnection(options.redis, 'producer');
    for (const name of Object.values(QUEUES)) {
      const queue = new Queue(name, {
        connection: this.connection,
        prefix: options.prefix,
        defaultJobOptions: RETENTION,
      });
      // Redis being away is handled where it matters (ingress, health); the event only needs a listener.
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
  }

  queue(name: QueueName): Queue {
    return this.queues.get(name)!;
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  /** Queues translation of recorded messages, in one round trip however many jobs (see TranslateJobData for the job ids). */
  async enqueueTranslate(jobs: readonly TranslateJob[]): Promise<void> {
    // The one policy: the database or Redis away for hours is retried, never a reason to fail a message.
    const opts = this.options.policy.jobOptions();
    const wanted = jobs.filter((job) => job.messageIds.length > 0);
    if (wanted.length === 0) {
      return;
    }
    await this.queue(QUEUES.translate).addBulk(
      wanted.map(({ jobId, messageIds }) => ({
        name: QUEUES.translate,
        data: { messageIds } satisfies TranslateJobData,
        opts: { jobId, ...opts },
      })),
    );
  }

  /**
   * Queues translation of recorded messages; false when Redis cannot take the jobs. The messages are
   * durable in Postgres either way: the sweeper queues what is left `received`.
   */
  async tryEnqueueTranslate(jobs: readonly TranslateJob[]): Promise<boolean> {
    try {
      await this.enqueueTranslate(jobs);
      return true;
    } catch {
      return false;
    }
  }

  async enqueueDeliveries(operationIds: string[]): Promise<void> {
    if (operationIds.length === 0) {
      return;
    }
    await this.queue(QUEUES.deliver).addBulk(
      operationIds.map((operationId) => ({
        name: QUEUES.deliver,
        data: { operationId } satisfies DeliverJobData,
        opts: { jobId: deliverJobId(operationId), ...this.options.policy.jobOptions() },
      })),
    );
  }

  /** Queues bulk replay runs (one job id per run: a run already queued is not queued twice). */
  async enqueueReplayRuns(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) {
      return;
    }
    await this.queue(QUEUES.replay).addBulk(
      runIds.map((runId) => ({
        name: QUEUES.replay,
        data: { runId } satisfies ReplayRunJobData,
        opts: { jobId: replayRunJobId(runId), ...this.options.policy.jobOptions() },
      })),
    );
  }

  async enqueueBatch(data: BatchJobData): Promise<void> {
    await this.queue(QUEUES.batch).add(QUEUES.batch, data, {
      jobId: batchJobId(data.operationIds),
      ...this.options.policy.jobOptions(),
    });
  }

  /** Whether a job with this id is waiting, delayed or running (not finished, not absent). */
  async isLive(name: QueueName, jobId: string): Promise<boolean> {
    const job = await this.queue(name).getJob(jobId);
    if (!job) {
      return false;
    }
    const state = await job.getState();
    return state !== 'completed' && state !== 'failed' && state !== 'unknown';
  }

  /**
   * Of these job ids, those whose job is waiting, delayed or running, and those whose job finished
   * (completed or failed, still kept): one pipelined round trip however many (a job's hash has a
   * `timestamp` while it exists and a `finishedOn` once it ended).
   */
  async jobStates(name: QueueName, jobIds: readonly string[]): Promise<{ live: Set<string>; finished: Set<string> }> {
    const live = new Set<string>();
    const finished = new Set<string>();
    if (jobIds.length === 0) {
      return { live, finished };
    }
    const queue = this.queue(name);
    const pipeline = this.connection.pipeline();
    for (const id of jobIds) {
      pipeline.hmget(queue.toKey(id), 'timestamp', 'finishedOn');
    }
    const answers = (await pipeline.exec()) ?? [];
    answers.forEach(([error, fields], i) => {
      if (error) {
        throw error;
      }
      const [created, finishedOn] = fields as (string | null)[];
      if (created === null) {
        return;
      }
      (finishedOn === null ? live : finished).add(jobIds[i]);
    });
    return { live, finished };
  }

  /** Removes finished jobs so their ids can be queued again (redrive under the original ids); at most 64 removals at a time. */
  async removeFinishedMany(name: QueueName, jobIds: readonly string[]): Promise<void> {
    const { finished } = await this.jobStates(name, jobIds);
    const ids = [...finished];
    for (let i = 0; i < ids.length; i += 64) {
      await Promise.all(ids.slice(i, i + 64).map((id) => this.queue(name).remove(id)));
    }
  }

  /** Removes a finished job so the same id can be queued again (redrive under the original id). */
  async removeFinished(name: QueueName, jobId: string): Promise<void> {
    const job = await this.queue(name).getJob(jobId);
    if (job && ['completed', 'failed'].includes(await job.getState())) {
      await job.remove();
    }
  }

  async depths(): Promise<Record<string, Record<string, number>>> {
    const entries = await Promise.all(
      this.all().map(
        async (queue) =>
          [queue.name, await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed')] as const,
      ),
    );
    return Object.fromEntries(entries);
  }

  /** Each queue's job counts and how long its oldest waiting job has waited (null: none waits). */
  async states(now = Date.now()): Promise<QueueState[]> {
    return Promise.all(
      this.all().map(async (queue) => {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
        const [oldest] = await queue.getJobs(['wait'], 0, 0, true);
        return {
          name: queue.name,
          waiting: counts.waiting ?? 0,
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          oldestWaitingSeconds: oldest ? Math.max(0, Math.round((now - oldest.timestamp) / 1000)) : null,
        };
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((queue) => queue.close()));
    this.connection.disconnect();
  }
}

export interface QueueState {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  oldestWaitingSeconds: number | null;
}

export type Processor<T> = (job: Job<T>, token?: string) => Promise<unknown>;

/** A BullMQ worker with the one retry policy's backoff and its own blocking connection. */
export function startWorker<T>(
  name: QueueName,
  processor: Processor<T>,
  options: { redis: RedisTarget; prefix: string; policy: RetryPolicy; concurrency: number } & Partial<WorkerOptions>,
): Worker<T> {
  const { redis, policy, ...rest } = options;
  const connection = createRedisConnection(redis, 'worker');
  const worker = new Worker<T>(name, processor, {
    ...rest,
    connection,
    settings: { backoffStrategy: policy.delayFor },
  });
  // Failures are recorded by the processors in the audit log; this only keeps the error event handled.
  worker.on('error', () => undefined);
  // BullMQ leaves a connection it was given open: close it with the worker.
  worker.on('closed', () => connection.disconnect());
  return worker;
}
