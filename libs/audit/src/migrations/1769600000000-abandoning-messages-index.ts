import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A message whose translation was given up is marked `abandoning` until what it left is cleaned
 * up (its receipts released, its stored operations ended); the sweeper finishes the cleanup of
 * those still marked (the database failed half-way). They are few at any time, among many failed
 * messages: a partial index keeps the sweeper's question a probe.
 */
export class AbandoningMessagesIndex1769600000000 implements MigrationInterface {
  name = 'AbandoningMessagesIndex1769600000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX message_abandoning_idx ON message (id) WHERE metadata ? 'abandoning'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX IF EXISTS message_abandoning_idx`);
  }
}
