/**
 * End-to-end delivery benchmark: documents/s from `POST /v1/messages` until the message is
 * `delivered`, through the real processes: the sandbox, a gateway and WORKERS worker processes
 * (each `node dist/apps/.../main.js`), a fresh Postgres database and Redis under a private prefix.
 *
 *   npm run build && node dist/bench/delivery.bench.js
 *
 * Two paths, several runs each; prints each run and the median, with the context that makes the
 * figure honest (documents at the sandbox, attempts recorded, the sandbox's request counts, load):
 *   single  MESSAGES messages of DOCS_PER_MESSAGE documents (below the batch threshold: one PUT
 *           per document), posted 8 requests at a time; target >= 500 documents/s with 2 workers.
 *   batch   one message of BATCH_DOCUMENTS documents through platform document jobs; target <= 15 s,
 *           and each process's longest event-loop delay during the run (its /metrics every 500 ms;
 *           issue 14: no body holds a process over 100 ms).
 *
 * Environment (all optional): RUNS=3, PATHS=single,batch, WORKERS=2, MESSAGES=60,
 * DOCS_PER_MESSAGE=50, BATCH_DOCUMENTS=25000, BATCH_LOADS=2 (loads a batch document), BATCH_MESSAGES=1
 * (messages of BATCH_DOCUMENTS posted at once), WORKER_TEXT_BYTES_AT_ONCE (the workers'), BATCH_TEXT=ascii
 * (`unicode`: load names with accents and an emoji), DELIVERY_CONCURRENCY (worker default: 16),
 * BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres, BENCH_REDIS_URL=redis://127.0.0.1:6379,
 * BENCH_TIMEOUT_S=900 (the whole run), KEEP_LOGS=1 (print the children's output at the end),
 * WORKER_NODE_ARGS (node flags for the worker processes; default --max-old-space-size=192, as deployed), GATEWAY_NODE_ARGS
 * (the gateway's, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { benchDocument, median } from './bench-documents';
import { freePort, loopLagMaxMs, peakRssMib, resetPeak, waitFor } from './processes';

const ROOT = join(__dirname, '../..');
const DIST = join(__dirname, '..');
const LOCATION = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const PLATFORM_TOKEN = 'sandbox-demo-location-token';
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
const PARTNER = 'bench-wms';

const env = process.env;
const RUNS = Number(env.RUNS ?? 3);
const PATHS = (env.PATHS ?? 'single,batch').split(',').map((p) => p.trim());
const WORKERS = Number(env.WORKERS ?? 2);
const MESSAGES = Number(env.MESSAGES ?? 60);
const DOCS_PER_MESSAGE = Number(env.DOCS_PER_MESSAGE ?? 50);
const BATCH_DOCUMENTS = Number(env.BATCH_DOCUMENTS ?? 25_000);
const POSTGRES_ADMIN_URL = env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const TIMEOUT_S = Number(env.BENCH_TIMEOUT_S ?? 900);
/** Longest wait for one run's messages to settle. */
const RUN_TIMEOUT_MS = 180_000;
const SINGLE_TARGET = 500;
const BATCH_TARGET_S = 15;
const PUT_ROUTE = 'PUT /api/v2/organisations/:orgId/documents/:docId';

/** The batch message's shape: loads a document (BATCH_LOADS) and names outside ASCII (BATCH_TEXT=unicode). */
const BATCH_LOADS = Number(env.BATCH_LOADS ?? 2);
/** Batch messages posted at once (their translation shares the worker's WORKER_TEXT_BYTES_AT_ONCE). */
const BATCH_MESSAGES = Number(env.BATCH_MESSAGES ?? 1);
const BATCH_TEXT = env.BATCH_TEXT ?? 'ascii';

