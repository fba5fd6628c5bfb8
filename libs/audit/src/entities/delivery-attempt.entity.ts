import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ATTEMPT_OUTCOMES, AttemptOutcome } from '../audit.types';
import { oneOf } from './check';
import { DocumentOperation } from './document-operation.entity';

/** One call to the platform for an operation: recorded `in-flight` before the call, finished once after it. Table `attempt`. */
@Entity({ name: 'attempt' })
// Found by operation only: finishing an attempt changes no indexed column (CompactDeliveryKeys).
@Index('attempt_operation_id_idx', ['operationId'])
@Check('attempt_outcome_check', oneOf('outcome', ATTEMPT_OUTCOMES))
export class DeliveryAttempt {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'attempt_pkey' })
  id: string;

  @Column({ name: 'operation_id', type: 'uuid' })
  operationId: string;

  @ManyToOne(() => DocumentOperation, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'operation_id', foreignKeyConstraintName: 'attempt_operation_id_fkey' })
  operation?: DocumentOperation;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ name: 'http_status', type: 'integer', nullable: true })
  httpStatus: number | null;

  @Column({ type: 'text' })
  outcome: AttemptOutcome;

  /** The start of the error (platform reason, exception message), at most 2,000 characters. */
  @Column({ name: 'error_excerpt', type: 'text', nullable: true })
  errorExcerpt: string | null;

  /** Method, path and size of the request; never headers or tokens. */
  @Column({ name: 'request_summary', type: 'text', nullable: true })
  requestSummary: string | null;
}
