import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a delivered document costs its rows and indexes, after its payload moved to payload_block:
 * - `order_key` (`document|<organisation>|<id>`, ~64 characters) is only ever compared for
 *   equality: the row keeps its MD5 as a uuid (16 bytes; computed by the INSERT), a quarter of a
 *   row whose pages are kept over half free for in-place updates.
 * - `operation_order_key_idx` and `operation_target_id_idx` are only ever probed for equality (the
 *   gate's peers of a write, the search by document id), and their keys are long and arrive in no
 *   order (`document|<organisation>|<id>`: ~184 bytes an entry in half-split b-tree pages). Hash
 *   indexes keep a 4-byte hash a row; ordering among peers is the gate's, by the rows it reads.
 * - An attempt is opened `in-flight` before the call and finished in place after it. The finish
 *   changed indexed columns (`started_at`, and `outcome` through `attempt_in_flight_idx`'s
 *   predicate), so each attempt had two entries in every index. Attempts are found by operation
 *   only (`attempt_operation_id_idx`); the few of one operation are sorted when read. Pages keep
 *   room for the finished versions, which are ~50% longer than the in-flight ones.
 */
export class CompactDeliveryKeys1769300000000 implements MigrationInterface {
  name = 'CompactDeliveryKeys1769300000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX operation_order_key_idx`);
    await db.query(`ALTER TABLE operation ALTER COLUMN order_key TYPE uuid USING md5(order_key)::uuid`);
    await db.query(
      `CREATE INDEX operation_order_key_idx ON operation USING hash (order_key) WHERE order_key IS NOT NULL`,
    );
    await db.query(`DROP INDEX operation_target_id_idx`);
    await db.query(`CREATE INDEX operation_target_id_idx ON operation USING hash (target_id)`);
    await db.query(`DROP INDEX attempt_in_flight_idx`);
    await db.query(`DROP INDEX attempt_operation_id_started_at_idx`);
    await db.query(`CREATE INDEX attempt_operation_id_idx ON attempt (operation_id)`);
    await db.query(`ALTER TABLE attempt SET (fillfactor = 35)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE attempt RESET (fillfactor)`);
    await db.query(`DROP INDEX attempt_operation_id_idx`);
    await db.query(`CREATE INDEX attempt_operation_id_started_at_idx ON attempt (operation_id, started_at)`);
    await db.query(`CREATE INDEX attempt_in_flight_idx ON attempt (operation_id) WHERE outcome = 'in-flight'`);
    await db.query(`DROP INDEX operation_target_id_idx`);
    await db.query(`CREATE INDEX operation_target_id_idx ON operation (target_id)`);
    await db.query(`DROP INDEX operation_order_key_idx`);
    // The keys themselves are gone: rows keep their digest as text (equal keys still compare equal).
    await db.query(`ALTER TABLE operation ALTER COLUMN order_key TYPE text`);
    await db.query(
      `CREATE INDEX operation_order_key_idx ON operation (order_key, order_arrival, seq) WHERE order_key IS NOT NULL`,
    );
  }
}
