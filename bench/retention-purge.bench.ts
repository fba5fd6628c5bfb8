/**
 * Retention purge at scale: a fresh Postgres database with ROWS settled messages (one operation, one
 * attempt, one event each; one in 20 a replay of an earlier one), then `PurgeExpired`'s delete of
 * PURGE messages at a time, RUNS times; once more with `message_replay_of_idx` dropped, on a smaller
 * purge (without it each deleted row scans `message` for replays to unlink).
 *
 *   npm run build && node dist/bench/retention-purge.bench.js      (ROWS=1000000 PURGE=10000 RUNS=3 UNINDEXED_PURGE=100)
 */
import 'reflect-metadata';
import { createAuditDataSource, MessageRepository, runMigrations } from '@dockbridge/audit';
import { median } from './bench-documents';
import { createScratchDatabase } from './scratch-database';

const ROWS = Number(process.env.ROWS ?? 1_000_000);
const PURGE = Number(process.env.PURGE ?? 10_000);
const RUNS = Number(process.env.RUNS ?? 3);
const UNINDEXED_PURGE = Number(process.env.UNINDEXED_PURGE ?? 100);
async function main() {
  const database = await createScratchDatabase('dockbridge_bench_purge');
  const dataSource = await createAuditDataSource({ url: database.url, dataDir: '', migrationsRun: false }).initialize();
  try {
    await runMigrations(dataSource);
    const started = performance.now();
    // Settled long ago, oldest first; every 20th a replay of the message 10 before it.
    await dataSource.query(
      `
      INSERT INTO message (id, partner_id, channel, raw_payload, content_type, sha256, status, replay_of, received_at, updated_at, metadata)
      SELECT md5(n::text)::uuid, 'bench', CASE WHEN n % 20 = 0 THEN 'replay' ELSE 'api' END, '{"operations":[]}', 'application/json', md5(n::text), 'delivered',
             CASE WHEN n % 20 = 0 AND n > 10 THEN md5((n - 10)::text)::uuid END,
             now() - interval '400 days' + n * interval '1 millisecond', now() - interval '400 days' + n * interval '1 millisecond', '{}'
        FROM generate_series(1, $1) n`,
      [ROWS],
    );
    await dataSource.query(
      `INSERT INTO operation (id, message_id, seq, kind, status) SELECT md5('op' || n)::uuid, md5(n::text)::uuid, 1, 'document.upsert', 'delivered' FROM generate_series(1, $1) n`,
      [ROWS],
    );
    await dataSource.query(
      `INSERT INTO payload_block (message_id, first_seq, lines, encoding, body) SELECT md5(n::text)::uuid, 1, 1, 'json', '\\x7b7d' FROM generate_series(1, $1) n`,
      [ROWS],
    );
    await dataSource.query(
      `INSERT INTO attempt (id, operation_id, started_at, duration_ms, outcome) SELECT md5('at' || n)::uuid, md5('op' || n)::uuid, now(), 5, 'success' FROM generate_series(1, $1) n`,
      [ROWS],
    );
    await dataSource.query(
      `INSERT INTO message_event (id, message_id, to_status, actor) SELECT md5('ev' || n)::uuid, md5(n::text)::uuid, 'delivered', 'worker' FROM generate_series(1, $1) n`,
      [ROWS],
    );
    await dataSource.query('VACUUM ANALYZE');
    console.log(
      `retention purge: ${ROWS} settled messages (+ operations, attempts, events) loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const messages = new MessageRepository(dataSource);
    const cutoff = new Date(Date.now() - 90 * 86_400_000);
    const time = async (limit: number) => {
      const t = performance.now();
      const purged = await messages.purgeSettled(['delivered'], cutoff, limit);
      return { seconds: (performance.now() - t) / 1000, purged };
    };
    const indexed: number[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const { seconds, purged } = await time(PURGE);
      indexed.push(seconds);
      console.log(`  run ${run}: ${purged} messages purged in ${seconds.toFixed(2)} s (with message_replay_of_idx)`);
    }
    await dataSource.query('DROP INDEX message_replay_of_idx');
    const { seconds, purged } = await time(UNINDEXED_PURGE);
    console.log(
      `  without the index: ${purged} messages purged in ${seconds.toFixed(2)} s (${((seconds / purged) * 1000).toFixed(1)} ms a message)`,
    );
    console.log(
      `median with the index: ${median(indexed).toFixed(2)} s for ${PURGE} (${((median(indexed) / PURGE) * 1000).toFixed(2)} ms a message)`,
    );
  } finally {
    await dataSource.destroy();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
