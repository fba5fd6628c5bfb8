/**
 * Webhook ingest benchmark: `POST /v1/webhooks/{partner}` (Standard Webhooks verification + durable
 * write in Postgres + enqueue in Redis) against a bare Fastify hello-world, on this machine, in the
 * same run; and a NestJS hello-world on the same adapter (`bare-nest-server.ts`), to show the share
 * of the gap that is the framework's. Reports req/s and p99 latency of each at full load, their ratio, and the gateway's p99 at
 * a fixed 1,000 req/s. Workers are not running: this measures ingest only.
 *
 *   npm run bench:webhooks        (RUNS=3 SECONDS=10 CONNECTIONS=32,256;
 *                                  GATEWAY_NODE_ARGS='--max-semi-space-size=32 --cpu-prof' to profile the gateway)
 *
 * Needs Postgres (postgres://postgres@127.0.0.1:5432) and Redis (127.0.0.1:6379); creates and drops
 * its own database and Redis key prefix.
 */
import { ChildProcess, fork } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { median } from './bench-documents';

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 10);
/**
 * Concurrent connections of the full-load runs: a few clients, and many (webhooks from many
 * partners at once, where group commit shares each commit among more requests). Bare Fastify is
 * measured at each too. The fixed-rate run uses the first.
 */
const CONNECTIONS = (process.env.CONNECTIONS ?? '32,256').split(',').map(Number);
/**
 * Node flags of the gateway, as `npm run gateway` starts it: a 32 MiB young generation (the
 * default 16 MiB made the gateway spend ~25% more CPU per webhook, mostly scavenges).
 */
const GATEWAY_NODE_ARGS = (process.env.GATEWAY_NODE_ARGS ?? '--max-semi-space-size=32 --expose-gc')
  .split(' ')
  .filter(Boolean);
const ADMIN = `bench-admin-${randomBytes(8).toString('hex')}`;
const PG_ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';

