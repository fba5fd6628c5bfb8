import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The order messages were recorded in, as a number: received_at cannot tell it (the messages of one
 * group commit share a transaction's clock, and PGlite's clock counts milliseconds). Changes to one
 * booking are delivered in this order.
 */
export class MessageArrivalOrder1767744000000 implements MigrationInterface {
  name = 'MessageArrivalOrder1767744000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SEQUENCE message_arrival_seq`);
    await db.query(`ALTER TABLE message ADD COLUMN arrival bigint`);
    await db.query(
      `UPDATE message m SET arrival = o.n FROM (SELECT id, row_number() OVER (ORDER BY received_at, id) AS n FROM message) o WHERE m.id = o.id`,
    );
    await db.query(`SELECT setval('message_arrival_seq', coalesce((SELECT max(arrival) FROM message), 0) + 1, false)`);
    await db.query(
      `ALTER TABLE message ALTER COLUMN arrival SET DEFAULT nextval('message_arrival_seq'), ALTER COLUMN arrival SET NOT NULL`,
    );
    await db.query(`ALTER SEQUENCE message_arrival_seq OWNED BY message.arrival`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE message DROP COLUMN arrival`);
    await db.query(`DROP SEQUENCE IF EXISTS message_arrival_seq`);
  }
}
