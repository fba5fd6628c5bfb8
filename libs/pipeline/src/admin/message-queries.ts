import { Injectable } from '@nestjs/common';
import {
  MessageFilter,
  MessageRepository,
  MessageSearch,
  MessageStatus,
  OperationPage,
  ReplayRunRepository,
} from '@dockbridge/audit';
import { PartnerFileRepository } from '@dockbridge/partners';
import { MessagePayloads } from '../translate/message-payloads';
import {
  MessageDetailView,
  messageDetailView,
  MessagePageView,
  messageSummaryView,
  PartnerMessageStatusView,
  partnerMessageStatusView,
  ReplayRunView,
  replayRunView,
} from './views';

/**
 * Bytes of the payload shown with a message's detail; the rest is downloaded (`payload`). A view,
 * not a copy: a MiB here was ~6 MB of large strings per detail (hex, bytes, text, JSON) that the
 * gateway's heap kept until a full collection.
 */
export const DETAIL_PAYLOAD_BYTES = 256 * 1024;
/** Files listed with a message (the first, oldest first): a file of many interchanges has a 997 for each. */
export const DETAIL_FILES = 100;

/** What operators and partners read about messages and replay runs, as the APIs answer it. */
@Injectable()
export class MessageQueries {
  constructor(
    private readonly messages: MessageRepository,
    private readonly files: PartnerFileRepository,
    private readonly runs: ReplayRunRepository,
    private readonly payloads: MessagePayloads,
  ) {}

  /** How many messages match the filter (its status left out), by status. */
  countByStatus(filter: MessageFilter): Promise<Record<MessageStatus, number>> {
    return this.messages.countByStatus(filter);
  }

  async search(query: MessageSearch): Promise<MessagePageView> {
    const page = await this.messages.search(query);
    return { items: page.items.map(messageSummaryView), nextCursor: page.nextCursor };
  }

  /** A message with its payload, operations and attempts, events, files and replays; null when there is none. */
  async detail(id: string, page?: OperationPage): Promise<MessageDetailView | null> {
    const [detail, files, replays] = await Promise.all([
      this.messages.findDetail(id, page),
      this.files.listByMessage(id, DETAIL_FILES),
      this.messages.replaysOf(id),
    ]);
    if (!detail) {
      return null;
    }
    const head = await this.payloads.head(detail.message, DETAIL_PAYLOAD_BYTES);
    const payload = { rawPayload: head.text, payloadBytes: head.bytes, payloadTruncated: head.truncated };
    return messageDetailView(detail, payload, files, replays);
  }

  /** A message's payload as received, a slice at a time; null when there is no such message. */
  async payload(id: string): Promise<{ contentType: string; bytes: number; slices: AsyncIterable<Buffer> } | null> {
    const message = await this.messages.findById(id);
    if (!message) {
      return null;
    }
    const bytes = message.metadata?.payloadFile ? (message.metadata.size ?? 0) : Buffer.byteLength(message.rawPayload);
    return { contentType: message.contentType, bytes, slices: this.payloads.bytes(message) };
  }

  /** A partner's own message; null for another partner's, so that its existence is not revealed. */
  async ofPartner(partnerId: string, id: string, page?: OperationPage): Promise<PartnerMessageStatusView | null> {
    // Only the partner's own message is read, and of it only what its status shows.
    const detail = await this.messages.findDetail(id, page, { partnerId, statusOnly: true });
    return detail && partnerMessageStatusView(detail);
  }

  async replayRuns(limit: number): Promise<ReplayRunView[]> {
    return (await this.runs.list(limit)).map(replayRunView);
  }

  async replayRun(id: string): Promise<ReplayRunView | null> {
    const run = await this.runs.findById(id);
    return run && replayRunView(run);
  }
}
