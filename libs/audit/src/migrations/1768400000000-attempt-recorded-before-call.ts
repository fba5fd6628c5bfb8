import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An attempt is recorded `in-flight` before its platform call and finished after it, so a worker
 * killed mid-call leaves a row (later marked `interrupted`) for every write the platform may have applied.
 */
export class AttemptRecordedBeforeCall1768400000000 implements MigrationInterface {
  name = 'AttemptRecordedBeforeCall1768400000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE attempt DROP CONSTRAINT attempt_outcome_check`);
    await db.query(
      `ALTER TABLE attempt ADD CONSTRAINT attempt_outcome_check CHECK (outcome IN ('success', 'retryable', 'permanent', 'auth', 'in-flight', 'interrupted'))`,
    );
    // Finding an operation's open attempt is a lookup, whatever its history (a partial index holds only open rows).
    await db.query(`CREATE INDEX attempt_in_flight_idx ON attempt (operation_id) WHERE outcome = 'in-flight'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX attempt_in_flight_idx`);
    await db.query(`UPDATE attempt SET outcome = 'retryable' WHERE outcome IN ('in-flight', 'interrupted')`);
    await db.query(`ALTER TABLE attempt DROP CONSTRAINT attempt_outcome_check`);
    await db.query(
      `ALTER TABLE attempt ADD CONSTRAINT attempt_outcome_check CHECK (outcome IN ('success', 'retryable', 'permanent', 'auth'))`,
    );
  }
}
