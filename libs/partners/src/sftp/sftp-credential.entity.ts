import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { PartnerEntity } from '../entities/partner.entity';

/** The user names SFTP accounts may have (also a CHECK in the table). */
export const SFTP_USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * An SFTP account of a partner (table `partner_sftp_credential`): a user name, unique across all
 * partners, with a password (scrypt hash, never the password) and/or one OpenSSH public key.
 * Revocation is final: a revoked user name is not given out again.
 */
@Entity({ name: 'partner_sftp_credential' })
@Index('partner_sftp_credential_username_idx', ['username'], { unique: true })
@Index('partner_sftp_credential_partner_id_idx', ['partnerId'])
@Check('partner_sftp_credential_username_check', `username ~ '${SFTP_USERNAME_PATTERN.source}'`)
export class PartnerSftpCredentialEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'partner_sftp_credential_pkey' })
  id: string;

  @Column({ name: 'partner_id', type: 'text' })
  partnerId: string;

  @ManyToOne(() => PartnerEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'partner_id', foreignKeyConstraintName: 'partner_sftp_credential_partner_id_fkey' })
  partner?: PartnerEntity;

  @Column({ type: 'text' })
  username: string;

  /** `scrypt$N$r$p$salt$hash` (base64). Never returned, never logged. */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash: string | null;

  /** One OpenSSH public key line (`ssh-ed25519 AAAA... comment`). */
  @Column({ name: 'public_key', type: 'text', nullable: true })
  publicKey: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
