/**
 * Sweeper recovery rate: MESSAGES messages recorded with no job anywhere (what a Redis restarted
 * empty leaves), then one `SweepStuck.execute` queues them again; messages a second, RUNS times.
 * The gateway role in this process without workers (nothing consumes the jobs), a fresh Postgres
 * database, Redis under a private prefix (deleted at the end).
 *
 *   npm run build && node dist/bench/sweep-recovery.bench.js      (MESSAGES=10000 RUNS=3)
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { createGatewayApp } from '../apps/gateway/src/gateway.app';
import { MessageRepository } from '@dockbridge/audit';
import { loadConfig } from '@dockbridge/config';
import { SweepStuck } from '@dockbridge/pipeline';
import { median } from './bench-documents';
import { createScratchDatabase } from './scratch-database';

const MESSAGES = Number(process.env.MESSAGES ?? 10_000);
const RUNS = Number(process.env.RUNS ?? 3);
async function main() {
  const database = await createScratchDatabase('dockbridge_bench_sweep');
  const prefix = `{dbbench-${randomBytes(4).toString('hex')}}`;
  const config = loadConfig({
    env: {},
    dir: '/nonexistent',
    overrides: {
      'database.url': database.url,
      'redis.prefix': prefix,
      'gateway.partnersDir': '/nonexistent',
      'sftp.enabled': false,
      'secrets.keyPath': join(tmpdir(), 'dockbridge-bench-secrets.key'),
      'log.level': 'warn',
    },
  });
  const app = await createGatewayApp({ config, withWorker: false });
  await app.init();
  const redis = new IORedis(config.redis.url);
  try {
    const messages = app.get(MessageRepository);
    const sweep = app.get(SweepStuck);
    const rates: number[] = [];
    console.log(`sweep recovery: ${MESSAGES} messages with no job, one sweep each run, ${RUNS} runs`);
    for (let run = 1; run <= RUNS; run++) {
      for (let i = 0; i < MESSAGES; i += 256) {
        const batch = Array.from({ length: Math.min(256, MESSAGES - i) }, (_, n) => ({
          message: {
            partnerId: 'bench',
            channel: 'api' as const,
            contentType: 'application/x-lost',
            rawPayload: `{"run":${run},"n":${i + n}}`,
            metadata: { ingressJob: `ingress-lost-${run}-${i + n}` },
          },
        }));
        await messages.recordMany(batch);
      }
      const started = performance.now();
      const report = await sweep.execute(new Date(Date.now() + 3_600_000));
      const seconds = (performance.now() - started) / 1000;
      rates.push(report.translations / seconds);
      console.log(
        `  run ${run}: ${report.translations} messages queued again in ${seconds.toFixed(2)} s, ${(report.translations / seconds).toFixed(0)} messages/s`,
      );
      // The next run's messages are new; these stay queued (no worker), and are live from now on.
    }
    console.log(`median: ${median(rates).toFixed(0)} messages/s`);
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    for (let i = 0; i < keys.length; i += 1000) {
      await redis.del(...keys.slice(i, i + 1000));
    }
    redis.disconnect();
    await app.close();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
