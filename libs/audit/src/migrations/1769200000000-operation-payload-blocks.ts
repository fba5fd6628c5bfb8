import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operation payloads move out of the operation row into `payload_block`: the payloads of up to 100
 * consecutive operations of a message, one JSON text a line, compressed together by the writer
 * (libs/audit/src/payload-blocks.ts). A 100 MiB 856 stored ~1.3 KB of TOAST per document of 40
 * loads, one jsonb compressed alone; a block holds it in ~230 bytes. The operation row keeps what
 * delivery planning reads of its payload (`options`, and `body_bytes`: its document or id as JSON),
 * so claiming, settling and the tally's transition tables no longer carry documents.
 *
 * Rows written before keep their payload as a block of one line each (`json`: TOAST compresses it
 * as it did the jsonb). The way back (down) restores those; payloads written compressed since
 * cannot be inflated in SQL, so down refuses when there are any.
 */
export class OperationPayloadBlocks1769200000000 implements MigrationInterface {
  name = 'OperationPayloadBlocks1769200000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE payload_block (
        message_id uuid NOT NULL REFERENCES message (id) ON DELETE CASCADE,
        first_seq integer NOT NULL,
        lines integer NOT NULL CHECK (lines > 0),
        encoding text NOT NULL CHECK (encoding IN ('deflate', 'json')),
        body bytea NOT NULL,
        CONSTRAINT payload_block_pkey PRIMARY KEY (message_id, first_seq)
      )`);
    await db.query(`ALTER TABLE operation ADD COLUMN options jsonb, ADD COLUMN body_bytes integer NOT NULL DEFAULT 0`);
    await db.query(`
      INSERT INTO payload_block (message_id, first_seq, lines, encoding, body)
      SELECT message_id, seq, 1, 'json', convert_to(payload::text, 'UTF8') FROM operation`);
    await db.query(`
      UPDATE operation SET options = payload->'options',
        body_bytes = coalesce(octet_length(coalesce(payload->'document', payload->'documentId')::text), 0)`);
    await db.query(`ALTER TABLE operation DROP COLUMN payload`);
    // A claim's version is 8 bytes longer than the row it replaces (in_flight_until set): with ~20
    // rows of ~200 bytes a page, half of it free no longer took every claim in place.
    await db.query(`ALTER TABLE operation SET (fillfactor = 45)`);
  }

  async down(db: QueryRunner): Promise<void> {
    const [{ compressed }] = await db.query(
      `SELECT EXISTS (SELECT 1 FROM payload_block WHERE encoding <> 'json') AS compressed`,
    );
    if (compressed) {
      throw new Error('payload blocks written compressed cannot be moved back into operation rows by SQL');
    }
    await db.query(`ALTER TABLE operation ADD COLUMN payload jsonb`);
    await db.query(`
      UPDATE operation o SET payload = convert_from(b.body, 'UTF8')::jsonb
        FROM payload_block b WHERE b.message_id = o.message_id AND b.first_seq = o.seq AND b.lines = 1`);
    await db.query(`UPDATE operation SET payload = '{}'::jsonb WHERE payload IS NULL`);
    await db.query(`ALTER TABLE operation ALTER COLUMN payload SET NOT NULL`);
    await db.query(`ALTER TABLE operation DROP COLUMN options, DROP COLUMN body_bytes`);
    await db.query(`ALTER TABLE operation SET (fillfactor = 50)`);
    await db.query(`DROP TABLE payload_block`);
  }
}
