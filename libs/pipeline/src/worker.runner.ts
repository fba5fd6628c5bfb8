import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Worker } from 'bullmq';
import { AppConfig } from '@dockbridge/config';
import { JobHandler, PipelineJobHandlers, runTry } from './job-handlers';
import { MessageQueues, startWorker } from './message-queues';
import { JobDataOf, QueueName } from './queues';
import { RetryPolicy } from './retry-policy';
import { Schedules } from './schedules';

/**
 * Starts one BullMQ worker per entry of the job handler table, each try going through `runTry`
 * (the one place that decides a try was the last); asserts the repeating schedules, again whenever
 * Redis comes back (with a sweep at once). On shutdown (SIGTERM) each worker stops taking jobs and
 * waits for its running ones to finish, so nothing is half-recorded.
 */
@Injectable()
export class WorkerRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Worker');
  private workers: Worker[] = [];

  constructor(
    private readonly config: AppConfig,
    private readonly policy: RetryPolicy,
    private readonly queues: MessageQueues,
    private readonly table: PipelineJobHandlers,
    private readonly schedules: Schedules,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const handlers = this.table.handlers;
    this.workers = (Object.keys(handlers) as QueueName[]).map((name) =>
      this.start(name, handlers[name] as JobHandler<QueueName>),
    );
    await this.schedules.assertSweep();
    await this.schedules.syncExports();
    // Redis without persistence forgets the schedules when it restarts: assert them again on every
    // reconnect, and sweep at once, not a period later, for what was recorded while it was away.
    this.queues.connection.on('ready', () => void this.schedules.sweepNow().catch(() => undefined));
  }

  /**
   * Before any module lets go of its connections (onApplicationShutdown closes the platform client,
   * Redis and the database): running jobs finish with everything they need, and no new one starts.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }

  private start(name: QueueName, handler: JobHandler<QueueName>): Worker {
    const worker = startWorker<JobDataOf<QueueName>>(name, (job, token) => runTry(handler, job, this.policy, token), {
      redis: this.config.redis,
      prefix: this.config.redis.prefix,
      policy: this.policy,
      concurrency: handler.concurrency,
      lockDuration: this.config.worker.jobLockMs,
      stalledInterval: this.config.worker.jobLockMs,
    });
    worker.on('failed', (job, error) => {
      if (!job) {
        return;
      }
      const final = error.name === 'UnrecoverableError' || job.finishedOn !== undefined;
      this.logger[final ? 'warn' : 'debug']({
        msg: final ? 'job failed' : 'job will be retried',
        queue: name,
        jobId: job.id,
        attempt: job.attemptsMade,
        error: error.message,
      });
    });
    return worker;
  }
}
