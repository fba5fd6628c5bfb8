import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { MESSAGE_STATUSES, MessageChannel, MessageStatus } from '../audit.types';
import { oneOf } from './check';
import type { MessageMetadata } from './message-metadata';

/** One thing a partner sent (an interchange, a webhook body), stored before it is acknowledged. */
@Entity({ name: 'message' })
@Index('message_status_received_at_idx', ['status', 'receivedAt'])
@Index('message_partner_id_received_at_idx', ['partnerId', 'receivedAt'])
@Index('message_received_at_idx', ['receivedAt'])
@Index('message_status_updated_at_idx', ['status', 'updatedAt'])
@Index('message_replay_of_idx', ['replayOf'], { where: 'replay_of IS NOT NULL' })
@Index('message_partner_id_idempotency_key_idx', ['partnerId', 'idempotencyKey'], {
  unique: true,
  where: 'idempotency_key IS NOT NULL',
})
// Expression indexes over metadata (EDI search; migration EdiSearchIndexes): TypeORM cannot describe them, so it leaves them alone.
@Index('message_file_name_idx', { synchronize: false })
@Index('message_interchanges_idx', { synchronize: false })
// Partial over a status list (migration UntranslatedMessagesIndex): Postgres rewrites its predicate, which TypeORM would then recreate.
@Index('message_untranslated_idx', { synchronize: false })
// Partial over a metadata key (migration AbandoningMessagesIndex): an expression TypeORM cannot describe.
@Index('message_abandoning_idx', { synchronize: false })
@Check('message_status_check', oneOf('status', MESSAGE_STATUSES))
export class Message {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'message_pkey' })
  id: string;

  @Column({ name: 'partner_id', type: 'text' })
  partnerId: string;

  /**
   * Unique per partner (e.g. a webhook id): a message repeating a key is not recorded again. Set by
   * the ingest INSERT; shown through `metadata.idempotencyKey`, not read into entities.
   */
  @Column({ name: 'idempotency_key', type: 'text', nullable: true, select: false, insert: false, update: false })
  idempotencyKey?: string | null;

  @Column({ type: 'text' })
  channel: MessageChannel;

  @Column({ name: 'raw_payload', type: 'text' })
  rawPayload: string;

  @Column({ name: 'content_type', type: 'text' })
  contentType: string;

  /** Hex SHA-256 of the raw payload (UTF-8). */
  @Column({ type: 'char', length: 64 })
  sha256: string;

  @Column({ type: 'text' })
  status: MessageStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  /** The message this one replays (edit-and-replay, replay with today's mapping). */
  @Column({ name: 'replay_of', type: 'uuid', nullable: true })
  replayOf: string | null;

  @ManyToOne(() => Message, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'replay_of', foreignKeyConstraintName: 'message_replay_of_fkey' })
  replayOfMessage?: Message;

  @Column({ name: 'received_at', type: 'timestamptz', default: () => 'now()' })
  receivedAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'jsonb' })
  metadata: MessageMetadata;

  /**
   * The order messages were recorded in (a sequence; the database assigns it). Changes to one
   * booking are delivered in this order. Not read into entities.
   */
  @Column({ type: 'bigint', generated: 'increment', select: false, insert: false, update: false })
  arrival?: string;
}

/** A message without its payload: what lists and searches return. */
export type MessageSummary = Omit<Message, 'rawPayload' | 'replayOfMessage' | 'arrival' | 'idempotencyKey'>;