const documentFor = benchDocument;
/** A batch document of the chosen shape: the bench's own (two loads, ASCII) unless told otherwise. */
const batchDocumentFor = (id: string, i: number) => {
  const document = benchDocument(id, i);
  if (BATCH_LOADS === 2 && BATCH_TEXT === 'ascii') {
    return document;
  }
  // Accents and an emoji (a surrogate pair in JSON text): what a European supplier's product names hold.
  const name = BATCH_TEXT === 'unicode' ? 'Crème brûlée 🍮 Größe' : 'Case';
  return {
    ...document,
    loads: Array.from({ length: BATCH_LOADS }, (_, n) => ({
      name: `${name} ${n}`,
      quantity: 1 + ((i + n) % 20),
      loadTag: `SKU-${(i + n) % 997}`,
    })),
  };
};
const messageBody = (ids: string[], document = documentFor) =>
  JSON.stringify({
    operations: ids.map((id, i) => ({
      kind: 'document.upsert',
      organisationId: LOCATION,
      document: document(id, i),
    })),
  });

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); 0 when unknown. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid || !existsSync(`/proc/${pid}/stat`)) {
    return 0;
  }
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

// ---------------------------------------------------------------- child processes and cleanup

interface Child {
  name: string;
  process: ChildProcess;
  output: string[];
  exited: boolean;
}
const children: Child[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];

