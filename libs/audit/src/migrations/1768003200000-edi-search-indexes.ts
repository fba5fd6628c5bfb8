import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Engineers find EDI messages by what a carrier quotes: the file's name and the interchange
 * control number (ISA13). Both indexes are partial, on the messages that carry the fact (named
 * files; translated EDI), so a webhook's INSERT writes no entry to either. Translation records
 * `metadata.interchanges` from now on; messages translated before get theirs from the interchange
 * receipts (the accepted interchanges: a refused one left no receipt).
 */
export class EdiSearchIndexes1768003200000 implements MigrationInterface {
  name = 'EdiSearchIndexes1768003200000';

  async up(db: QueryRunner): Promise<void> {
    // interchange_key is ISA05/ISA06/ISA13; the sender id itself may hold a slash.
    await db.query(`
      UPDATE message m SET metadata = m.metadata || jsonb_build_object('interchanges', r.interchanges)
        FROM (SELECT message_id,
                     jsonb_agg(jsonb_build_object(
                       'sender', regexp_replace(interchange_key, '^[^/]*/(.*)/[^/]*$', '\\1'),
                       'control', regexp_replace(interchange_key, '^.*/', ''),
                       'refused', false) ORDER BY regexp_replace(interchange_key, '^.*/', '')) AS interchanges
                FROM interchange_receipt GROUP BY message_id) r
       WHERE m.id = r.message_id AND NOT m.metadata ? 'interchanges'`);
    await db.query(
      `CREATE INDEX message_file_name_idx ON message ((metadata->>'fileName')) WHERE metadata ? 'fileName'`,
    );
    await db.query(
      `CREATE INDEX message_interchanges_idx ON message USING gin ((metadata->'interchanges') jsonb_path_ops) WHERE metadata ? 'interchanges'`,
    );
  }

  // The recorded interchanges stay: they are facts about the messages, and harmless without the index.
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX message_interchanges_idx`);
    await db.query(`DROP INDEX message_file_name_idx`);
  }
}
