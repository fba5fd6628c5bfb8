import { MigrationInterface, QueryRunner } from 'typeorm';

/** An operation waiting for its next try says when (`next_attempt_at`), with the last error, so a message can show `retrying`. */
export class OperationRetryState1768262400000 implements MigrationInterface {
  name = 'OperationRetryState1768262400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation ADD COLUMN next_attempt_at timestamptz`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation DROP COLUMN next_attempt_at`);
  }
}
