import { MigrationInterface, QueryRunner } from 'typeorm';

const MESSAGE_STATUSES = `'received', 'translating', 'delivering', 'delivered', 'partially_failed', 'failed', 'rejected', 'duplicate'`;
const OPERATION_STATUSES = `'pending', 'delivering', 'delivered', 'failed', 'skipped'`;

/**
 * Newest write wins per target: each operation knows what it writes (`order_key`: a document or a
 * vehicle of an organisation, or a booking) and when its message arrived (`order_arrival`: the
 * message's arrival, or its original's for a replay), so delivery can hold a newer write back
 * behind an older one still on its way, and mark an older write `superseded` (pointing at the
 * newer, `superseded_by`) instead of sending it after the newer one. `in_flight_until` is the lease
 * of a call under way.
 */
export class NewestWriteWins1768089600000 implements MigrationInterface {
  name = 'NewestWriteWins1768089600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE operation ADD COLUMN order_key text, ADD COLUMN order_arrival bigint, ADD COLUMN in_flight_until timestamptz, ADD COLUMN superseded_by uuid`,
    );
    await db.query(`
      UPDATE operation o SET
        order_key = CASE
          WHEN o.kind IN ('document.upsert', 'document.delete') THEN 'document|' || lower(o.organisation_id) || '|' || o.target_id
          WHEN o.kind = 'vehicle.update' THEN 'vehicle|' || lower(o.organisation_id) || '|' || o.target_id
          WHEN o.kind IN ('booking.status', 'booking.tasks') THEN 'booking|' || o.target_id
        END,
        order_arrival = m.arrival
      FROM message m WHERE m.id = o.message_id AND o.target_id IS NOT NULL AND NOT (o.payload ? 'refused')`);
    await db.query(
      `CREATE INDEX operation_order_key_idx ON operation (order_key, order_arrival, seq) WHERE order_key IS NOT NULL`,
    );
    await db.query(
      `ALTER TABLE operation DROP CONSTRAINT operation_status_check, ADD CONSTRAINT operation_status_check CHECK (status IN (${OPERATION_STATUSES}, 'superseded'))`,
    );
    await db.query(
      `ALTER TABLE message DROP CONSTRAINT message_status_check, ADD CONSTRAINT message_status_check CHECK (status IN (${MESSAGE_STATUSES}, 'superseded'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE operation SET status = 'skipped' WHERE status = 'superseded'`);
    await db.query(`UPDATE message SET status = 'delivered' WHERE status = 'superseded'`);
    await db.query(
      `ALTER TABLE message DROP CONSTRAINT message_status_check, ADD CONSTRAINT message_status_check CHECK (status IN (${MESSAGE_STATUSES}))`,
    );
    await db.query(
      `ALTER TABLE operation DROP CONSTRAINT operation_status_check, ADD CONSTRAINT operation_status_check CHECK (status IN (${OPERATION_STATUSES}))`,
    );
    await db.query(`DROP INDEX operation_order_key_idx`);
    await db.query(
      `ALTER TABLE operation DROP COLUMN order_key, DROP COLUMN order_arrival, DROP COLUMN in_flight_until, DROP COLUMN superseded_by`,
    );
  }
}
