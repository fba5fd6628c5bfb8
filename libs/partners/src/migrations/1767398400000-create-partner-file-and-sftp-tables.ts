import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * partner_file (the partners' virtual SFTP file system) and partner_sftp_credential. Plain Postgres
 * that PGlite runs too (ids from randomUUID(), no extensions).
 */
export class CreatePartnerFileAndSftpTables1767398400000 implements MigrationInterface {
  name = 'CreatePartnerFileAndSftpTables1767398400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE partner_file (
        id          uuid        NOT NULL,
        partner_id  text        NOT NULL,
        folder      text        NOT NULL,
        name        text        NOT NULL,
        content     bytea       NOT NULL,
        size        integer     NOT NULL,
        sha256      char(64)    NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        message_id  uuid,
        kind        text,
        removed_at  timestamptz,
        CONSTRAINT partner_file_pkey PRIMARY KEY (id),
        CONSTRAINT partner_file_partner_id_fkey FOREIGN KEY (partner_id) REFERENCES partner (id) ON DELETE CASCADE,
        CONSTRAINT partner_file_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE SET NULL,
        CONSTRAINT partner_file_folder_check CHECK (folder IN ('inbound', 'outbound')),
        CONSTRAINT partner_file_name_check CHECK (name <> '' AND name NOT IN ('.', '..') AND strpos(name, '/') = 0 AND char_length(name) <= 255),
        CONSTRAINT partner_file_size_check CHECK (size >= 0)
      )`);
    await db.query(
      `CREATE UNIQUE INDEX partner_file_live_name_idx ON partner_file (partner_id, folder, name) WHERE removed_at IS NULL`,
    );
    await db.query(`CREATE INDEX partner_file_message_id_idx ON partner_file (message_id)`);

    await db.query(`
      CREATE TABLE partner_sftp_credential (
        id            uuid        NOT NULL,
        partner_id    text        NOT NULL,
        username      text        NOT NULL,
        password_hash text,
        public_key    text,
        created_at    timestamptz NOT NULL DEFAULT now(),
        revoked_at    timestamptz,
        CONSTRAINT partner_sftp_credential_pkey PRIMARY KEY (id),
        CONSTRAINT partner_sftp_credential_partner_id_fkey FOREIGN KEY (partner_id) REFERENCES partner (id) ON DELETE CASCADE,
        CONSTRAINT partner_sftp_credential_username_check CHECK (username ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$')
      )`);
    await db.query(`CREATE UNIQUE INDEX partner_sftp_credential_username_idx ON partner_sftp_credential (username)`);
    await db.query(`CREATE INDEX partner_sftp_credential_partner_id_idx ON partner_sftp_credential (partner_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE partner_sftp_credential`);
    await db.query(`DROP TABLE partner_file`);
  }
}
