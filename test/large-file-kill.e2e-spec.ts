import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import SftpClient from 'ssh2-sftp-client';
import { dropRedisKeys } from './support/redis-keys';
import { createTestDatabase, TestDatabase } from './support/database';
import { AppProcess, freePort, getJson, processEnv, startSandboxProcess } from './support/processes';
import { DEMO } from './support/sandbox';

/**
 * A large 856 over SFTP to real processes whose V8 heap is capped, the worker killed (-9) half-way
 * through translating it: a new worker starts the translation again and every ASN reaches the
 * platform exactly once. CI runs it at LARGE_FILE_MIB=16 (about 40 s, with the dead worker's job
 * taken up after 5-10 s: WORKER_JOB_LOCK_MS); at LARGE_FILE_MIB=400 the file is
 * three times the heap limit (about ten minutes on a 2-core machine).
 */
const FILE_MIB = Number(process.env.LARGE_FILE_MIB ?? 16);
const HEAP_MIB = 128;
const ADMIN_TOKEN = 'large-file-admin-token-0123456789';
const PASSWORD = 'large-file-sftp-password-0123';
const ITEMS_PER_ASN = 10;

/** One interchange of ASNs (S/O/I, ITEMS_PER_ASN items each) of about `mib` MiB; and how many. */
function asnFile(mib: number): { content: Buffer; asns: number } {
  const lines = [
    'ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*000000777*0*T*>',
    'GS*SH*KETTLE*ACMEDC*20261120*0830*777*X*004010',
  ];
  let bytes = 0;
  let asns = 0;
  while (bytes < mib * 1024 * 1024) {
    asns++;
    const st = String(asns).padStart(9, '0');
    const set = [
      `ST*856*${st}`,
      `BSN*00*ASN-${asns}*20261201*1200`,
      'HL*1**S',
      'TD5*O*2*FFRT',
      'N1*SF*Kettle Foods*92*SUP-KETTLE',
      'N1*ST*Main DC*92*DC01',
      'HL*2*1*O',
      `PRF*PO-${asns}`,
    ];
    for (let i = 0; i < ITEMS_PER_ASN; i++) {
      set.push(`HL*${i + 3}*2*I`, `LIN**SK*SKU-${i}`, `SN1**${i + 1}*EA`);
    }
    set.push(`SE*${set.length + 1}*${st}`);
    lines.push(...set);
    bytes += set.join('~\n').length + 2;
  }
  lines.push(`GE*${asns}*777`, 'IEA*1*000000777', '');
  return { content: Buffer.from(lines.join('~\n')), asns };
}

describe(`a ${FILE_MIB} MiB 856 through processes with a ${HEAP_MIB} MiB heap, the worker killed half-way`, () => {
  let database: TestDatabase;
  let dir: string;
  let db: Client;
  const processes: AppProcess[] = [];
  let common: Record<string, string>;
  let sandboxUrl: string;
  let gatewayUrl: string;
  let sftpPort: number;

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(gatewayUrl + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.ok).toBe(true);
    return response.json();
  };

  const startWorker = async () => {
    const port = await freePort();
    const worker = new AppProcess('worker', {
      ...common,
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`,
      WORKER_HEALTH_PORT: String(port),
    }).start();
    processes.push(worker);
    await worker.waitUntil(async () => (await getJson(`http://127.0.0.1:${port}/health`)).status === 200, 'worker up');
    return worker;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'dockbridge-kill-'));
    const sandbox = await startSandboxProcess();
    processes.push(sandbox.process);
    sandboxUrl = sandbox.url;
    common = {
      ...processEnv(database.url, sandboxUrl, 'kill', ADMIN_TOKEN),
      DELIVERY_SWEEP_EVERY_MS: '2000',
      DELIVERY_SWEEP_STALE_MS: '5000',
      // The dead worker's translation is taken up after 5-10 s, not production's 30-60.
      WORKER_JOB_LOCK_MS: '5000',
    };
    gatewayUrl = `http://127.0.0.1:${await freePort()}`;
    sftpPort = await freePort();
    const gateway = new AppProcess('gateway', {
      ...common,
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: new URL(gatewayUrl).port,
      GATEWAY_WITH_WORKER: 'off',
      SFTP_ENABLED: 'on',
      SFTP_HOST: '127.0.0.1',
      SFTP_PORT: String(sftpPort),
      SFTP_HOST_KEY_PATH: join(dir, 'host_key'),
      SFTP_GENERATE_HOST_KEY: 'on',
      SFTP_MAX_FILE_BYTES: String((FILE_MIB + 16) * 1024 * 1024),
    }).start();
    processes.push(gateway);
    await gateway.waitUntil(async () => (await getJson(`${gatewayUrl}/health`)).status === 200, 'gateway', 120_000);
    await admin('PUT', '/v1/admin/partners/kettle', {
      name: 'Kettle Foods',
      locationOrganisationId: DEMO.mainDc,
      settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
    });
    await admin('POST', '/v1/admin/partners/kettle/sftp-users', { username: 'kettle', password: PASSWORD });
    db = new Client({ connectionString: database.url });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all(processes.map((p) => p.kill()));
    await database?.drop();
    await dropRedisKeys(common?.REDIS_PREFIX ?? '{kill-never-started}');
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers every ASN exactly once', async () => {
    const { content, asns } = asnFile(FILE_MIB);
    let worker = await startWorker();
    const client = new SftpClient();
    await client.connect({ host: '127.0.0.1', port: sftpPort, username: 'kettle', password: PASSWORD });
    try {
      await client.put(content, '/inbound/big.856');
    } finally {
      await client.end();
    }
    const messageId = async () =>
      (await db.query(`SELECT id FROM message WHERE metadata->>'fileName' = 'big.856'`)).rows[0]?.id as string;
    const stored = async () =>
      Number(
        (await db.query(`SELECT count(*) AS n FROM operation WHERE message_id = $1`, [await messageId()])).rows[0].n,
      );
    // Half-way through the translation: a third of the ASNs stored, the message not yet delivering.
    await worker.waitUntil(async () => (await stored()) >= asns / 3, 'a third of the ASNs stored', 300_000);
    const status = async () =>
      (await db.query(`SELECT status FROM message WHERE id = $1`, [await messageId()])).rows[0].status as string;
    expect(await status()).toBe('translating');
    await worker.kill();

    worker = await startWorker();
    await worker.waitUntil(
      async () => ['delivered', 'partially_failed', 'failed'].includes(await status()),
      'the message settled',
      600_000,
    );
    expect(await status()).toBe('delivered');
    expect(await stored()).toBe(asns);
    // Each document went to the platform once: the jobs carried asns documents in all, and the platform holds asns.
    const jobs = (await (
      await fetch(`${sandboxUrl}/api/v2/organisations/${DEMO.mainDc}/document-jobs/`, {
        headers: { authorization: `Bearer ${DEMO.tokens.location}` },
      })
    ).json()) as { documentCount: number }[];
    expect(jobs.reduce((sum, job) => sum + job.documentCount, 0)).toBe(asns);
    const stats = (await (await fetch(`${sandboxUrl}/__sandbox/stats`)).json()) as {
      documents: Record<string, number>;
    };
    expect(stats.documents[DEMO.mainDc]).toBe(asns);
    const attempts = await db.query(
      `SELECT count(*) FILTER (WHERE a.outcome = 'success') AS ok, count(DISTINCT o.id) AS ops
       FROM operation o JOIN attempt a ON a.operation_id = o.id WHERE o.message_id = $1`,
      [await messageId()],
    );
    expect(Number(attempts.rows[0].ok)).toBe(asns);
  }, 900_000);
});
