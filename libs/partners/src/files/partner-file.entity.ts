import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Message } from '@dockbridge/audit';
import { PartnerEntity } from '../entities/partner.entity';
import { PARTNER_FOLDERS, PartnerFolder } from './partner-file.types';

/**
 * A file of a partner's virtual SFTP file system (table `partner_file`): the bytes live here, not on
 * a disk, so every gateway replica serves every partner. A removed or replaced file keeps its row
 * with `removed_at` set; the name is unique among live files of a folder.
 */
@Entity({ name: 'partner_file' })
@Index('partner_file_live_name_idx', ['partnerId', 'folder', 'name'], { unique: true, where: 'removed_at IS NULL' })
@Index('partner_file_message_id_idx', ['messageId'])
@Index('partner_file_partner_id_idx', ['partnerId'])
@Check('partner_file_folder_check', `folder IN (${PARTNER_FOLDERS.map((f) => `'${f}'`).join(', ')})`)
@Check(
  'partner_file_name_check',
  `name <> '' AND name NOT IN ('.', '..') AND strpos(name, '/') = 0 AND char_length(name) <= 255`,
)
@Check('partner_file_size_check', `size >= 0`)
export class PartnerFileEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'partner_file_pkey' })
  id: string;

  @Column({ name: 'partner_id', type: 'text' })
  partnerId: string;

  @ManyToOne(() => PartnerEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'partner_id', foreignKeyConstraintName: 'partner_file_partner_id_fkey' })
  partner?: PartnerEntity;

  @Column({ type: 'text' })
  folder: PartnerFolder;

  /** A plain file name (no slashes). */
  @Column({ type: 'text' })
  name: string;

  /**
   * The bytes of a file written whole (997s, exports; uploads before chunks). Not selected unless
   * asked for. NULL for an upload stored as it arrived: its bytes are in `partner_file_chunk`.
   */
  @Column({ type: 'bytea', select: false, nullable: true })
  content: Buffer | null;

  @Column({ type: 'integer' })
  size: number;

  /** Lowercase hex SHA-256 of `content`. */
  @Column({ type: 'char', length: 64 })
  sha256: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** The message an inbound upload became / an outbound file belongs to (FK message, SET NULL). */
  @Column({ name: 'message_id', type: 'uuid', nullable: true })
  messageId: string | null;

  @ManyToOne(() => Message, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'message_id', foreignKeyConstraintName: 'partner_file_message_id_fkey' })
  message?: Message;

  /** `997`, `TA1`, `export`, ... for outbound files; null for uploads. */
  @Column({ type: 'text', nullable: true })
  kind: string | null;

  /** Set when the partner removed the file or it was replaced by a newer one of the same name. */
  @Column({ name: 'removed_at', type: 'timestamptz', nullable: true })
  removedAt: Date | null;

  /** When the partner first read it over SFTP (its 997 fetched, say); null until then. */
  @Column({ name: 'fetched_at', type: 'timestamptz', nullable: true })
  fetchedAt: Date | null;
}
