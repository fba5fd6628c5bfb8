import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an operation's payload weighs parsed (parsedWeightOf of its stored line), measured when it
 * is written: a worker takes that much of its payload budget before it claims and parses the
 * payload, so that neither a claim nor the payload's text is held while it waits. Null for rows
 * written before (they are weighed as nothing, as they were). No default: adding it rewrites nothing.
 */
export class OperationPayloadWeight1769700000000 implements MigrationInterface {
  name = 'OperationPayloadWeight1769700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation ADD COLUMN payload_weight integer`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE operation DROP COLUMN IF EXISTS payload_weight`);
  }
}