function start(name: string, script: string, childEnv: Record<string, string>, nodeArgs: string[] = []): Child {
  const child: Child = {
    name,
    output: [],
    exited: false,
    process: spawn(process.execPath, [...nodeArgs, join(DIST, script)], {
      cwd: ROOT,
      env: { PATH: env.PATH ?? '', LOG_LEVEL: 'warn', ...childEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  };
  const keep = (chunk: Buffer) => {
    child.output.push(chunk.toString());
    if (child.output.length > 200) {
      child.output.splice(0, child.output.length - 200);
    }
  };
  child.process.stdout!.on('data', keep);
  child.process.stderr!.on('data', keep);
  child.process.on('exit', (code, signal) => {
    child.exited = true;
    if (!stopping) {
      console.error(
        `${name} exited unexpectedly (code ${code}, signal ${signal}); its last output:\n${child.output.join('').slice(-4000)}`,
      );
      void finish(1);
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
async function stopChildren(): Promise<void> {
  stopping = true;
  const alive = children.filter((c) => !c.exited);
  for (const c of alive) {
    c.process.kill('SIGTERM');
  }
  const deadline = Date.now() + 8000;
  while (alive.some((c) => !c.exited) && Date.now() < deadline) {
    await sleep(50);
  }
  for (const c of alive) {
    if (!c.exited) {
      c.process.kill('SIGKILL');
    }
  }
}

let finishing: Promise<never> | null = null;
function finish(code: number): Promise<never> {
  finishing ??= (async () => {
    await stopChildren();
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`cleanup: ${(error as Error).message}`);
      }
    }
    if (env.KEEP_LOGS) {
      for (const c of children) {
        console.log(`--- ${c.name} output ---\n${c.output.join('')}`);
      }
    }
    process.exit(code);
  })();
  return finishing;
}
// Last resort (e.g. an uncaught error on the way out): never leave a child running.
process.on('exit', () => children.forEach((c) => c.exited || c.process.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void finish(130));
}

// ---------------------------------------------------------------- the benchmark

interface Context {
  gateway: string;
  sandbox: string;
  /** The /metrics of each dockbridge process, by name. */
  metrics: Map<string, string>;
  key: string;
  db: Client;
  /** The worker processes' pids. */
  workers: number[];
  /** CPU seconds used so far by each process of the run: the children, this database's Postgres backends (by pid; one that exits mid-run is not counted), Redis. */
  cpu(): Promise<Map<string, number>>;
}

async function cpuDelta(ctx: Context, before: Map<string, number>): Promise<string> {
  const after = await ctx.cpu();
  const totals = new Map<string, number>();
  for (const [key, seconds] of after) {
    const name = key.startsWith('postgres:') ? 'postgres' : key; // per backend: one that started during the run counts from 0
    totals.set(name, (totals.get(name) ?? 0) + seconds - (before.get(key) ?? 0));
  }
  return [...totals].map(([name, seconds]) => `${name} ${seconds.toFixed(1)}`).join(', ');
}

async function post(ctx: Context, body: string): Promise<string> {
  const response = await fetch(`${ctx.gateway}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': ctx.key, 'content-type': 'application/json' },
    body,
  });
  if (response.status !== 202) {
    throw new Error(`POST /v1/messages answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
  }
  return ((await response.json()) as { messageId: string }).messageId;
}

const FINAL = ['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate'];

/** Polls Postgres (one query per 20 ms) until every message is final; returns when the last one got there. */
async function waitSettled(ctx: Context, ids: string[]): Promise<Record<string, number>> {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  for (;;) {
    const { rows } = await ctx.db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM message WHERE id = ANY($1::uuid[]) GROUP BY status',
      [ids],
    );
    const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    const settled = rows.filter((r) => FINAL.includes(r.status)).reduce((sum, r) => sum + r.n, 0);
    if (settled === ids.length) {
      return counts;
    }
    if (Date.now() > deadline) {
      throw new Error(`messages not settled after ${RUN_TIMEOUT_MS} ms: ${JSON.stringify(counts)}`);
    }
    await sleep(20);
  }
}

interface RunFacts {
  documents: number;
  attempts: number;
  delivered: number;
  sandboxDocuments: number;
  requests: Record<string, Record<string, number>>;
}

/** What the audit store and the sandbox say about a run; throws unless every document arrived once and is delivered. */
async function facts(ctx: Context, ids: string[], documents: number): Promise<RunFacts> {
  const ops = await ctx.db.query<{ delivered: number; total: number; attempts: number }>(
    `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*)::int AS total, coalesce(sum(attempt_count), 0)::int AS attempts
       FROM operation WHERE message_id = ANY($1::uuid[])`,
    [ids],
  );
  const attemptRows = await ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM attempt a JOIN operation o ON o.id = a.operation_id WHERE o.message_id = ANY($1::uuid[])',
    [ids],
  );
  const stats = (await (await fetch(`${ctx.sandbox}/__sandbox/stats`)).json()) as {
    documents: Record<string, number>;
    requests: Record<string, Record<string, number>>;
  };
  const result: RunFacts = {
    documents,
    attempts: attemptRows.rows[0].n,
    delivered: ops.rows[0].delivered,
    sandboxDocuments: stats.documents[LOCATION] ?? 0,
    requests: stats.requests,
  };
  if (ops.rows[0].total !== documents || result.delivered !== documents) {
    throw new Error(`${result.delivered}/${ops.rows[0].total} operations delivered, ${documents} expected`);
  }
  if (result.sandboxDocuments !== documents) {
    throw new Error(`the sandbox holds ${result.sandboxDocuments} documents, ${documents} expected`);
  }
  if (ops.rows[0].attempts !== result.attempts) {
    throw new Error(`attempt rows ${result.attempts} != attempt_count sum ${ops.rows[0].attempts}`);
  }
  return result;
}

const requestSummary = (requests: RunFacts['requests']) =>
  Object.entries(requests)
    .map(
      ([route, byStatus]) =>
        `${route.replace('/api/v2/organisations/:orgId/', '')} ${Object.entries(byStatus)
          .map(([s, n]) => `${s}x${n}`)
          .join(',')}`,
    )
    .join('; ');

async function reset(ctx: Context): Promise<void> {
  const response = await fetch(`${ctx.sandbox}/__sandbox/reset`, { method: 'POST' });
  if (response.status !== 200) {
    throw new Error(`sandbox reset answered ${response.status}`);
  }
}

async function singleRun(
  ctx: Context,
  run: number | string,
): Promise<{ seconds: number; postSeconds: number; cpu: string; facts: RunFacts }> {
  await reset(ctx);
  const bodies = Array.from({ length: MESSAGES }, (_, m) =>
    messageBody(
      Array.from(
        { length: DOCS_PER_MESSAGE },
        (_, d) => `S${run}-M${String(m).padStart(3, '0')}-D${String(d).padStart(3, '0')}`,
      ),
    ),
  );
  const cpuBefore = await ctx.cpu();
  const started = performance.now();
  // Posted the way several partners would: 8 requests in flight at a time.
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < bodies.length) {
        ids.push(await post(ctx, bodies[next++]));
      }
    }),
  );
  const postSeconds = (performance.now() - started) / 1000;
  const statuses = await waitSettled(ctx, ids);
  const seconds = (performance.now() - started) / 1000;
  const cpu = await cpuDelta(ctx, cpuBefore);
  if ((statuses.delivered ?? 0) !== MESSAGES) {
    throw new Error(`run ${run}: messages ${JSON.stringify(statuses)}`);
  }
  const result = await facts(ctx, ids, MESSAGES * DOCS_PER_MESSAGE);
  if (result.requests[PUT_ROUTE] === undefined || result.requests['POST /api/v2/organisations/:orgId/document-jobs']) {
    throw new Error(`run ${run}: not the single-document path: ${requestSummary(result.requests)}`);
  }
  return { seconds, postSeconds, cpu, facts: result };
}

