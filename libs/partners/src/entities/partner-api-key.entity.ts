import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { API_KEY_SOURCES, ApiKeySource } from '../partner.types';
import { PartnerEntity } from './partner.entity';

/**
 * An API key of a partner, stored as the SHA-256 of the whole key (never the key). Keys are 32
 * random bytes, so a fast unsalted hash is as strong as the key and lets a request find its key
 * through the unique index (see `hashApiKey`). Table `partner_api_key`.
 */
@Entity({ name: 'partner_api_key' })
@Index('partner_api_key_key_hash_idx', ['keyHash'], { unique: true })
@Index('partner_api_key_partner_id_idx', ['partnerId'])
@Check('partner_api_key_source_check', `source IN (${API_KEY_SOURCES.map((s) => `'${s}'`).join(', ')})`)
export class PartnerApiKeyEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'partner_api_key_pkey' })
  id: string;

  @Column({ name: 'partner_id', type: 'text' })
  partnerId: string;

  @ManyToOne(() => PartnerEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'partner_id', foreignKeyConstraintName: 'partner_api_key_partner_id_fkey' })
  partner?: PartnerEntity;

  /** The first 8 characters after `dbk_`, shown to operators; null when imported by hash alone. */
  @Column({ name: 'key_prefix', type: 'text', nullable: true })
  keyPrefix: string | null;

  /** Lowercase hex SHA-256 of the whole key. Never returned, never logged. */
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  @Column({ type: 'text' })
  label: string;

  /** `config`: declared in the partner's YAML (removed from the file = revoked on import); `api`: issued by an operator. */
  @Column({ type: 'text' })
  source: ApiKeySource;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /** Updated at most once a minute, not on every request. */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
