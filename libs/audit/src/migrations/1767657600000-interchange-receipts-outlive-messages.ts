import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Duplicate detection must not depend on how long messages are kept: an interchange receipt stays
 * after its message is purged (retention), until it is older than any partner's duplicate window.
 */
export class InterchangeReceiptsOutliveMessages1767657600000 implements MigrationInterface {
  name = 'InterchangeReceiptsOutliveMessages1767657600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE interchange_receipt DROP CONSTRAINT interchange_receipt_message_id_fkey`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DELETE FROM interchange_receipt r WHERE NOT EXISTS (SELECT 1 FROM message m WHERE m.id = r.message_id)`,
    );
    await db.query(
      `ALTER TABLE interchange_receipt ADD CONSTRAINT interchange_receipt_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE CASCADE`,
    );
  }
}
