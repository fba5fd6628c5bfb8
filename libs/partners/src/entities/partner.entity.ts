import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { PARTNER_SOURCES, PartnerSettings, PartnerSource } from '../partner.types';

const oneOf = (column: string, values: readonly string[]): string =>
  `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;

/** The slug a partner id must match (also a CHECK in the table). */
export const PARTNER_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** A partner profile. Table `partner`. */
@Entity({ name: 'partner' })
@Check('partner_source_check', oneOf('source', PARTNER_SOURCES))
@Check('partner_id_check', `id ~ '${PARTNER_ID_PATTERN.source}'`)
export class PartnerEntity {
  /** Slug, e.g. `acme-wms`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'partner_pkey' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** The platform location (organisation uuid) this partner delivers to by default. */
  @Column({ name: 'location_organisation_id', type: 'uuid' })
  locationOrganisationId: string;

  /** Name of a platform account from the configuration; null = resolved from the location. */
  @Column({ name: 'platform_account', type: 'text', nullable: true })
  platformAccount: string | null;

  /** Delivery settings and, later, the `edi`, `webhook`, `sftp` and `directory` sections. No secrets. */
  @Column({ type: 'jsonb' })
  settings: PartnerSettings;

  /** Who owns the profile: 'file' (its partner file) or 'api' (the admin API). */
  @Column({ type: 'text' })
  source: PartnerSource;

  /** The partner file that owns it (source 'file'). */
  @Column({ type: 'text', nullable: true })
  file: string | null;

  /** SHA-256 of what was last applied from the file (its YAML and mapping); null before it was recorded. */
  @Column({ name: 'file_sha256', type: 'text', nullable: true })
  fileSha256: string | null;

  /** A file the last import ignored because the API owns the partner. */
  @Column({ name: 'conflict_file', type: 'text', nullable: true })
  conflictFile: string | null;

  @Column({ name: 'conflict_at', type: 'timestamptz', nullable: true })
  conflictAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
