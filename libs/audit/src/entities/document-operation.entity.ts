import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import {
  DELIVERY_ERROR_CLASSES,
  DeliveryErrorClass,
  JsonObject,
  OPERATION_STATUSES,
  OperationKind,
  OperationStatus,
} from '../audit.types';
import { oneOf } from './check';
import { Message } from './message.entity';

/** One platform call a message translates to (a document upsert, a booking status change...). Table `operation`. */
@Entity({ name: 'operation' })
@Index('operation_message_id_seq_idx', ['messageId', 'seq'], { unique: true })
// Hash indexes: only ever probed for equality, and a 4-byte hash of a long key (CompactDeliveryKeys).
@Index('operation_target_id_idx', ['targetId'], { type: 'hash' })
// No index on status: claims and settlements update rows in place (see OperationUpdatesInPlace).
@Index('operation_error_class_idx', ['errorClass'], { where: 'error_class IS NOT NULL' })
@Index('operation_order_key_idx', ['orderKey'], { where: 'order_key IS NOT NULL', type: 'hash' })
@Check('operation_status_check', oneOf('status', OPERATION_STATUSES))
@Check('operation_error_class_check', `error_class IS NULL OR ${oneOf('error_class', DELIVERY_ERROR_CLASSES)}`)
export class DocumentOperation {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'operation_pkey' })
  id: string;

  @Column({ name: 'message_id', type: 'uuid' })
  messageId: string;

  @ManyToOne(() => Message, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'message_id', foreignKeyConstraintName: 'operation_message_id_fkey' })
  message?: Message;

  /** Position in the message, from 1. */
  @Column({ type: 'integer' })
  seq: number;

  @Column({ type: 'text' })
  kind: OperationKind;

  /** The platform organisation (Core ID) the operation acts for. */
  @Column({ name: 'organisation_id', type: 'text', nullable: true })
  organisationId: string | null;

  /** The document id or booking id the operation writes. */
  @Column({ name: 'target_id', type: 'text', nullable: true })
  targetId: string | null;

  /**
   * The canonical operation. Not a column: payloads are stored by message in compressed blocks
   * (`payload_block`, libs/audit/src/payload-blocks.ts); the repositories fill it in.
   */
  payload: JsonObject;

  /** An upsert's reference options (payload.options): delivery batches only operations with the same. */
  @Column({ type: 'jsonb', nullable: true })
  options: JsonObject | null;

  /** Bytes of its part of a batch body: its document (upserts) or document id (deletes) as JSON. */
  @Column({ name: 'body_bytes', type: 'integer', default: 0 })
  bodyBytes: number;

  /** What its payload weighs parsed (parsedWeightOf): what delivering it takes of a worker's payload budget; null before it was measured. */
  @Column({ name: 'payload_weight', type: 'integer', nullable: true, select: false })
  payloadWeight?: number | null;

  /**
   * What the operation writes, for ordering: the MD5 (as a uuid) of its key (orderKeyOf, e.g.
   * `document|<organisation>|<id>`), compared for equality only; null when nothing is ordered (a new booking).
   */
  @Column({ name: 'order_key', type: 'uuid', nullable: true })
  orderKey: string | null;

  /** Its message's arrival (a replay's original's, unless forced): older writes reach the platform first. */
  @Column({ name: 'order_arrival', type: 'bigint', nullable: true, select: false })
  orderArrival?: string | null;

  /** A platform call for it is under way until then (a lease: a worker that dies lets it lapse). */
  @Column({ name: 'in_flight_until', type: 'timestamptz', nullable: true })
  inFlightUntil: Date | null;

  /** Whose lease it is: the batch chunk (named by its first operation) whose job claimed it; null: its own delivery job. */
  @Column({ name: 'claimed_by', type: 'uuid', nullable: true, select: false })
  claimedBy?: string | null;

  /** Waiting for its next try after a retryable failure (`lastError` says which): when that try is due. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  /** `superseded`: the newer operation whose delivery made this one moot. */
  @Column({ name: 'superseded_by', type: 'uuid', nullable: true })
  supersededBy: string | null;

  @Column({ type: 'text', default: 'pending' })
  status: OperationStatus;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'error_class', type: 'text', nullable: true })
  errorClass: DeliveryErrorClass | null;

  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
