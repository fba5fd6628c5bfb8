/**
 * Large EDI files end to end: generated 856 files uploaded over SFTP (a real client, ssh2) to a
 * gateway process, translated by a worker process and delivered to the sandbox process, each a
 * `node dist/...` child on a fresh Postgres database and a private Redis prefix.
 *
 *   npm run build && node dist/bench/large-file.bench.js
 *
 * For each size: the upload's time, CLOSE's answer after the last byte was written, the times until
 * the message is recorded, translated and settled, the documents at the sandbox, the database's
 * growth, and the peak RSS of the gateway and of the worker (VmHWM from /proc, reset between sizes
 * through clear_refs). Sizes run one after the other on the same processes.
 *
 * Also: the largest event-loop delay of gateway and worker (their /metrics, scraped every second)
 * and how much of a delay each process ran rather than waited for a core (bench/loop-holding.ts),
 * the message detail's answer time during the run and after it, and the time covered by the
 * platform's batch jobs (the sandbox's job timeline), so dockbridge's own time is settled minus that.
 *
 * Environment (all optional): SIZES_MIB=1,10,100 (add 256, or SIZE_MIB=1024 alone), ITEMS=40 (items
 * per ASN), INTERCHANGE_SETS (ASNs per interchange; default all in one), GROUP_SETS=1000 (ASNs per GS), REFUSED=1 (every ASN refused by the mapping: BSN01 ZZ), LAYOUT (instead: bench:x12's sopi, soti, soi or 850 file; one size, COPIES=1), COPIES=1 (files of each size uploaded at once), BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres,
 * BENCH_REDIS_URL=redis://127.0.0.1:6379, KEEP_LOGS=1, KEEP_DB=1 (the database left for psql), WORKER_NODE_ARGS (default
 * --max-old-space-size=192, as deployed), GATEWAY_NODE_ARGS (default
 * --max-semi-space-size=32 --expose-gc, as deployed), WORKER_LARGE_FILES_AT_ONCE, BENCH_GLIBC_DEFAULTS=1
 * (children without MALLOC_MMAP_THRESHOLD_=131072, which the Dockerfile and npm scripts set).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import IORedis from 'ioredis';
import { Client } from 'pg';
import SftpClient from 'ssh2-sftp-client';
import { writeAsnFile } from './asn-file';
import { generate, LAYOUTS } from './x12-layouts';
import { freePort, waitFor, loopHolding, loopHoldingFor, loopLagMaxMs, peakRssMib, resetPeak } from './processes';

const ROOT = join(__dirname, '../..');
const DIST = join(__dirname, '..');
const LOCATION = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const PLATFORM_TOKEN = 'sandbox-demo-location-token';
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
const PARTNER = 'kettle-foods';
const SFTP_PASSWORD = `bench-${randomBytes(12).toString('hex')}`;
const MiB = 1024 * 1024;

const env = process.env;
const SIZES = (env.SIZE_MIB ?? env.SIZES_MIB ?? '1,10,100').split(',').map(Number);
const ITEMS = Number(env.ITEMS ?? 40);
/** ASNs per interchange (default: the whole file in one). */
const INTERCHANGE_SETS = Number(env.INTERCHANGE_SETS ?? Infinity);
/** ASNs per functional group. */
const GROUP_SETS = Number(env.GROUP_SETS ?? 1000);
/** BSN01 of the ASNs: one the mapping refuses (REFUSED=1: ZZ) makes a file of refused sets. */
const PURPOSE = env.REFUSED ? 'ZZ' : '00';
/** Files of each size uploaded at once (issue 14: four 100 MiB files within the same memory bound). */
const COPIES = Number(env.COPIES ?? 1);
/** Another shape instead of the ASNs of ITEMS items: one of bench:x12's layouts (sopi, soti, soi, 850). */
const LAYOUT = env.LAYOUT === undefined ? undefined : LAYOUTS.find((layout) => layout.id === env.LAYOUT);
// Its files share one ISA13: a second one would be a duplicate interchange.
if (env.LAYOUT !== undefined && (!LAYOUT || COPIES > 1 || SIZES.length > 1)) {
  throw new Error(`LAYOUT=${env.LAYOUT}: one of ${LAYOUTS.map((l) => l.id).join(', ')}, one size, COPIES=1`);
}
const POSTGRES_ADMIN_URL = env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Writes in flight, 32 KiB each, as OpenSSH's sftp keeps them. */
const WRITES_IN_FLIGHT = 64;
const WRITE_BYTES = 32 * 1024;
const TARGET_RSS_MIB = 250;
const TARGET_CLOSE_MS = 1000;
const TARGET_LOOP_MS = 100;
const TARGET_DETAIL_MS = 200;

