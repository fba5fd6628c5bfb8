import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@dockbridge/config';
import { PartnerRepository } from '@dockbridge/partners';
import { MessageQueues } from './message-queues';
import { ExportJobData, exportSchedulerId, QUEUES } from './queues';
import { RetryPolicy } from './retry-policy';

/** After Redis returns, messages older than this without a live job are queued again (newer ones may still be being enqueued). */
const RECONNECT_STALE_MS = 2_000;

/** The repeating jobs: the sweeper's, and one per configured partner export. Redis without persistence forgets them, so they are asserted again. */
@Injectable()
export class Schedules {
  private readonly logger = new Logger('Schedules');

  constructor(
    private readonly config: AppConfig,
    private readonly policy: RetryPolicy,
    private readonly queues: MessageQueues,
    private readonly partners: PartnerRepository,
  ) {}

  assertSweep() {
    return this.queues
      .queue(QUEUES.sweep)
      .upsertJobScheduler('sweep', { every: this.config.delivery.sweepEveryMs }, { name: 'sweep', data: {} });
  }

  /** A sweep now, over everything older than a moment (Redis came back: what was recorded meanwhile has no job). */
  async sweepNow(): Promise<void> {
    await this.assertSweep();
    await this.queues
      .queue(QUEUES.sweep)
      .add(
        'sweep',
        { staleMs: RECONNECT_STALE_MS },
        { jobId: `sweep-ready-${Date.now()}`, removeOnComplete: true, removeOnFail: true },
      );
  }

  /**
   * One job scheduler per configured partner export; schedulers of exports no longer configured are
   * removed. An unchanged schedule is left alone (re-asserting it would move its next run); a changed
   * one starts no earlier than the old one's next run, so switching cron to an interval never adds a run.
   */
  async syncExports(): Promise<void> {
    const queue = this.queues.queue(QUEUES.export);
    const wanted = new Set<string>();
    const existing = new Map((await queue.getJobSchedulers(0, -1)).map((scheduler) => [scheduler.key, scheduler]));
    for (const partner of await this.partners.list()) {
      if (!partner.enabled) {
        continue;
      }
      for (const spec of partner.settings.exports ?? []) {
        const id = exportSchedulerId(partner.id, spec.id);
        wanted.add(id);
        const data: ExportJobData = { partnerId: partner.id, exportId: spec.id };
        const repeat = spec.cron ? { pattern: spec.cron, tz: 'UTC' } : { every: spec.everyMs ?? 86_400_000 };
        const current = existing.get(id);
        if (
          current &&
          (current.pattern ?? undefined) === repeat.pattern &&
          (current.every ?? undefined) === repeat.every
        ) {
          continue;
        }
        const startDate = current?.next && current.next > Date.now() ? new Date(current.next) : undefined;
        try {
          await queue.upsertJobScheduler(
            id,
            { ...repeat, ...(startDate && { startDate }) },
            { name: QUEUES.export, data, opts: this.policy.jobOptions() },
          );
        } catch (error) {
          // One partner's bad schedule must not stop the others (nor the sweeper).
          this.logger.warn({
            msg: 'export not scheduled',
            partnerId: partner.id,
            exportId: spec.id,
            error: (error as Error).message,
          });
        }
      }
    }
    for (const id of existing.keys()) {
      if (id.startsWith('export-') && !wanted.has(id)) {
        await queue.removeJobScheduler(id);
      }
    }
  }
}
