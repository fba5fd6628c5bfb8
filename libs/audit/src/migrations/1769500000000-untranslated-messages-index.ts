import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gate holds a partner's writes back while a message it sent before them is not translated yet
 * (`behindUntranslated` in operation.repository.ts), asking on every delivery: the messages still
 * waiting for translation are few at any time, so a partial index keeps the question a probe.
 */
export class UntranslatedMessagesIndex1769500000000 implements MigrationInterface {
  name = 'UntranslatedMessagesIndex1769500000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX message_untranslated_idx ON message (partner_id, arrival)
        WHERE status IN ('received', 'translating') AND channel <> 'export'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX IF EXISTS message_untranslated_idx`);
  }
}