async function batchRun(
  ctx: Context,
  run: number,
): Promise<{
  seconds: number;
  postSeconds: number;
  phases: string;
  cpu: string;
  loop: string;
  workerRss: string;
  facts: RunFacts;
}> {
  await reset(ctx);
  const bodies = Array.from({ length: BATCH_MESSAGES }, (_, m) =>
    messageBody(
      Array.from({ length: BATCH_DOCUMENTS }, (_, i) => `B${run}-${m}-${String(i).padStart(6, '0')}`),
      batchDocumentFor,
    ),
  );
  const cpuBefore = await ctx.cpu();
  ctx.workers.forEach((pid) => resetPeak(pid));
  const loops = new LoopLag(ctx.metrics);
  await loops.start();
  const started = performance.now();
  const ids = await Promise.all(bodies.map((body) => post(ctx, body)));
  const postSeconds = (performance.now() - started) / 1000;
  const statuses = await waitSettled(ctx, ids);
  const seconds = (performance.now() - started) / 1000;
  const loop = await loops.stop();
  const cpu = await cpuDelta(ctx, cpuBefore);
  const workerRss = ctx.workers.map((pid) => `${Math.round(peakRssMib(pid))} MiB`).join(', ');
  if (statuses.delivered !== ids.length) {
    throw new Error(`run ${run}: messages ${JSON.stringify(statuses)}`);
  }
  const result = await facts(ctx, ids, BATCH_MESSAGES * BATCH_DOCUMENTS);
  if (result.requests[PUT_ROUTE]) {
    throw new Error(`run ${run}: documents went one PUT each: ${requestSummary(result.requests)}`);
  }
  // Where the time went, from the first message's own events (database clock).
  const events = await ctx.db.query<{ to_status: string; ms: number }>(
    `SELECT to_status, (extract(epoch FROM at - min(at) OVER ()) * 1000)::int AS ms FROM message_event WHERE message_id = $1 ORDER BY at, id`,
    [ids[0]],
  );
  const phases = events.rows.map((e) => `${e.to_status}@${(e.ms / 1000).toFixed(2)}s`).join(' ');
  return { seconds, postSeconds, phases, cpu, loop, workerRss, facts: result };
}

/** Each process's largest event-loop delay while a run goes on: /metrics scraped every 500 ms (each scrape resets it). */
class LoopLag {
  private readonly max = new Map<string, number>();
  private sampling?: Promise<void>;
  private running = false;

  constructor(private readonly metrics: Map<string, string>) {}

  async start(): Promise<void> {
    await this.scrape(false); // forgets what came before the run
    this.running = true;
    this.sampling = (async () => {
      while (this.running) {
        await sleep(500);
        await this.scrape(true);
      }
    })();
  }

  /** `gateway 23 ms, worker 1 41 ms, ...` */
  async stop(): Promise<string> {
    this.running = false;
    await this.sampling;
    await this.scrape(true);
    return [...this.max].map(([name, ms]) => `${name} ${Math.round(ms)} ms`).join(', ');
  }

