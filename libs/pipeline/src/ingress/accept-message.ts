import { Logger } from '@nestjs/common';
import { JsonObject, MessageChannel, MessageRepository } from '@dockbridge/audit';
import type { MessageQueues } from '../message-queues';

export interface IncomingMessage {
  partnerId: string;
  channel: MessageChannel;
  rawPayload: string;
  contentType: string;
  metadata?: JsonObject;
}

export interface Accepted {
  messageId: string;
  /** False when Redis could not take the job: the message is safe in Postgres and the sweeper queues it. */
  queued: boolean;
}

/**
 * Durable before acknowledged: the message row (and its `received` event) is committed first, then
 * translation is queued. Only after this returns may ingress say "received".
 */
export class AcceptMessage {
  private readonly logger = new Logger('Ingress');

  constructor(
    private readonly messages: MessageRepository,
    private readonly queues: MessageQueues,
  ) {}

  async execute(incoming: IncomingMessage): Promise<Accepted> {
    const message = await this.messages.record({ ...incoming, actor: 'gateway' });
    const queued = await this.queues.tryEnqueueTranslate(message.id);
    if (!queued) this.logger.warn({ msg: 'message recorded but not queued (Redis unavailable); the sweeper will queue it', messageId: message.id, partnerId: incoming.partnerId });
    return { messageId: message.id, queued };
  }
}
