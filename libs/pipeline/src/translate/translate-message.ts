import { DocumentOperation, MessageRepository, OperationRepository } from '@dockbridge/audit';
import { targetOf } from '@dockbridge/mapping';
import type { MessageQueues } from '../message-queues';
import { batchJobId, deliverJobId, QUEUES } from '../queues';
import { planDelivery } from './delivery-plan';
import { TRANSLATORS } from './translators';

export interface TranslateOptions {
  batchThreshold: number;
  batchSize: number;
}

const FINAL = new Set(['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate']);

/**
 * Turns a recorded message into operation rows and queues their delivery. Idempotent: a retried
 * translation finds the rows already stored and queues them again under the same job ids.
 */
export class TranslateMessage {
  constructor(
    private readonly messages: MessageRepository,
    private readonly operations: OperationRepository,
    private readonly queues: MessageQueues,
    private readonly options: TranslateOptions,
  ) {}

  async execute(messageId: string): Promise<'queued' | 'rejected' | 'skipped'> {
    const message = await this.messages.findById(messageId);
    if (!message || FINAL.has(message.status)) return 'skipped';
    if (message.status === 'received') await this.messages.transition(messageId, 'translating', 'worker');

    const translate = TRANSLATORS[message.contentType];
    const translation = translate ? translate(message.rawPayload) : { ok: false as const, reason: `no translator for content type ${message.contentType}` };
    if (!translation.ok) {
      await this.messages.transition(messageId, 'rejected', 'worker', translation.reason);
      return 'rejected';
    }
    const rows = await this.operations.addMany(
      messageId,
      translation.operations.map((op) => ({ kind: op.kind, organisationId: op.organisationId, targetId: targetOf(op), payload: op })),
    );
    await this.messages.transition(messageId, 'delivering', 'worker');
    await this.enqueueDelivery(messageId, rows);
    return 'queued';
  }

  /**
   * Queues delivery of a message's unsettled operations under their stable job ids. With `redrive`,
   * finished jobs whose operations never settled (lost with a Redis restart) are removed first, so
   * they can be queued again; live jobs are left alone (same id: BullMQ adds nothing).
   */
  async enqueueDelivery(messageId: string, rows: readonly DocumentOperation[], redrive = false): Promise<void> {
    const plan = planDelivery(messageId, rows, this.options.batchThreshold, this.options.batchSize);
    if (redrive) {
      for (const id of plan.single) await this.queues.removeFinished(QUEUES.deliver, deliverJobId(id));
      for (const batch of plan.batches) await this.queues.removeFinished(QUEUES.batch, batchJobId(batch.operationIds));
    }
    await this.queues.enqueueDeliveries(plan.single);
    for (const batch of plan.batches) await this.queues.enqueueBatch(batch);
  }
}