const body = JSON.stringify({
  event: 'purchase_order.created',
  data: {
    poNumber: 'PO-1',
    supplier: { code: 'SUP-KETTLE' },
    carrierScac: 'FFRT',
    window: { from: '2026-12-01T06:00:00Z', to: '2026-12-03T18:00:00Z' },
    lines: [{ sku: 'SKU-100', description: 'Kettle chips 24x', qty: 12 }],
  },
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const children: ChildProcess[] = [];
function start(script: string, args: string[], env: NodeJS.ProcessEnv, execArgv: string[] = []): ChildProcess {
  const child = fork(join(__dirname, '..', script), args, {
    env: { ...process.env, ...env },
    execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  return child;
}
async function waitFor(url: string, seconds = 60) {
  for (let i = 0; i < seconds * 10; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${url} did not answer`);
}

/**
 * CPU seconds used so far by the processes of each role (Linux /proc; clock ticks of 10 ms), so a run
 * can say where the machine's two cores went: the gateway, Postgres (all its processes), Redis, and
 * this process (the load generator).
 */
function cpuSeconds(gatewayPid: number): Record<'gateway' | 'postgres' | 'redis' | 'loadgen', number> {
  const ticks = (pid: number | string) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return 0;
    }
  };
  const byName = (name: string) => {
    let total = 0;
    for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith(name)) {
          total += ticks(pid);
        }
      } catch {
        // the process ended meanwhile
      }
    }
    return total;
  };
  return {
    gateway: ticks(gatewayPid),
    postgres: byName('postgres'),
    redis: byName('redis-server'),
    loadgen: ticks(process.pid),
  };
}

function load(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) =>
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

async function main() {
  const dbName = `dockbridge_bench_wh_${randomBytes(4).toString('hex')}`;
  const prefix = `{benchwh-${randomBytes(4).toString('hex')}}`;
  const pg = new Client({ connectionString: PG_ADMIN });
  await pg.connect();
  await pg.query(`CREATE DATABASE ${dbName}`);
  const [barePort, nestPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  try {
    start('bench/bare-server.js', [String(barePort)], {});
    start('bench/bare-nest-server.js', [String(nestPort)], {});
    const gatewayProcess = start(
      'apps/gateway/src/main.js',
      [],
      {
        DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${dbName}`,
        REDIS_URL: 'redis://127.0.0.1:6379',
        REDIS_PREFIX: prefix,
        GATEWAY_PORT: String(gatewayPort),
        ADMIN_TOKEN: ADMIN,
        SFTP_ENABLED: 'off',
        LOG_LEVEL: 'warn',
        PARTNERS_DIR: '/nonexistent',
        PLATFORM_BASE_URL: 'http://127.0.0.1:9',
      },
      GATEWAY_NODE_ARGS,
    );
    const bare = `http://127.0.0.1:${barePort}`;
    const nest = `http://127.0.0.1:${nestPort}`;
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    await waitFor(`${bare}/`);
    await waitFor(`${nest}/`);
    await waitFor(`${gateway}/health`);

    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    await fetch(`${gateway}/v1/admin/partners/bench-wms`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({
        name: 'Bench WMS',
        locationOrganisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01',
        settings: { webhook: { verification: 'standard-webhooks' } },
      }),
    });
    const { secret } = (await (
      await fetch(`${gateway}/v1/admin/partners/bench-wms/webhook-secrets`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ label: 'bench' }),
      })
    ).json()) as { secret: string };
    const signer = new Webhook(secret);
    // The load generator signs with node:crypto (native HMAC, the Standard Webhooks scheme:
    // base64 HMAC-SHA256 of "id.timestamp.body" under the decoded whsec_ key). The package's own
    // sign() is pure-JS SHA-256: on 2 cores the client's signing would take CPU from the gateway
    // being measured. The probe below, signed by the package, checks both sign alike.
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const sign = (id: string, seconds: number) =>
      `v1,${createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest('base64')}`;
    const nativeId = `msg_${randomUUID()}`;
    const nativeNow = new Date();
    if (sign(nativeId, Math.floor(nativeNow.getTime() / 1000)) !== signer.sign(nativeId, nativeNow, body)) {
      throw new Error('native signature differs from standardwebhooks sign()');
    }

    // Every request is a new webhook (fresh id, timestamp and signature), as a partner would send.
    const signed = (): autocannon.Request => ({
      method: 'POST',
      path: '/v1/webhooks/bench-wms',
      setupRequest: (request) => {
        const id = `msg_${randomUUID()}`;
        const seconds = Math.floor(Date.now() / 1000);
        return {
          ...request,
          body,
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(seconds),
            'webhook-signature': sign(id, seconds),
          },
        };
      },
    });
    const probe = await fetch(`${gateway}/v1/webhooks/bench-wms`, {
      method: 'POST',
      headers: (() => {
        const id = `msg_${randomUUID()}`;
        const now = new Date();
        return {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(id, now, body),
        };
      })(),
      body,
    });
    if (probe.status !== 202) {
      throw new Error(`probe webhook answered ${probe.status}: ${await probe.text()}`);
    }

    const warm = { connections: CONNECTIONS[0], duration: 3 };
    const hello: autocannon.Request[] = [
      { method: 'POST', path: '/hello', body, headers: { 'content-type': 'application/json' } },
    ];
    await load({ url: bare, requests: hello, ...warm });
    await load({ url: nest, requests: hello, ...warm });
    await load({ url: gateway, requests: [signed()], ...warm });

    interface Row {
      connections: number;
      bareRps: number;
      bareP99: number;
      nestRps: number;
      gwRps: number;
      gwP99: number;
      gwNon2xx: number;
      cpuPerRequest: Record<string, number>;
    }
    const rows: Row[] = [];
    const fixed: { p99: number; rps: number }[] = [];
    for (let run = 1; run <= RUNS; run++) {
      for (const connections of CONNECTIONS) {
        const b = await load({ url: bare, requests: hello, connections, duration: SECONDS });
        const n = await load({ url: nest, requests: hello, connections, duration: SECONDS });
        const cpuBefore = cpuSeconds(gatewayProcess.pid!);
        const g = await load({ url: gateway, requests: [signed()], connections, duration: SECONDS });
        const cpuAfter = cpuSeconds(gatewayProcess.pid!);
        // Microseconds of CPU per webhook, by role, under full load.
        const cpuPerRequest = Object.fromEntries(
          Object.entries(cpuAfter).map(([role, seconds]) => [
            role,
            Math.round((1e6 * (seconds - cpuBefore[role as keyof typeof cpuBefore])) / (g.requests.average * SECONDS)),
          ]),
        );
        rows.push({
          connections,
          bareRps: b.requests.average,
          bareP99: b.latency.p99,
          nestRps: n.requests.average,
          gwRps: g.requests.average,
          gwP99: g.latency.p99,
          gwNon2xx: g.non2xx + g.errors,
          cpuPerRequest,
        });
        console.log(
          `run ${run}, ${connections} connections: bare ${Math.round(b.requests.average)} req/s p99 ${b.latency.p99} ms | nest hello ${Math.round(n.requests.average)} req/s p99 ${n.latency.p99} ms | ` +
            `gateway ${Math.round(g.requests.average)} req/s p99 ${g.latency.p99} ms (non-2xx+errors ${g.non2xx + g.errors}) = ${((100 * g.requests.average) / b.requests.average).toFixed(1)}% of bare`,
        );
        console.log(
          `       CPU per webhook at full load (µs): ${Object.entries(cpuPerRequest)
            .map(([role, us]) => `${role} ${us}`)
            .join(', ')}`,
        );
      }
      const f = await load({
        url: gateway,
        requests: [signed()],
        connections: CONNECTIONS[0],
        duration: SECONDS,
        overallRate: 1000,
      });
      fixed.push({ p99: f.latency.p99, rps: f.requests.average });
      console.log(
        `run ${run}: gateway at 1,000 req/s (${CONNECTIONS[0]} connections): ${Math.round(f.requests.average)} req/s served, p99 ${f.latency.p99} ms`,
      );
    }
    for (const connections of CONNECTIONS) {
      const at = rows.filter((r) => r.connections === connections);
      const bareRps = median(at.map((r) => r.bareRps));
      const gwRps = median(at.map((r) => r.gwRps));
      const nestRps = median(at.map((r) => r.nestRps));
      console.log(
        `medians at ${connections} connections: bare ${Math.round(bareRps)} req/s (p99 ${median(at.map((r) => r.bareP99))} ms), nest hello ${Math.round(nestRps)} req/s (${((100 * nestRps) / bareRps).toFixed(1)}% of bare), ` +
          `gateway ${Math.round(gwRps)} req/s (p99 ${median(at.map((r) => r.gwP99))} ms), ratio of the medians ${((100 * gwRps) / bareRps).toFixed(1)}% of bare; ` +
          `rounds (each gateway run against the bare run just before it): ${at.map((r) => ((100 * r.gwRps) / r.bareRps).toFixed(1)).join(', ')}, median ${median(at.map((r) => (100 * r.gwRps) / r.bareRps)).toFixed(1)}%`,
      );
    }
    console.log(`gateway at 1,000 req/s: p99 ${median(fixed.map((f) => f.p99))} ms (median of ${fixed.length})`);
  } finally {
    // SIGTERM first: the gateway shuts down cleanly (and writes its --cpu-prof profile when asked).
    for (const child of children) {
      child.kill('SIGTERM');
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const child of children) {
      child.kill('SIGKILL');
    }
    await pg.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await pg.end();
    const redis = new IORedis('redis://127.0.0.1:6379');
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) {
        await redis.del(...keys);
      }
      if ((cursor = next) === '0') {
        break;
      }
    }
    redis.disconnect();
  }
}

const watchdog = setTimeout(() => {
  console.error('benchmark watchdog: giving up after 15 minutes');
  for (const child of children) {
    child.kill('SIGKILL');
  }
  process.exit(1);
}, 15 * 60_000);
watchdog.unref();
main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    for (const child of children) {
      child.kill('SIGKILL');
    }
    process.exit(1);
  },
);
