import { MessageRepository, OperationRepository } from '@dockbridge/audit';
import { type MessageQueues, translateJobOf } from '../message-queues';
import { QUEUES, translateJobId } from '../queues';
import type { TranslateMessage } from '../translate/translate-message';

/** Longer than any export run takes to deliver its file (its POST gives up after 30 s). */
const EXPORT_DELIVERY_MS = 5 * 60_000;

export interface SweepOptions {
  /** Messages whose status has not moved for this long are looked at. */
  staleMs: number;
  /** Messages looked at per sweep and status group. */
  limit?: number;
}

export interface SweepReport {
  translations: number;
  deliveries: number;
  /** Export files whose run stopped before delivering them, marked failed. */
  exports: number;
}

/**
 * Nothing accepted is lost: messages recorded while Redis was down (or whose jobs a Redis restart
 * lost) are queued again. Received/translating messages without a live translate job (their own,
 * or their ingress commit's) get one; delivering messages get their unsettled operations re-queued
 * under the same job ids.
 */
export class SweepStuck {
  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
    private readonly queues: MessageQueues,
    private readonly translate: TranslateMessage,
    private readonly options: SweepOptions,
  ) {}

  async execute(now = new Date()): Promise<SweepReport> {
    const olderThan = new Date(now.getTime() - this.options.staleMs);
    const limit = this.options.limit ?? 500;
    const report: SweepReport = { translations: 0, deliveries: 0, exports: 0 };

    // Exports are dockbridge's own files, driven by their export job, never translated.
    for (const message of await this.messages.findStuck({ olderThan, statuses: ['received', 'translating'], channel: { except: 'export' }, limit })) {
      // Still waiting in the job of the commit that recorded it (a backlog, not a loss)?
      const ingressJob = message.metadata.ingressJob;
      if (typeof ingressJob === 'string' && (await this.queues.isLive(QUEUES.translate, ingressJob))) continue;
      const jobId = translateJobId(message.id);
      if (await this.queues.isLive(QUEUES.translate, jobId)) continue;
      await this.queues.removeFinished(QUEUES.translate, jobId);
      await this.queues.enqueueTranslate([translateJobOf(message.id)]);
      report.translations++;
    }
    // An export file still `received` this long after it was written: its run stopped before delivering it.
    // Marked failed so it shows; a retry of that run delivers it all the same.
    const exportsOlderThan = new Date(now.getTime() - Math.max(this.options.staleMs, EXPORT_DELIVERY_MS));
    for (const message of await this.messages.findStuck({ olderThan: exportsOlderThan, statuses: ['received'], channel: { only: 'export' }, limit })) {
      await this.messages.transition(message.id, 'failed', 'sweeper', 'the export run stopped before delivering this file (its worker stopped); a retry of the run delivers it');
      report.exports++;
    }
    for (const message of await this.messages.findStuck({ olderThan, statuses: ['delivering'], limit })) {
      const unsettled = (await this.operations.listByMessage(message.id)).filter((op) => op.status === 'pending' || op.status === 'delivering');
      if (unsettled.length === 0) {
        await this.messages.settleMessage(message.id, 'sweeper');
        continue;
      }
      await this.translate.enqueueDelivery(message, unsettled, true);
      report.deliveries += unsettled.length;
    }
    return report;
  }
}
