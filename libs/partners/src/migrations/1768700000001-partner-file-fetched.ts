import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `fetched_at`: when the partner first read the file over SFTP. "Did the carrier fetch its 997?"
 * is a read; many clients never remove what they fetched, so `removed_at` alone did not tell.
 */
export class PartnerFileFetched1768700000001 implements MigrationInterface {
  name = 'PartnerFileFetched1768700000001';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE partner_file ADD COLUMN fetched_at timestamptz`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE partner_file DROP COLUMN fetched_at`);
  }
}
