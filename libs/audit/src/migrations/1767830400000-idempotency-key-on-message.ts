import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ingress writes one row per message: the idempotency key moves from its own table onto the message
 * (a partial unique index claims it in the same INSERT), and the events' foreign key goes (the
 * repository writes events only with their message row locked or in the statement that inserts
 * it; retention deletes them with their message). Each cost a trigger or an insert per webhook.
 */
export class IdempotencyKeyOnMessage1767830400000 implements MigrationInterface {
  name = 'IdempotencyKeyOnMessage1767830400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE message ADD COLUMN idempotency_key text`);
    await db.query(
      `UPDATE message m SET idempotency_key = r.idempotency_key FROM webhook_receipt r WHERE r.message_id = m.id`,
    );
    await db.query(
      `CREATE UNIQUE INDEX message_partner_id_idempotency_key_idx ON message (partner_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await db.query(`DROP TABLE webhook_receipt`);
    await db.query(`ALTER TABLE message_event DROP CONSTRAINT message_event_message_id_fkey`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM message_event e WHERE NOT EXISTS (SELECT 1 FROM message m WHERE m.id = e.message_id)`);
    await db.query(
      `ALTER TABLE message_event ADD CONSTRAINT message_event_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE CASCADE`,
    );
    await db.query(`
      CREATE TABLE webhook_receipt (
        partner_id text NOT NULL,
        idempotency_key text NOT NULL,
        message_id uuid NOT NULL,
        CONSTRAINT webhook_receipt_pkey PRIMARY KEY (partner_id, idempotency_key),
        CONSTRAINT webhook_receipt_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE CASCADE
      )`);
    await db.query(
      `INSERT INTO webhook_receipt SELECT partner_id, idempotency_key, id FROM message WHERE idempotency_key IS NOT NULL`,
    );
    await db.query(`ALTER TABLE message DROP COLUMN idempotency_key`);
  }
}
