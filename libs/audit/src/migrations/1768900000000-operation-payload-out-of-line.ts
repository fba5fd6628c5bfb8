import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An operation row is written once and updated two or three times on its way to `delivered` (claim,
 * settle); every update writes a new version of the row. With its payload compressed inline (a
 * document of 40 loads: ~1.1 KB), each version copied the payload too. Past 128 bytes a row's long
 * values now go to its TOAST table, which an update that leaves them alone does not copy: the
 * versions cost their ~200 bytes of columns instead. Rows written before keep their layout.
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