// ---------------------------------------------------------------- processes

interface Child {
  name: string;
  process: ChildProcess;
  output: string[];
  exited: boolean;
}
const children: Child[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
let stopping = false;

function start(name: string, script: string, childEnv: Record<string, string>, nodeArgs: string[] = []): Child {
  const child: Child = {
    name,
    output: [],
    exited: false,
    process: spawn(process.execPath, [...nodeArgs, join(DIST, script)], {
      cwd: ROOT,
      env: {
        PATH: env.PATH ?? '',
        LOG_LEVEL: 'warn',
        // As deployed (Dockerfile, npm start); BENCH_GLIBC_DEFAULTS=1 measures without it, MALLOC_* pass through.
        ...(env.BENCH_GLIBC_DEFAULTS ? {} : { MALLOC_MMAP_THRESHOLD_: '131072' }),
        ...Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith('MALLOC_'))),
        ...childEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  };
  const keep = (chunk: Buffer) => {
    child.output.push(chunk.toString());
    child.output.splice(0, Math.max(0, child.output.length - 200));
  };
  child.process.stdout!.on('data', keep);
  child.process.stderr!.on('data', keep);
  child.process.on('exit', (code, signal) => {
    child.exited = true;
    if (!stopping) {
      console.error(`${name} exited (code ${code}, signal ${signal}):\n${child.output.join('').slice(-4000)}`);
      void finish(1);
    }
  });
  children.push(child);
  return child;
}

let finishing: Promise<never> | null = null;
function finish(code: number): Promise<never> {
  finishing ??= (async () => {
    stopping = true;
    for (const c of children.filter((c) => !c.exited)) {
      c.process.kill('SIGTERM');
    }
    const deadline = Date.now() + 8000;
    while (children.some((c) => !c.exited) && Date.now() < deadline) {
      await sleep(50);
    }
    children.forEach((c) => c.exited || c.process.kill('SIGKILL'));
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve()
        .then(cleanup)
        .catch((error: Error) => console.error(`cleanup: ${error.message}`));
    }
    if (env.KEEP_LOGS) {
      children.forEach((c) => console.log(`--- ${c.name} ---\n${c.output.join('')}`));
    }
    process.exit(code);
  })();
  return finishing;
}
process.on('exit', () => children.forEach((c) => c.exited || c.process.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void finish(130));
}

/** Resident memory now, MiB (VmRSS). */
function rssMib(child: Child): number {
  const status = readFileSync(`/proc/${child.process.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

// ---------------------------------------------------------------- one size

interface Context {
  gateway: string;
  sandbox: string;
  sftpPort: number;
  db: Client;
  gatewayProcess: Child;
  workerProcess: Child;
  gatewayMetrics: string;
  workerMetrics: string;
  /** bench/loop-holding.ts's output of each. */
  gatewayLoopFile: string;
  workerLoopFile: string;
}

const admin = (ctx: Context, path: string, init: RequestInit = {}) =>
  fetch(`${ctx.gateway}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });

/** Uploads `path` as `name` with WRITES_IN_FLIGHT writes in flight; answers when CLOSE was answered, and how long CLOSE took. */
async function upload(ctx: Context, path: string, name: string): Promise<{ uploadMs: number; closeMs: number }> {
  const client = new SftpClient();
  await client.connect({ host: '127.0.0.1', port: ctx.sftpPort, username: 'kettle', password: SFTP_PASSWORD });
  try {
    const sftp = (client as unknown as { sftp: import('ssh2').SFTPWrapper }).sftp;
    const call = <T>(run: (done: (error: Error | null | undefined, value?: T) => void) => void) =>
      new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
    const started = Date.now();
    const handle = await call<Buffer>((done) => sftp.open(`/inbound/${name}`, 'w', done));
    const size = statSync(path).size;
    const fd = openSync(path, 'r');
    let offset = 0;
    const inFlight = new Set<Promise<void>>();
    while (offset < size) {
      const chunk = Buffer.alloc(Math.min(WRITE_BYTES, size - offset));
      readSync(fd, chunk, 0, chunk.length, offset);
      const at = offset;
      const write: Promise<void> = call<void>((done) => sftp.write(handle, chunk, 0, chunk.length, at, done)).then(
        () => void inFlight.delete(write),
      );
      inFlight.add(write);
      offset += chunk.length;
      if (inFlight.size >= WRITES_IN_FLIGHT) {
        await Promise.race(inFlight);
      }
    }
    closeSync(fd);
    await Promise.all(inFlight);
    const closing = Date.now();
    await call<void>((done) => sftp.close(handle, done));
    return { uploadMs: Date.now() - started, closeMs: Date.now() - closing };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Documents the sandbox holds for the location (ASN-n ids: each ASN one document). */
async function documentsAtSandbox(ctx: Context): Promise<number> {
  const stats = (await (await fetch(`${ctx.sandbox}/__sandbox/stats`)).json()) as { documents: Record<string, number> };
  return stats.documents[LOCATION] ?? 0;
}

const tableBytes = async (ctx: Context, table: string) =>
  Number((await ctx.db.query<{ size: string }>(`SELECT pg_total_relation_size($1) AS size`, [table])).rows[0].size);
const chunkBytes = (ctx: Context) => tableBytes(ctx, 'partner_file_chunk');
/** Where the database's growth goes: the tables a message writes to. */
const TABLES = ['operation', 'payload_block', 'attempt', 'message_event', 'message'];

/**
 * When the last of these messages was translated (moved to `delivering`) and when the last one
 * settled, from their events; undefined unless every one of them did.
 */
async function movedAt(ctx: Context, ids: string[]): Promise<{ translated?: number; settled?: number }> {
  const { rows } = await ctx.db.query<{ translated: Date | null; settled: Date | null; nt: number; ns: number }>(
    `WITH moves AS (
       SELECT message_id, at, to_status = 'delivering' AS translated,
              to_status IN ('delivered', 'partially_failed', 'failed', 'rejected', 'duplicate', 'superseded') AS settled
         FROM message_event WHERE message_id = ANY($1::uuid[]))
     SELECT max(at) FILTER (WHERE translated) AS translated, count(DISTINCT message_id) FILTER (WHERE translated)::int AS nt,
            max(at) FILTER (WHERE settled) AS settled, count(DISTINCT message_id) FILTER (WHERE settled)::int AS ns
       FROM moves`,
    [ids],
  );
  const [row] = rows;
  return {
    translated: row && row.nt === ids.length ? row.translated?.getTime() : undefined,
    settled: row && row.ns === ids.length ? row.settled?.getTime() : undefined,
  };
}

const dbBytes = async (ctx: Context) =>
  Number((await ctx.db.query<{ size: string }>(`SELECT pg_database_size(current_database()) AS size`)).rows[0].size);

/** Milliseconds of one admin read of a message's detail (its first page of operations and attempts). */
async function detailMs(ctx: Context, messageId: string): Promise<number> {
  const started = performance.now();
  const answer = await admin(ctx, `/v1/admin/messages/${messageId}`);
  await answer.arrayBuffer();
  if (answer.status !== 200) {
    throw new Error(`message detail: ${answer.status}`);
  }
  return performance.now() - started;
}

/** Wall time covered by at least one of the platform's batch jobs created since `since` (submitted to completed). */
async function platformJobMs(ctx: Context, since: number): Promise<{ ms: number; jobs: number; spans: string }> {
  const stats = (await (await fetch(`${ctx.sandbox}/__sandbox/stats`)).json()) as {
    jobs: { timeline: { createdAt: string; completedAt: string | null; documentCount: number }[] };
  };
  const spans = stats.jobs.timeline
    .map((job) => ({
      from: Date.parse(job.createdAt),
      to: job.completedAt ? Date.parse(job.completedAt) : Date.now(),
      documents: job.documentCount,
    }))
    .filter(({ from }) => from >= since)
    .sort((a, b) => a.from - b.from);
  let ms = 0;
  let reach = -Infinity;
  for (const { from, to } of spans) {
    ms += Math.max(0, to - Math.max(from, reach));
    reach = Math.max(reach, to);
  }
  const at = (time: number) => ((time - since) / 1000).toFixed(1);
  return {
    ms,
    jobs: spans.length,
    spans: spans.map((span) => `${at(span.from)}-${at(span.to)} s (${span.documents})`).join(', '),
  };
}

/** Transaction sets in a generated file (each ST starts a line). */
async function countSets(path: string): Promise<number> {
  let sets = 0;
  let tail = '';
  for await (const chunk of createReadStream(path, { encoding: 'latin1' })) {
    const text = tail + (chunk as string);
    sets += text.match(/\nST\*/g)?.length ?? 0;
    tail = text.slice(-3);
  }
  return sets;
}

const medianAndMax = (values: number[]) =>
  values.length === 0
    ? '-'
    : `${Math.round([...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)])}/${Math.round(Math.max(...values))}`;

async function runSize(ctx: Context, mib: number, dir: string): Promise<Record<string, string | number>> {
  const files = await Promise.all(
    Array.from({ length: COPIES }, async (_, i) => {
      if (LAYOUT) {
        const path = await generate(LAYOUT, mib);
        return { path, name: `${LAYOUT.id}-${mib}MiB.edi`, bytes: statSync(path).size, asns: await countSets(path) };
      }
      const path = join(dir, `asn-${mib}mib-${i}.edi`);
      return {
        path,
        name: `ASN-${mib}MiB-${randomBytes(3).toString('hex')}.edi`,
        ...(await writeAsnFile(path, mib, ITEMS, {
          setsPerInterchange: INTERCHANGE_SETS,
          setsPerGroup: GROUP_SETS,
          purpose: PURPOSE,
        })),
      };
    }),
  );
  const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
  const asns = files.reduce((sum, f) => sum + f.asns, 0);
  resetPeak(ctx.gatewayProcess.process.pid!);
  resetPeak(ctx.workerProcess.process.pid!);
  await ctx.db.query('CHECKPOINT');
  const dbBefore = await dbBytes(ctx);
  const chunksBefore = await chunkBytes(ctx);
  const tablesBefore = await Promise.all(TABLES.map((t) => tableBytes(ctx, t)));
  const docsBefore = await documentsAtSandbox(ctx);
  // Scraped every second from here on: each scrape reads and resets the process's delay histogram.
  await Promise.all([loopLagMaxMs(ctx.gatewayMetrics), loopLagMaxMs(ctx.workerMetrics)]);
  const started = Date.now();
  let uploadPeak = 0;
  const sampler = setInterval(() => (uploadPeak = Math.max(uploadPeak, rssMib(ctx.gatewayProcess))), 50);
  const lag = { gateway: 0, worker: 0 };
  const detailsDuring: number[] = [];
  const ids: string[] = [];
  let sampling = true;
  const sampleLoop = (async () => {
    while (sampling) {
      await sleep(1000);
      try {
        const [gateway, worker] = await Promise.all([
          loopLagMaxMs(ctx.gatewayMetrics),
          loopLagMaxMs(ctx.workerMetrics),
        ]);
        lag.gateway = Math.max(lag.gateway, gateway);
        lag.worker = Math.max(lag.worker, worker);
        if (ids.length > 0) {
          detailsDuring.push(await detailMs(ctx, ids[0]));
        }
      } catch (error) {
        // A keep-alive connection the server closed as it was reused: the next second samples again.
        console.log(`  sample skipped: ${(error as Error).message} (${String((error as Error).cause ?? '')})`);
      }
    }
  })();
  const uploads = await Promise.all(files.map((f) => upload(ctx, f.path, f.name))).finally(() =>
    clearInterval(sampler),
  );
  const uploadMs = Math.max(...uploads.map((u) => u.uploadMs));
  const closeMs = Math.max(...uploads.map((u) => u.closeMs));
  const search = async (name: string) =>
    (
      (await (await admin(ctx, `/v1/admin/messages?fileName=${encodeURIComponent(name)}`)).json()) as {
        items: { id: string; status: string }[];
      }
    ).items[0];
  const recorded = await Promise.all(files.map((f) => search(f.name)));
  const recordedMs = Date.now() - started;
  ids.push(...recorded.filter(Boolean).map((r) => r.id));
  let translatedMs = 0;
  let statuses = recorded.map((r) => r?.status ?? 'missing');
  const settledStatus = (status: string) =>
    ['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate'].includes(status);
  const deadline = Date.now() + 30 * 60_000;
  while (!statuses.every(settledStatus) && Date.now() < deadline) {
    await sleep(250);
    try {
      statuses = await Promise.all(files.map(async (f) => (await search(f.name))?.status ?? 'missing'));
    } catch (error) {
      console.log(`  status poll failed: ${(error as Error).message} (${String((error as Error).cause ?? '')})`);
      continue;
    }
    if (!translatedMs && statuses.every((status) => !['received', 'translating'].includes(status))) {
      translatedMs = Date.now() - started;
    }
  }
  // When the messages moved, as their own events have it: the poll sees a move up to 250 ms and a search late.
  const moved = await movedAt(
    ctx,
    recorded.filter(Boolean).map((r) => r.id),
  );
  const settledMs = (moved.settled ?? Date.now()) - started;
  translatedMs = moved.translated ? moved.translated - started : translatedMs;
  sampling = false;
  await sampleLoop;
  const held = {
    gateway: loopHolding(ctx.gatewayLoopFile, started, Date.now()),
    worker: loopHolding(ctx.workerLoopFile, started, Date.now()),
  };
  const platform = await platformJobMs(ctx, started);
  console.log(`  platform jobs, from the upload's start (documents): ${platform.spans}`);
  for (const [i, status] of statuses.entries()) {
    if (status !== 'delivered' && recorded[i]) {
      const detail = (await (await admin(ctx, `/v1/admin/messages/${recorded[i].id}?operationsLimit=1`)).json()) as {
        message: { statusReason: string | null };
        operations: { lastError: string | null }[];
      };
      console.log(
        `  ${status}: ${detail.message.statusReason ?? ''}; first operation: ${detail.operations[0]?.lastError ?? '-'}`,
      );
    }
  }
  const detailsAfter: number[] = [];
  for (let i = 0; i < 5 && ids.length > 0; i++) {
    detailsAfter.push(await detailMs(ctx, ids[0]));
  }
  const documents = (await documentsAtSandbox(ctx)) - docsBefore;
  await ctx.db.query('CHECKPOINT');
  const growth = (await dbBytes(ctx)) - dbBefore;
  const fileStored = (await chunkBytes(ctx)) - chunksBefore;
  const tablesAfter = await Promise.all(TABLES.map((t) => tableBytes(ctx, t)));
  const [deadOperations] = (
    await ctx.db.query<{ dead: string; live: string }>(
      `SELECT n_dead_tup AS dead, n_live_tup AS live FROM pg_stat_user_tables WHERE relname = 'operation'`,
    )
  ).rows;
  for (const f of files) {
    rmSync(f.path, { force: true });
  }
  return {
    'size MiB': +(bytes / MiB).toFixed(1),
    files: COPIES,
    ASNs: asns,
    status: [...new Set(statuses)].join(','),
    'upload s': +(uploadMs / 1000).toFixed(1),
    'CLOSE ms': closeMs,
    'recorded s': +(recordedMs / 1000).toFixed(1),
    'translated s': +(translatedMs / 1000).toFixed(1),
    'settled s': +(settledMs / 1000).toFixed(1),
    'platform jobs': platform.jobs,
    'platform job s': +(platform.ms / 1000).toFixed(1),
    'own s (settled - platform jobs)': +((settledMs - platform.ms) / 1000).toFixed(1),
    'documents at sandbox': documents,
    'db growth MiB': +(growth / MiB).toFixed(1),
    'db / file': +(growth / bytes).toFixed(2),
    'file stored / file': +(fileStored / bytes).toFixed(2),
    ...Object.fromEntries(TABLES.map((t, i) => [`${t} MiB`, +((tablesAfter[i] - tablesBefore[i]) / MiB).toFixed(1)])),
    'operation rows live/dead': `${deadOperations?.live ?? '?'}/${deadOperations?.dead ?? '?'}`,
    'gateway peak RSS MiB': Math.round(peakRssMib(ctx.gatewayProcess.process.pid!)),
    'gateway RSS in upload MiB': Math.round(uploadPeak),
    'worker peak RSS MiB': Math.round(peakRssMib(ctx.workerProcess.process.pid!)),
    'gateway loop delay max ms': Math.round(lag.gateway),
    'worker loop delay max ms': Math.round(lag.worker),
    'gateway loop ran max ms': held.gateway.ranMs,
    'worker loop ran max ms': held.worker.ranMs,
    'gateway longest tick gap ms': held.gateway.delay,
    'worker longest tick gap ms': held.worker.delay,
    'detail ms during (median/max)': medianAndMax(detailsDuring),
    'detail ms after (median/max)': medianAndMax(detailsAfter),
  };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const dbName = `dockbridge_bench_${randomBytes(4).toString('hex')}`;
  const adminDb = new Client({ connectionString: POSTGRES_ADMIN_URL });
  await adminDb.connect();
  await adminDb.query(`CREATE DATABASE ${dbName}`);
  cleanups.push(async () => {
    if (env.KEEP_DB) {
      console.log(`database kept for inspection: ${dbName}`);
    } else {
      await adminDb.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    }
    await adminDb.end();
  });
  const dbUrl = new URL(POSTGRES_ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const prefix = `{dbbench-${randomBytes(4).toString('hex')}}`;
  const redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: 3 });
  cleanups.push(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) {
        await redis.unlink(...keys);
      }
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  });
  const dir = mkdtempSync(join(tmpdir(), 'dockbridge-large-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const largest = Math.max(...SIZES);
  writeFileSync(join(dir, 'default.yaml'), `sftp:\n  maxFileBytes: ${Math.max(256, largest + 16) * MiB}\n`);

  const [sandboxPort, gatewayPort, sftpPort, workerHealthPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const ctxUrls = { sandbox: `http://127.0.0.1:${sandboxPort}`, gateway: `http://127.0.0.1:${gatewayPort}` };
  const common = {
    CONFIG_DIR: dir,
    PARTNERS_DIR: dir,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL,
    REDIS_PREFIX: prefix,
    PLATFORM_BASE_URL: ctxUrls.sandbox,
    PLATFORM_TOKEN,
  };
  start('sandbox', 'apps/sandbox/src/main.js', {
    CONFIG_DIR: dir,
    SANDBOX_HOST: '127.0.0.1',
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_CONTROLS: 'on',
    SANDBOX_SEED: join(ROOT, 'config/sandbox.seed.json'),
  });
  await waitFor('sandbox', async () => (await fetch(`${ctxUrls.sandbox}/__sandbox/stats`)).status === 200);
  const gatewayHolding = loopHoldingFor(join(dir, 'gateway-loop.jsonl'));
  const workerHolding = loopHoldingFor(join(dir, 'worker-loop.jsonl'));
  const gatewayProcess = start(
    'gateway',
    'apps/gateway/src/main.js',
    {
      ...common,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      ADMIN_TOKEN,
      GATEWAY_WITH_WORKER: 'off',
      SFTP_ENABLED: 'on',
      SFTP_HOST: '127.0.0.1',
      SFTP_PORT: String(sftpPort),
      SFTP_HOST_KEY_PATH: join(dir, 'host_key'),
      SFTP_GENERATE_HOST_KEY: 'on',
      ...gatewayHolding.env,
    },
    // As deployed (Dockerfile, npm run gateway): a 32 MiB young generation.
    [
      ...(env.GATEWAY_NODE_ARGS ?? '--max-semi-space-size=32 --expose-gc').split(' ').filter(Boolean),
      ...gatewayHolding.nodeArgs,
    ],
  );
  const db = new Client({ connectionString: dbUrl.toString() });
  const ctx: Context = {
    ...ctxUrls,
    sftpPort,
    db,
    gatewayProcess,
    workerProcess: gatewayProcess,
    gatewayMetrics: `${ctxUrls.gateway}/metrics`,
    workerMetrics: `http://127.0.0.1:${workerHealthPort}/metrics`,
    gatewayLoopFile: gatewayHolding.env.LOOP_HOLDING_FILE,
    workerLoopFile: workerHolding.env.LOOP_HOLDING_FILE,
  };
  await waitFor('gateway', async () => (await admin(ctx, '/v1/admin/partners')).status === 200);
  ctx.workerProcess = start(
    'worker',
    'apps/worker/src/main.js',
    {
      ...common,
      DATABASE_MIGRATE_ON_START: 'off',
      WORKER_HEALTH_PORT: String(workerHealthPort),
      ...(env.WORKER_LARGE_FILES_AT_ONCE && { WORKER_LARGE_FILES_AT_ONCE: env.WORKER_LARGE_FILES_AT_ONCE }),
      ...workerHolding.env,
    },
    [...(env.WORKER_NODE_ARGS ?? '--max-old-space-size=192').split(' ').filter(Boolean), ...workerHolding.nodeArgs],
  );
  await waitFor('worker', async () => (await fetch(ctx.workerMetrics)).status === 200);
  await db.connect();
  cleanups.push(() => db.end());

  const profile = await admin(ctx, `/v1/admin/partners/${PARTNER}`, {
    method: 'PUT',
    body: JSON.stringify({
      name: 'Kettle Foods (bench)',
      locationOrganisationId: LOCATION,
      settings: {
        edi: { senderIds: ['KETTLE', 'KETTLESUPPLY'], coreName: 'ACME', locationCodes: ['DC01'] },
        directory: [{ scac: 'BLUE', organisation: { id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e11' } }],
      },
    }),
  });
  if (profile.status !== 200) {
    throw new Error(`PUT partner: ${profile.status} ${await profile.text()}`);
  }
  const user = await admin(ctx, `/v1/admin/partners/${PARTNER}/sftp-users`, {
    method: 'POST',
    body: JSON.stringify({ username: 'kettle', password: SFTP_PASSWORD }),
  });
  if (user.status !== 201) {
    throw new Error(`POST sftp-users: ${user.status} ${await user.text()}`);
  }
  await waitFor('sftp', async () => existsSync(join(dir, 'host_key')));

  console.log(
    `large files: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim()}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ` +
      `${LAYOUT ? `bench:x12's ${LAYOUT.title}` : `ASNs of ${ITEMS} items (S/O/I)`}, ${WRITES_IN_FLIGHT} writes of ${WRITE_BYTES / 1024} KiB in flight`,
  );
  const rows = [];
  for (const mib of SIZES) {
    const row = await runSize(ctx, mib, dir);
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  console.table(rows);
  const flat = rows.every((r) => Number(r['gateway peak RSS MiB']) <= TARGET_RSS_MIB);
  const close = rows.every((r) => Number(r['CLOSE ms']) <= TARGET_CLOSE_MS);
  console.log(
    `targets: gateway peak RSS <= ${TARGET_RSS_MIB} MiB at every size: ${flat ? 'met' : 'NOT met'}; ` +
      `worker: ${rows.every((r) => Number(r['worker peak RSS MiB']) <= TARGET_RSS_MIB) ? 'met' : 'NOT met'}; ` +
      `CLOSE <= ${TARGET_CLOSE_MS} ms: ${close ? 'met' : 'NOT met'}; ` +
      `gateway event loop held (ran between two ticks) <= ${TARGET_LOOP_MS} ms: ${rows.every((r) => Number(r['gateway loop ran max ms']) <= TARGET_LOOP_MS) ? 'met' : 'NOT met'}; ` +
      `worker: ${rows.every((r) => Number(r['worker loop ran max ms']) <= TARGET_LOOP_MS) ? 'met' : 'NOT met'}; ` +
      `loop delay (ran or waited for a core) <= ${TARGET_LOOP_MS} ms: gateway ${rows.every((r) => Number(r['gateway loop delay max ms']) <= TARGET_LOOP_MS) ? 'met' : 'NOT met'}, ` +
      `worker ${rows.every((r) => Number(r['worker loop delay max ms']) <= TARGET_LOOP_MS) ? 'met' : 'NOT met'}; ` +
      `detail <= ${TARGET_DETAIL_MS} ms: ${rows.every((r) => [r['detail ms during (median/max)'], r['detail ms after (median/max)']].every((d) => d === '-' || Number(String(d).split('/')[1]) <= TARGET_DETAIL_MS)) ? 'met' : 'NOT met'}`,
  );
  await finish(0);
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  void finish(1);
});
