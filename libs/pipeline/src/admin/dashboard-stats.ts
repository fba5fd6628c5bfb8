import { Injectable } from '@nestjs/common';
import { MessageActivity, MessageStatsRepository } from '@dockbridge/audit';
import { PartnerRepository } from '@dockbridge/partners';
import { MessageQueues, QueueState } from '../message-queues';

/** The longest window the dashboard shows, and its default. */
export const STATS_MAX_HOURS = 48;
export const STATS_DEFAULT_HOURS = 6;
/** Points per chart at most: a minute each up to 6 hours, coarser beyond. */
const MAX_BUCKETS = 360;

export interface DashboardStatsView extends Omit<MessageActivity, 'partners'> {
  from: Date;
  to: Date;
  bucketSeconds: number;
  /** null when Redis cannot be read: the rest still answers. */
  queues: QueueState[] | null;
  /** Every partner, with what it sent in the window and when it last sent anything. */
  partners: (MessageActivity['partners'][number] & { lastReceivedAt: Date | null })[];
}

/** Bucket width: whole minutes, so the buckets line up with the clock. */
export const bucketSecondsFor = (hours: number): number =>
  Math.max(60, Math.ceil((hours * 3600) / MAX_BUCKETS / 60) * 60);

/** The console's dashboard: messages per bucket, latency, failures by class, queues and partners. */
@Injectable()
export class DashboardStats {
  constructor(
    private readonly stats: MessageStatsRepository,
    private readonly partners: PartnerRepository,
    private readonly queues: MessageQueues,
  ) {}

  async read(hours: number, now = new Date()): Promise<DashboardStatsView> {
    const bucketSeconds = bucketSecondsFor(hours);
    const step = bucketSeconds * 1000;
    // The window ends at the end of the current bucket, so the newest one is partly filled, not missing.
    const to = new Date(Math.ceil((now.getTime() + 1) / step) * step);
    const from = new Date(to.getTime() - Math.ceil((hours * 3600_000) / step) * step);
    const [activity, partners, queues] = await Promise.all([
      this.stats.activity(from, to, bucketSeconds),
      this.partners.list(),
      this.queues.states(now.getTime()).catch(() => null),
    ]);
    const last = await this.stats.lastReceived(partners.map((p) => p.id));
    const inWindow = new Map(activity.partners.map((row) => [row.partner, row]));
    return {
      from,
      to,
      bucketSeconds,
      series: activity.series,
      latencyMs: activity.latencyMs,
      failuresByClass: activity.failuresByClass,
      queues,
      partners: partners.map((partner) => ({
        partner: partner.id,
        received: inWindow.get(partner.id)?.received ?? 0,
        delivered: inWindow.get(partner.id)?.delivered ?? 0,
        failed: inWindow.get(partner.id)?.failed ?? 0,
        lastReceivedAt: last.get(partner.id) ?? null,
      })),
    };
  }
}
