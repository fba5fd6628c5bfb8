import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Nothing looks messages up by payload hash (interchanges are deduplicated on their receipts, sender
 * + ISA13; webhooks on their idempotency key): the hash stays on the message for operators to
 * compare, and its index, an entry per message at ingest, goes.
 */
export class DropMessageSha256Index1767916800000 implements MigrationInterface {
  name = 'DropMessageSha256Index1767916800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX message_sha256_idx`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX message_sha256_idx ON message (sha256)`);
  }
}
