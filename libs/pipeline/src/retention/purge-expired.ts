import { Inject, Injectable, Optional } from '@nestjs/common';
import { InterchangeRepository, MessageRepository, MessageStatus } from '@dockbridge/audit';
import { PartnerFileRepository } from '@dockbridge/partners';
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
  /** Stored chunks of uploads that never completed. */
  abandonedChunks: number;
}

const DAY_MS = 86_400_000;
/** An upload that has added no chunk for this long and has no file will never complete. */
const ABANDONED_UPLOAD_MS = DAY_MS;
/** The abandoned-chunk purge reads the whole chunk table: once an hour, not with every sweep. */
const CHUNK_PURGE_EVERY_MS = 3_600_000;
/** Interchange receipts outlive their messages up to the longest duplicate window a partner may set (duplicateWindowDays ≤ 3650). */
const RECEIPT_DAYS = 3650;

/**
 * The audit store's retention: settled messages older than their retention are deleted with
 * everything hanging off them. Messages still in flight (received, translating, delivering) are
 * never touched, whatever their age.
 */
@Injectable()
export class PurgeExpired {
  private lastChunkPurge = 0;

  constructor(
    private readonly messages: MessageRepository,
    private readonly interchanges: InterchangeRepository,
    @Inject(RETENTION_OPTIONS) private readonly options: RetentionOptions,
    @Optional() private readonly files?: PartnerFileRepository,
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
    let abandonedChunks = 0;
    if (this.files && now.getTime() - this.lastChunkPurge >= CHUNK_PURGE_EVERY_MS) {
      this.lastChunkPurge = now.getTime();
      abandonedChunks = await this.files.purgeAbandonedChunks(new Date(now.getTime() - ABANDONED_UPLOAD_MS));
    }
    return { messages, receipts, abandonedChunks };
  }
}
