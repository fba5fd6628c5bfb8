import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Actor, MessageStatus } from '../audit.types';
import { Message } from './message.entity';

/** One status change of a message, who made it and why; never updated. */
@Entity({ name: 'message_event' })
@Index('message_event_message_id_at_idx', ['messageId', 'at'])
export class MessageEvent {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'message_event_pkey' })
  id: string;

  @Column({ name: 'message_id', type: 'uuid' })
  messageId: string;

  /**
   * No foreign key: events are written only with their message row locked or by the statement that
   * inserts it, and retention deletes them with their message (the key's check cost every webhook).
   */
  @ManyToOne(() => Message, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'message_id' })
  message?: Message;

  /** Wall-clock time of the change (clock_timestamp(), so events in one transaction keep their order). */
  @Column({ type: 'timestamptz', default: () => 'clock_timestamp()' })
  at: Date;

  @Column({ name: 'from_status', type: 'text', nullable: true })
  fromStatus: MessageStatus | null;

  @Column({ name: 'to_status', type: 'text' })
  toStatus: MessageStatus;

  @Column({ type: 'text' })
  actor: Actor;

  @Column({ type: 'text', nullable: true })
  reason: string | null;
}
