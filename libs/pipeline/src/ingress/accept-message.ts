import { Logger } from '@nestjs/common';
import { JsonObject, MessageChannel, MessageRepository } from '@dockbridge/audit';
import type { MessageQueues } from '../message-queues';
import { GroupCommit } from './group-commit';

export interface IncomingMessage {
  partnerId: string;
  channel: MessageChannel;
  rawPayload: string;
  contentType: string;
  metadata?: JsonObject;
  /** Unique per partner (e.g. a webhook id): a message with a key seen before is not recorded again. */
  idempotencyKey?: string;
}

export interface Accepted {
  messageId: string;
  /** True when the idempotency key was seen before: `messageId` is the earlier message, nothing was recorded or queued. */
  existing: boolean;
  /** False when Redis could not take the job: the message is safe in Postgres and the sweeper queues it. */
  queued: boolean;
}

/** Group commit limits: rows per INSERT, payload bytes per INSERT, INSERTs at once (of the pool's connections). */
const MAX_BATCH = 256;
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
const MAX_IN_FLIGHT = 4;

/**
 * Durable before acknowledged: the message row (and its `received` event) is committed first, then
 * translation is queued. Only after this returns may ingress say "received". Concurrent messages
 * share commits and one `addBulk` (group commit): under load, one WAL flush and one Redis round
 * trip serve hundreds of requests instead of one each.
 */
export class AcceptMessage {
  private readonly logger = new Logger('Ingress');
  private readonly commits: GroupCommit<IncomingMessage, Accepted>;

  constructor(
    private readonly messages: MessageRepository,
    private readonly queues: MessageQueues,
  ) {
    this.commits = new GroupCommit((batch) => this.commit(batch), {
      maxBatch: MAX_BATCH,
      maxWeight: MAX_BATCH_BYTES,
      weigh: (incoming) => incoming.rawPayload.length,
      maxInFlight: MAX_IN_FLIGHT,
    });
  }

  async execute(incoming: IncomingMessage): Promise<Accepted> {
    // Checked here, not in the shared commit, so a bad payload fails only its own caller.
    if (incoming.rawPayload.includes('\u0000')) throw new RangeError('The payload contains a NUL character, which the audit store cannot hold as text');
    return this.commits.submit(incoming);
  }

  /** Waits for the messages being committed (shutdown). */
  drain(): Promise<void> {
    return this.commits.drain();
  }

  private async commit(batch: IncomingMessage[]): Promise<Accepted[]> {
    const recorded = await this.messages.recordMany(
      batch.map(({ idempotencyKey, ...message }) => ({ message: { ...message, actor: 'gateway' as const }, idempotencyKey })),
    );
    const fresh = recorded.filter((r) => !r.existing).map((r) => r.id);
    const queued = await this.queues.tryEnqueueTranslate(...fresh);
    if (!queued) this.logger.warn({ msg: 'messages recorded but not queued (Redis unavailable); the sweeper will queue them', messageIds: fresh });
    return recorded.map((r) => ({ messageId: r.id, existing: r.existing, queued: !r.existing && queued }));
  }
}
