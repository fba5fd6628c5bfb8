import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The detail of a message still being translated or delivered shows its operations counted by
 * status; counting a large one's rows read all of them (227,110 rows, 600 MB: about a second, up to
 * three under load). Each statement that inserts, updates or deletes operation rows now appends what
 * it changed, by message and status, to `operation_tally` (statement triggers over the transition
 * tables: append only, so concurrent deliveries of one message never wait on a shared counter), and
 * the detail sums a few rows instead. A message's tally is dropped when it settles: its counts are
 * then recorded on the message. Messages unsettled at upgrade are tallied from their rows here.
 */
export class OperationTally1769100000000 implements MigrationInterface {
  name = 'OperationTally1769100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE operation_tally (
        message_id uuid NOT NULL REFERENCES message (id) ON DELETE CASCADE,
        status text NOT NULL,
        n integer NOT NULL,
        attempts integer NOT NULL
      )`);
    await db.query(`CREATE INDEX operation_tally_message_id_idx ON operation_tally (message_id)`);
    // A delete cascaded from its message adds nothing (the message is gone, and its tally with it).
    await db.query(`
      CREATE FUNCTION operation_tally_append() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO operation_tally (message_id, status, n, attempts)
          SELECT message_id, status, count(*), sum(attempt_count) FROM new_rows GROUP BY 1, 2;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO operation_tally (message_id, status, n, attempts)
          SELECT message_id, status, sum(n), sum(attempts) FROM (
            SELECT message_id, status, 1 AS n, attempt_count AS attempts FROM new_rows
            UNION ALL
            SELECT message_id, status, -1, -attempt_count FROM old_rows
          ) changed GROUP BY 1, 2 HAVING sum(n) <> 0 OR sum(attempts) <> 0;
        ELSE
          INSERT INTO operation_tally (message_id, status, n, attempts)
          SELECT o.message_id, o.status, -count(*), -sum(o.attempt_count) FROM old_rows o
          WHERE EXISTS (SELECT 1 FROM message m WHERE m.id = o.message_id) GROUP BY 1, 2;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER operation_tally_insert AFTER INSERT ON operation
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION operation_tally_append()`);
    await db.query(`CREATE TRIGGER operation_tally_update AFTER UPDATE ON operation
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION operation_tally_append()`);
    await db.query(`CREATE TRIGGER operation_tally_delete AFTER DELETE ON operation
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION operation_tally_append()`);
    await db.query(`
      INSERT INTO operation_tally (message_id, status, n, attempts)
      SELECT o.message_id, o.status, count(*), sum(o.attempt_count)
      FROM operation o JOIN message m ON m.id = o.message_id
      WHERE m.status NOT IN ('delivered', 'partially_failed', 'failed', 'rejected', 'duplicate', 'superseded')
      GROUP BY 1, 2`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER IF EXISTS operation_tally_delete ON operation`);
    await db.query(`DROP TRIGGER IF EXISTS operation_tally_update ON operation`);
    await db.query(`DROP TRIGGER IF EXISTS operation_tally_insert ON operation`);
    await db.query(`DROP FUNCTION IF EXISTS operation_tally_append()`);
    await db.query(`DROP TABLE IF EXISTS operation_tally`);
  }
}
