/**
 * One large `POST /v1/edi` to a gateway process: the gateway's peak RSS while it receives the body
 * (streamed into partner_file_chunk as it arrives, like an SFTP upload), the time to its 202, and
 * how long after the last byte the 202 came. The gateway runs alone (no worker: translation is
 * large-file.bench.ts's part) as a `node dist/...` child on a fresh Postgres database and a private
 * Redis prefix, with MALLOC_MMAP_THRESHOLD_=131072 as deployed.
 *
 *   npm run build && node dist/bench/http-edi-upload.bench.js
 *
 * Environment (all optional): SIZE_MIB=100, ITEMS=40 (items per ASN),
 * BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres, BENCH_REDIS_URL=redis://127.0.0.1:6379,
 * GATEWAY_NODE_ARGS (node flags of the gateway), GATEWAY_BODY_LIMIT_BYTES (passed on), KEEP_LOGS=1.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { writeAsnFile } from './asn-file';
import { freePort, waitFor } from './processes';
import { createScratchDatabase } from './scratch-database';

const ROOT = join(__dirname, '../..');
const DIST = join(__dirname, '..');
const MiB = 1024 * 1024;
const env = process.env;
const SIZE_MIB = Number(env.SIZE_MIB ?? 100);
const ITEMS = Number(env.ITEMS ?? 40);
const REDIS_URL = env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
const PARTNER = 'kettle-foods';
const LOCATION = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';

const status = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** POSTs the file (its length declared); answers the status, the body, and when the last byte went and the answer came. */
function post(url: string, key: string, path: string, size: number) {
  return new Promise<{ status: number; body: string; lastByteAt: number; answeredAt: number }>((resolve, reject) => {
    let lastByteAt = 0;
    const request = httpRequest(url, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/edi-x12', 'content-length': size },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          body: Buffer.concat(parts).toString(),
          lastByteAt,
          answeredAt: Date.now(),
        }),
      );
    });
    const file = createReadStream(path, { highWaterMark: 256 * 1024 });
    file.on('end', () => (lastByteAt = Date.now()));
    file.pipe(request);
  });
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  let gateway: ChildProcess | undefined;
  const output: string[] = [];
  try {
    const database = await createScratchDatabase('dockbridge_bench_http_upload');
    cleanups.push(() => database.drop());
    const prefix = `{dbbench-${randomBytes(4).toString('hex')}}`;
    cleanups.push(async () => {
      const redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: 3 });
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) {
        await redis.unlink(...keys);
      }
      redis.disconnect();
    });
    const dir = mkdtempSync(join(tmpdir(), 'dockbridge-http-upload-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'default.yaml'), `sftp:\n  maxFileBytes: ${(SIZE_MIB + 16) * MiB}\n`);
    const file = join(dir, 'upload.edi');
    const { bytes: size } = await writeAsnFile(file, SIZE_MIB, ITEMS);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    gateway = spawn(
      process.execPath,
      [...(env.GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean), join(DIST, 'apps/gateway/src/main.js')],
      {
        cwd: ROOT,
        env: {
          PATH: env.PATH ?? '',
          LOG_LEVEL: 'warn',
          MALLOC_MMAP_THRESHOLD_: '131072',
          CONFIG_DIR: dir,
          PARTNERS_DIR: dir,
          DATABASE_URL: database.url,
          REDIS_URL,
          REDIS_PREFIX: prefix,
          PLATFORM_BASE_URL: 'http://127.0.0.1:9',
          PLATFORM_TOKEN: 'unused',
          GATEWAY_HOST: '127.0.0.1',
          GATEWAY_PORT: String(port),
          ADMIN_TOKEN,
          GATEWAY_WITH_WORKER: 'off',
          SFTP_ENABLED: 'off',
          // Passed on to measure a gateway that took the body whole (before streaming, under this limit).
          ...(env.GATEWAY_BODY_LIMIT_BYTES && { GATEWAY_BODY_LIMIT_BYTES: env.GATEWAY_BODY_LIMIT_BYTES }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const child = gateway;
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const admin = (path: string, init: RequestInit = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      });
    await waitFor('gateway', async () => (await admin('/v1/admin/partners')).status === 200);
    const profile = await admin(`/v1/admin/partners/${PARTNER}`, {
      method: 'PUT',
      body: JSON.stringify({
        name: 'Kettle Foods (bench)',
        locationOrganisationId: LOCATION,
        settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
      }),
    });
    if (profile.status !== 200) {
      throw new Error(`PUT partner: ${profile.status} ${await profile.text()}`);
    }
    const issued = await admin(`/v1/admin/partners/${PARTNER}/api-keys`, {
      method: 'POST',
      body: JSON.stringify({ label: 'bench' }),
    });
    const { key } = (await issued.json()) as { key: string };

    await sleep(2000); // start-up settles
    const pid = child.pid!;
    const atRest = status(pid, 'VmRSS');
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // VmHWM from here
    let sampled = 0;
    const sampler = setInterval(() => (sampled = Math.max(sampled, status(pid, 'VmRSS'))), 50);
    const started = Date.now();
    const answer = await post(`${url}/v1/edi?fileName=bench-${SIZE_MIB}mib.edi`, key, file, size).finally(() =>
      clearInterval(sampler),
    );
    const peak = status(pid, 'VmHWM');
    if (answer.status !== 202) {
      throw new Error(`POST /v1/edi: ${answer.status} ${answer.body}`);
    }
    const { messageId } = JSON.parse(answer.body) as { messageId: string };
    const db = new Client({ connectionString: database.url });
    await db.connect();
    const [stored] = (
      await db.query<{ chunks: string; raw: string }>(
        `SELECT (SELECT count(*) FROM partner_file_chunk WHERE file_id = (m.metadata->>'payloadFile')::uuid) AS chunks,
                length(m.raw_payload) AS raw
           FROM message m WHERE m.id = $1`,
        [messageId],
      )
    ).rows;
    await db.end();

    console.log(
      `http-edi upload: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim()}, ` +
        `${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    console.table([
      {
        'size MiB': +(size / MiB).toFixed(1),
        'upload s': +((answer.answeredAt - started) / 1000).toFixed(1),
        '202 after last byte ms': answer.answeredAt - answer.lastByteAt,
        chunks: Number(stored.chunks),
        'raw_payload chars': Number(stored.raw),
        'gateway RSS at rest MiB': Math.round(atRest),
        'gateway peak RSS MiB (VmHWM)': Math.round(peak),
        'gateway RSS sampled max MiB': Math.round(sampled),
      },
    ]);
  } finally {
    gateway?.kill('SIGTERM');
    await sleep(500);
    if (env.KEEP_LOGS) {
      console.log(output.join(''));
    }
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve()
        .then(cleanup)
        .catch((error: Error) => console.error(`cleanup: ${error.message}`));
    }
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
