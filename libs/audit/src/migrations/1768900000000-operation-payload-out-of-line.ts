import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An operation row is written once and updated two or three times on its way to `delivered` (claim,
 * settle); every update writes a new version of the row. With its payload compressed inline (a
 * document of 40 loads: ~1.1 KB), each version copied the payload too. A row over Postgres' TOAST
 * threshold (~2 KB before compression) now has its long values moved to its TOAST table until it is
 * under 128 bytes, and an update that leaves them alone does not copy them: the versions cost
 * their ~200 bytes of columns. Smaller rows (a document of a few loads) are not toasted at all and
 * stay inline, as before. Rows written before keep their layout.
 */
export class OperationPayloadOutOfLine1768900000000 implements MigrationInterface {
  name = 'OperationPayloadOutOfLine1768900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation SET (toast_tuple_target = 128)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation RESET (toast_tuple_target)`);
  }
}
