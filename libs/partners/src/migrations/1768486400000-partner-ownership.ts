import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who owns a partner: its file (`source` 'file', which was 'config') or the admin API ('api').
 * `source` used to say who wrote the profile last; it now says who may write it. Existing rows:
 * 'config' becomes 'file' (the row came from a file import, and the file keeps it); 'api' stays
 * 'api' — such a row was created through the API or edited through it since the last start (a
 * restart would have reverted that edit), so keeping it 'api' keeps the edit, and a file that still
 * names the partner is reported as a conflict at the next start instead of being applied.
 *
 * `file` is the file that owns the partner; `file_sha256` the hash of what was last applied from
 * it (the YAML and the mapping it points at): a restart with an unchanged file writes nothing.
 * NULL for rows imported before this migration. `conflict_file` / `conflict_at`: the file the last
 * import ignored because the API owns the partner.
 */
export class PartnerOwnership1768486400000 implements MigrationInterface {
  name = 'PartnerOwnership1768486400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE partner DROP CONSTRAINT partner_source_check`);
    await db.query(`UPDATE partner SET source = 'file' WHERE source = 'config'`);
    await db.query(`ALTER TABLE partner ADD CONSTRAINT partner_source_check CHECK (source IN ('file', 'api'))`);
    await db.query(`
      ALTER TABLE partner
        ADD COLUMN file          text,
        ADD COLUMN file_sha256   text,
        ADD COLUMN conflict_file text,
        ADD COLUMN conflict_at   timestamptz`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE partner DROP COLUMN file, DROP COLUMN file_sha256, DROP COLUMN conflict_file, DROP COLUMN conflict_at`,
    );
    await db.query(`ALTER TABLE partner DROP CONSTRAINT partner_source_check`);
    await db.query(`UPDATE partner SET source = 'config' WHERE source = 'file'`);
    await db.query(`ALTER TABLE partner ADD CONSTRAINT partner_source_check CHECK (source IN ('config', 'api'))`);
  }
}
