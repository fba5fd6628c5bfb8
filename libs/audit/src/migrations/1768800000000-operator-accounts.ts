import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Named operator tokens with a role, and the activity log of what operators changed. A token is
 * stored as its SHA-256 (it is 32 random bytes, so a fast hash is enough and the unique index finds
 * it); one active token per name, so a name in the log means one person. The log is append-only and
 * read newest first (ids are UUIDv7), or by target.
 */
export class OperatorAccounts1768800000000 implements MigrationInterface {
  name = 'OperatorAccounts1768800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE operator_token (
        id uuid NOT NULL,
        name text NOT NULL,
        role text NOT NULL,
        token_hash text NOT NULL,
        token_prefix text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        CONSTRAINT operator_token_pkey PRIMARY KEY (id),
        CONSTRAINT operator_token_role_check CHECK (role IN ('viewer', 'operator', 'admin'))
      )`);
    await db.query(`CREATE UNIQUE INDEX operator_token_hash_key ON operator_token (token_hash)`);
    await db.query(
      `CREATE UNIQUE INDEX operator_token_active_name_key ON operator_token (name) WHERE revoked_at IS NULL`,
    );
    await db.query(`
      CREATE TABLE operator_activity (
        id uuid NOT NULL,
        at timestamptz NOT NULL DEFAULT now(),
        actor text NOT NULL,
        role text NOT NULL,
        action text NOT NULL,
        target text NOT NULL,
        summary text NOT NULL,
        CONSTRAINT operator_activity_pkey PRIMARY KEY (id)
      )`);
    await db.query(`CREATE INDEX operator_activity_target_idx ON operator_activity (target, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE operator_activity`);
    await db.query(`DROP TABLE operator_token`);
  }
}
