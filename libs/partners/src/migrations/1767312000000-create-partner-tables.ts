import { MigrationInterface, QueryRunner } from 'typeorm';

/** partner, partner_api_key. Plain Postgres that PGlite runs too (ids from randomUUID(), no extensions). */
export class CreatePartnerTables1767312000000 implements MigrationInterface {
  name = 'CreatePartnerTables1767312000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE partner (
        id                       text        NOT NULL,
        name                     text        NOT NULL,
        enabled                  boolean     NOT NULL DEFAULT true,
        location_organisation_id uuid        NOT NULL,
        platform_account         text,
        settings                 jsonb       NOT NULL,
        source                   text        NOT NULL,
        created_at               timestamptz NOT NULL DEFAULT now(),
        updated_at               timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT partner_pkey PRIMARY KEY (id),
        CONSTRAINT partner_id_check CHECK (id ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
        CONSTRAINT partner_source_check CHECK (source IN ('config', 'api'))
      )`);

    await db.query(`
      CREATE TABLE partner_api_key (
        id           uuid        NOT NULL,
        partner_id   text        NOT NULL,
        key_prefix   text,
        key_hash     char(64)    NOT NULL,
        label        text        NOT NULL,
        source       text        NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        expires_at   timestamptz,
        revoked_at   timestamptz,
        last_used_at timestamptz,
        CONSTRAINT partner_api_key_pkey PRIMARY KEY (id),
        CONSTRAINT partner_api_key_partner_id_fkey FOREIGN KEY (partner_id) REFERENCES partner (id) ON DELETE CASCADE,
        CONSTRAINT partner_api_key_source_check CHECK (source IN ('config', 'api'))
      )`);
    await db.query(`CREATE UNIQUE INDEX partner_api_key_key_hash_idx ON partner_api_key (key_hash)`);
    await db.query(`CREATE INDEX partner_api_key_partner_id_idx ON partner_api_key (partner_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE partner_api_key`);
    await db.query(`DROP TABLE partner`);
  }
}
