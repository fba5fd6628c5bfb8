import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A claim belongs to the job that made it: `claimed_by` names the batch chunk (its first
 * operation's id) whose job holds an operation's lease, null when the operation's own delivery job
 * holds it. While the lease runs, only the same job (its retry after a death) claims it again; a
 * write handed from a batch to single delivery, and later sent by a redriven batch, is thus never
 * sent by both at once. Claims made before it count as their operations' own jobs' (null): stop
 * the workers for this release, or let their leases lapse, before starting the new ones.
 */
export class OperationClaimedBy1769400000000 implements MigrationInterface {
  name = 'OperationClaimedBy1769400000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation ADD COLUMN claimed_by uuid`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation DROP COLUMN claimed_by`);
  }
}
