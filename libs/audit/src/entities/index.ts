import { DeliveryAttempt } from './delivery-attempt.entity';
import { DocumentOperation } from './document-operation.entity';
import { MessageEvent } from './message-event.entity';
import { Message } from './message.entity';
import { ReplayRun } from './replay-run.entity';

export * from './delivery-attempt.entity';
export * from './document-operation.entity';
export * from './message-event.entity';
export * from './message-metadata';
export * from './message.entity';
export * from './replay-run.entity';

export const AUDIT_ENTITIES = [Message, DocumentOperation, DeliveryAttempt, MessageEvent, ReplayRun];
