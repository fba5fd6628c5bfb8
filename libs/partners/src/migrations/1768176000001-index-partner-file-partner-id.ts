import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every foreign key that deletes follow has an index: `partner_file_live_name_idx` is partial, so it does not cover the cascade from `partner`. */
export class IndexPartnerFilePartnerId1768176000001 implements MigrationInterface {
  name = 'IndexPartnerFilePartnerId1768176000001';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX partner_file_partner_id_idx ON partner_file (partner_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX partner_file_partner_id_idx`);
  }
}
