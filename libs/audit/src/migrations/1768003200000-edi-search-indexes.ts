import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Engineers find EDI messages by what a carrier quotes: the uploaded file's name and the
 * interchange control number (ISA13). Both indexes are partial, on the messages that carry the
 * fact (SFTP uploads; translated EDI), so a webhook's INSERT writes no entry to either.
 */
export class EdiSearchIndexes1768003200000 implements MigrationInterface {
  name = 'EdiSearchIndexes1768003200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX message_file_name_idx ON message ((metadata->>'fileName')) WHERE metadata ? 'fileName'`);
    await db.query(`CREATE INDEX message_interchanges_idx ON message USING gin ((metadata->'interchanges') jsonb_path_ops) WHERE metadata ? 'interchanges'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX message_interchanges_idx`);
    await db.query(`DROP INDEX message_file_name_idx`);
  }
}
