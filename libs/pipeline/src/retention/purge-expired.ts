import { Inject, Injectable } from '@nestjs/common';
import { InterchangeRepository, MessageRepository, MessageStatus } from '@dockbridge/audit';
import { RETENTION_OPTIONS } from '../pipeline.options';

export interface RetentionOptions {
  /** Days kept after settling: delivered, rejected, duplicate (0: forever). */
  retentionDays: number;
  /** Days kept after settling: failed, partially failed (0: forever). */
  failedRetentionDays: number;
  /** Messages deleted per statement, and statements per run: a run stays short, the next one goes on. */
  chunk?: number;
  maxChunks?: number;
}

export interface PurgeReport {
  messages: number;
  receipts: number;
}

const DAY_MS = 86_400_000;
/** Interchange receipts outlive their messages up to the longest duplicate window a partner may set (duplicateWindowDays ≤ 3650). */
const RECEIPT_DAYS = 3650;

/**
 * The audit store's retention: settled messages older than their retention are deleted with
 * everything hanging off them. Messages still in flight (received, translating, delivering) are
 * never touched, whatever their age.
 */
@Injectable()
export class PurgeExpired {
  constructor(
    private readonly messages: MessageRepository,
    private readonly interchanges: InterchangeRepository,
    @Inject(RETENTION_OPTIONS) private readonly options: RetentionOptions,
  ) {}

  async execute(now = new Date()): Promise<PurgeReport> {
    const chunk = this.options.chunk ?? 1000;
    const maxChunks = this.options.maxChunks ?? 10;
    const groups: [readonly MessageStatus[], number][] = [
      [['delivered', 'rejected', 'duplicate', 'superseded'], this.options.retentionDays],
      [['failed', 'partially_failed'], this.options.failedRetentionDays],
    ];
    let messages = 0;
    for (const [statuses, days] of groups) {
      if (days === 0) {
        continue;
      }
      const before = new Date(now.getTime() - days * DAY_MS);
      for (let i = 0; i < maxChunks; i++) {
        const deleted = await this.messages.purgeSettled(statuses, before, chunk);
        messages += deleted;
        if (deleted < chunk) {
          break;
        }
      }
    }
    const receipts = await this.interchanges.purgeReceipts(new Date(now.getTime() - RECEIPT_DAYS * DAY_MS));
    return { messages, receipts };
  }
}
