import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Claim and settlement update an operation row in place (HOT: no new index entries, the old version
 * pruned within its page) instead of writing a new version elsewhere with an entry in every index.
 * Two things stood in the way: `operation_status_idx`, since an update that changes an indexed
 * column is never HOT, and full pages, since a batch updates every row of a page at once. No query
 * looks operations up by status alone (they go by message, target or id); the dashboard's count of
 * errors has a partial index of its own on error_class, which only failures change. Half of each
 * new page is left free for the next versions of its rows.
 */
export class OperationUpdatesInPlace1769000000000 implements MigrationInterface {
  name = 'OperationUpdatesInPlace1769000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX IF EXISTS operation_status_idx`);
    await db.query(`CREATE INDEX operation_error_class_idx ON operation (error_class) WHERE error_class IS NOT NULL`);
    await db.query(`ALTER TABLE operation SET (fillfactor = 50)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation RESET (fillfactor)`);
    await db.query(`DROP INDEX IF EXISTS operation_error_class_idx`);
    await db.query(`CREATE INDEX operation_status_idx ON operation (status)`);
  }
}
