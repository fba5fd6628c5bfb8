import { MigrationInterface, QueryRunner } from 'typeorm';

/** Interchanges received per partner (duplicate detection), the control numbers of our acknowledgments, webhook idempotency keys. */
export class CreateInterchangeReceipts1767484800000 implements MigrationInterface {
  name = 'CreateInterchangeReceipts1767484800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE interchange_receipt (
        partner_id      text        NOT NULL,
        interchange_key text        NOT NULL,
        message_id      uuid        NOT NULL,
        received_at     timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT interchange_receipt_pkey PRIMARY KEY (partner_id, interchange_key, message_id),
        CONSTRAINT interchange_receipt_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE CASCADE
      )`);
    await db.query(`CREATE INDEX interchange_receipt_message_id_idx ON interchange_receipt (message_id)`);
    await db.query(`CREATE SEQUENCE acknowledgment_control_number MINVALUE 1 MAXVALUE 999999999 CYCLE`);
    // Webhook idempotency: one message per partner and key; the key's row is the claim.
    await db.query(`
      CREATE TABLE webhook_receipt (
        partner_id      text NOT NULL,
        idempotency_key text NOT NULL,
        message_id      uuid NOT NULL,
        CONSTRAINT webhook_receipt_pkey PRIMARY KEY (partner_id, idempotency_key),
        CONSTRAINT webhook_receipt_message_id_fkey FOREIGN KEY (message_id) REFERENCES message (id) ON DELETE CASCADE
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_receipt`);
    await db.query(`DROP SEQUENCE acknowledgment_control_number`);
    await db.query(`DROP TABLE interchange_receipt`);
  }
}
