import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook signing secrets (several active per partner, for rotation) and versioned JSONata mappings. */
export class CreateWebhookTables1767571200000 implements MigrationInterface {
  name = 'CreateWebhookTables1767571200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE partner_webhook_secret (
        id          uuid        NOT NULL,
        partner_id  text        NOT NULL,
        label       text        NOT NULL,
        secret      text        NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        expires_at  timestamptz,
        revoked_at  timestamptz,
        CONSTRAINT partner_webhook_secret_pkey PRIMARY KEY (id),
        CONSTRAINT partner_webhook_secret_partner_id_fkey FOREIGN KEY (partner_id) REFERENCES partner (id) ON DELETE CASCADE
      )`);
    await db.query(`CREATE INDEX partner_webhook_secret_partner_id_idx ON partner_webhook_secret (partner_id)`);
    await db.query(`
      CREATE TABLE partner_mapping (
        partner_id  text        NOT NULL,
        version     int         NOT NULL,
        expression  text        NOT NULL,
        sha256      char(64)    NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT partner_mapping_pkey PRIMARY KEY (partner_id, version),
        CONSTRAINT partner_mapping_partner_id_fkey FOREIGN KEY (partner_id) REFERENCES partner (id) ON DELETE CASCADE
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE partner_mapping`);
    await db.query(`DROP TABLE partner_webhook_secret`);
  }
}
