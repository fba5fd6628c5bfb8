import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploads are stored as they arrive, in chunks of FILE_CHUNK_BYTES (`partner_file_chunk`), so the
 * gateway never holds a whole file; `partner_file.content` stays for small files written whole
 * (997s, TA1s, exports) and for files stored before this migration, and is NULL for chunked ones.
 * Chunks are written before their file row exists (the row appears when the upload completes), so
 * they cannot reference it: a trigger removes a file's chunks with its row, and chunks no row ever
 * claimed (an upload cut off) are purged by age.
 */
export class PartnerFileChunks1768700000000 implements MigrationInterface {
  name = 'PartnerFileChunks1768700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE partner_file_chunk (
        file_id     uuid        NOT NULL,
        seq         integer     NOT NULL,
        data        bytea       NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT partner_file_chunk_pkey PRIMARY KEY (file_id, seq),
        CONSTRAINT partner_file_chunk_seq_check CHECK (seq >= 0)
      )`);
    await db.query(`ALTER TABLE partner_file ALTER COLUMN content DROP NOT NULL`);
    await db.query(`
      CREATE FUNCTION partner_file_chunks_go() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM partner_file_chunk WHERE file_id = OLD.id;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER partner_file_chunks_go AFTER DELETE ON partner_file
        FOR EACH ROW EXECUTE FUNCTION partner_file_chunks_go()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER partner_file_chunks_go ON partner_file`);
    await db.query(`DROP FUNCTION partner_file_chunks_go()`);
    await db.query(`DROP TABLE partner_file_chunk`);
  }
}