  private async scrape(keep: boolean): Promise<void> {
    await Promise.all(
      [...this.metrics].map(async ([name, url]) => {
        const ms = await loopLagMaxMs(url).catch(() => NaN);
        if (keep && !Number.isNaN(ms)) {
          this.max.set(name, Math.max(this.max.get(name) ?? 0, ms));
        }
      }),
    );
  }
}

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    console.error(`benchmark did not finish within ${TIMEOUT_S} s; stopping`);
    void finish(1);
  }, TIMEOUT_S * 1000);
  watchdog.unref();

  // A fresh database, dropped at the end.
  const dbName = `dockbridge_bench_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  cleanups.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });
  const dbUrl = new URL(POSTGRES_ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;

  // Redis keys under a private prefix, deleted at the end.
  const prefix = `{dbbench-${randomBytes(4).toString('hex')}}`;
  const redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: 3 });
  cleanups.push(async () => {
    let cursor = '0';
    let rounds = 0;
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) {
        await redis.unlink(...keys);
      }
      cursor = nextCursor;
    } while (cursor !== '0' && ++rounds < 100_000);
    redis.disconnect();
  });

  // Configuration the environment cannot set: a 25,000-document message (~14 MB) is above the
  // gateway's 10 MiB default body limit. Nothing else is changed from the defaults.
  const configDir = mkdtempSync(join(tmpdir(), 'dockbridge-bench-'));
  cleanups.push(() => rmSync(configDir, { recursive: true, force: true }));
  writeFileSync(join(configDir, 'default.yaml'), 'gateway:\n  bodyLimitBytes: 67108864\n');

  const [sandboxPort, gatewayPort] = [await freePort(), await freePort()];
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const common = {
    CONFIG_DIR: configDir,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL,
    REDIS_PREFIX: prefix,
    PLATFORM_BASE_URL: sandboxUrl,
    PLATFORM_TOKEN,
    PARTNERS_DIR: configDir,
    SFTP_ENABLED: 'off', // SFTP ingress (where present) is not part of this benchmark
    ...(env.DELIVERY_CONCURRENCY ? { DELIVERY_CONCURRENCY: env.DELIVERY_CONCURRENCY } : {}),
  };

  start('sandbox', 'apps/sandbox/src/main.js', {
    CONFIG_DIR: configDir,
    SANDBOX_HOST: '127.0.0.1',
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_CONTROLS: 'on',
    SANDBOX_SEED: join(ROOT, 'config/sandbox.seed.json'),
  });
  await waitFor('sandbox', async () => (await fetch(`${sandboxUrl}/__sandbox/stats`)).status === 200);
  // The gateway migrates the new database; the workers start after it, without migrating.
  start(
    'gateway',
    'apps/gateway/src/main.js',
    {
      ...common,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      ADMIN_TOKEN,
      GATEWAY_WITH_WORKER: 'off',
    },
    (env.GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean),
  );
  const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  await waitFor(
    'gateway',
    async () => (await fetch(`${gatewayUrl}/v1/admin/partners`, { headers: adminHeaders })).status === 200,
  );
  const workerArgs = (env.WORKER_NODE_ARGS ?? '--max-old-space-size=192').split(' ').filter(Boolean);
  const metrics = new Map([['gateway', `${gatewayUrl}/metrics`]]);
  const workers: number[] = [];
  for (let i = 1; i <= WORKERS; i++) {
    const healthPort = await freePort();
    metrics.set(`worker ${i}`, `http://127.0.0.1:${healthPort}/metrics`);
    const worker = start(
      `worker ${i}`,
      'apps/worker/src/main.js',
      {
        ...common,
        DATABASE_MIGRATE_ON_START: 'off',
        WORKER_HEALTH_PORT: String(healthPort),
        ...(env.WORKER_TEXT_BYTES_AT_ONCE && { WORKER_TEXT_BYTES_AT_ONCE: env.WORKER_TEXT_BYTES_AT_ONCE }),
      },
      workerArgs,
    );
    workers.push(worker.process.pid!);
  }

  const partner = await fetch(`${gatewayUrl}/v1/admin/partners/${PARTNER}`, {
    method: 'PUT',
    headers: adminHeaders,
    body: JSON.stringify({ name: 'Benchmark WMS', locationOrganisationId: LOCATION }),
  });
  if (partner.status !== 200) {
    throw new Error(`PUT partner answered ${partner.status}: ${await partner.text()}`);
  }
  const issued = await fetch(`${gatewayUrl}/v1/admin/partners/${PARTNER}/api-keys`, {
    method: 'POST',
    headers: adminHeaders,
    body: JSON.stringify({ label: 'benchmark' }),
  });
  if (issued.status !== 201) {
    throw new Error(`POST api-keys answered ${issued.status}: ${await issued.text()}`);
  }
  const { key } = (await issued.json()) as { key: string };

  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  cleanups.push(() => db.end());
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
  const ctx: Context = {
    gateway: gatewayUrl,
    sandbox: sandboxUrl,
    metrics,
    key,
    db,
    workers,
    async cpu() {
      const seconds = new Map(children.map((c) => [c.name, cpuSeconds(c.process.pid)]));
      const backends = await db.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      for (const { pid } of backends.rows) {
        seconds.set(`postgres:${pid}`, cpuSeconds(pid));
      }
      seconds.set('redis', cpuSeconds(redisPid));
      return seconds;
    },
  };

  // Every worker registered with Redis before timing starts.
  const deliverQueue = new Queue('deliver', {
    connection: { host: new URL(REDIS_URL).hostname, port: Number(new URL(REDIS_URL).port || 6379) },
    prefix,
  });
  await waitFor(`${WORKERS} workers`, async () => (await deliverQueue.getWorkersCount()) >= WORKERS, 60_000);
  await deliverQueue.close();

  console.log(
    `delivery benchmark: sandbox, gateway and ${WORKERS} worker processes on loopback; Postgres database ${dbName}, Redis prefix ${prefix}`,
  );
  console.log(
    `machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}; DELIVERY_CONCURRENCY=${env.DELIVERY_CONCURRENCY ?? 'default (16)'}; load ${load()}`,
  );

  // Warm-up (not counted): connections, JIT, the partner cache. 500 documents: with less the first run is ~30% slower.
  const warm = await Promise.all(
    Array.from({ length: 10 }, (_, m) =>
      post(ctx, messageBody(Array.from({ length: 50 }, (_, i) => `WARM-${m}-${i}`))),
    ),
  );
  await waitSettled(ctx, warm);

  const summary: string[] = [];
  if (PATHS.includes('single')) {
    const documents = MESSAGES * DOCS_PER_MESSAGE;
    console.log(
      `\nsingle-document path: ${MESSAGES} messages x ${DOCS_PER_MESSAGE} documents = ${documents} documents per run, ${RUNS} runs`,
    );
    const rates: number[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const r = await singleRun(ctx, run);
      const rate = documents / r.seconds;
      rates.push(rate);
      console.log(
        `  run ${run}: ${r.seconds.toFixed(2)} s, ${Math.round(rate)} documents/s (POSTs done at ${r.postSeconds.toFixed(2)} s); ` +
          `${r.facts.delivered} delivered, ${r.facts.attempts} attempts, sandbox ${r.facts.sandboxDocuments} documents; requests: ${requestSummary(r.facts.requests)}; load ${load()}`,
      );
      console.log(`         CPU seconds: ${r.cpu}`);
    }
    const m = median(rates);
    const line = `single-document path median: ${Math.round(m)} documents/s (${(documents / m).toFixed(2)} s for ${documents}); target >= ${SINGLE_TARGET}: ${m >= SINGLE_TARGET ? 'met' : 'NOT met'}`;
    console.log(line);
    summary.push(line);
  }
  if (PATHS.includes('batch')) {
    console.log(
      `\nbatch path: ${BATCH_MESSAGES} message(s) at once of ${BATCH_DOCUMENTS} documents of ${BATCH_LOADS} loads (${BATCH_TEXT} text, ${((Buffer.byteLength(messageBody(['B0-000000'], batchDocumentFor)) * BATCH_DOCUMENTS) / 2 ** 20).toFixed(1)} MiB) per run, ${RUNS} runs`,
    );
    const times: number[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const r = await batchRun(ctx, run);
      times.push(r.seconds);
      console.log(
        `  run ${run}: ${r.seconds.toFixed(2)} s end to end, ${Math.round((BATCH_MESSAGES * BATCH_DOCUMENTS) / r.seconds)} documents/s (POST answered at ${r.postSeconds.toFixed(2)} s; events ${r.phases}); ` +
          `${r.facts.delivered} delivered, ${r.facts.attempts} attempts, sandbox ${r.facts.sandboxDocuments} documents; requests: ${requestSummary(r.facts.requests)}; load ${load()}`,
      );
      console.log(
        `         CPU seconds: ${r.cpu}; event loop held at most: ${r.loop}; worker peak RSS: ${r.workerRss}`,
      );
    }
    const m = median(times);
    const line = `batch path median: ${m.toFixed(2)} s for ${BATCH_MESSAGES * BATCH_DOCUMENTS} documents, ${Math.round((BATCH_MESSAGES * BATCH_DOCUMENTS) / m)} documents/s; target <= ${BATCH_TARGET_S} s: ${m <= BATCH_TARGET_S ? 'met' : 'NOT met'}`;
    console.log(line);
    summary.push(line);
  }
  console.log(`\n${summary.join('\n')}`);
}

main().then(
  () => finish(0),
  (error) => {
    console.error(error);
    return finish(1);
  },
);
