import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from './support/database';
import { AppProcess, freePort, getJson } from './support/processes';
import { LocalRedisCluster } from './support/redis-cluster';
import { PrivateRedis } from './support/redis-server';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

const document = (id: string) => ({
  id,
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' },
  carrier: { coreName: 'SCAC', coreId: 'FFRT' },
  loads: [{ name: 'Pallet', quantity: 1 }],
  type: { name: 'PurchaseOrder' },
});

/** The environment of a worker process on `database` and `redisUrl`, with its /health on `healthPort`. */
const workerEnv = (database: TestDatabase, redisUrl: string, prefix: string, healthPort: number) => ({
  DATABASE_URL: database.url,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: prefix,
  PARTNERS_DIR: '/nonexistent',
  SECRETS_KEY_PATH: join(tmpdir(), 'dockbridge-test-secrets.key'),
  PLATFORM_BASE_URL: 'http://127.0.0.1:9',
  WORKER_HEALTH_PORT: String(healthPort),
  WORKER_QUEUE_PROBE_EVERY_MS: '200',
  LOG_LEVEL: 'info',
});

describe('a worker that cannot reach its queues says so and fails its health', () => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  let worker: AppProcess | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    redis = await PrivateRedis.start();
  });
  afterAll(async () => {
    await worker?.kill();
    await redis?.down();
    await database?.drop();
  });

  it('answers 200 while Redis works, 503 with the reason while it is away (logged), and 200 once it is back', async () => {
    const port = await freePort();
    worker = new AppProcess(
      'worker',
      workerEnv(database, redis.url, `{dbtest-${randomBytes(4).toString('hex')}}`, port),
    ).start();
    const health = () => getJson(`http://127.0.0.1:${port}/health`);
    await worker.waitUntil(async () => (await health()).status === 200, 'health 200');
    await redis.down();
    await worker.waitUntil(async () => (await health()).status === 503, 'health 503 with Redis down', 20_000);
    expect((await health()).body).toMatchObject({
      status: 'error',
      queues: { up: false, downSince: expect.any(String), error: expect.any(String) },
    });
    await worker.waitUntil(async () => worker!.output.includes('queues unreachable'), 'the outage logged', 10_000);
    await redis.up();
    await worker.waitUntil(async () => (await health()).status === 200, 'health 200 again', 30_000);
    await worker.waitUntil(
      async () => worker!.output.includes('queues reachable again'),
      'the recovery logged',
      10_000,
    );
  }, 120_000);
});

describe('Redis Cluster (three local masters)', () => {
  let cluster: LocalRedisCluster;
  let spine: Spine;
  let prefix: string;
  beforeAll(async () => {
    cluster = await LocalRedisCluster.start();
    prefix = `{dbtest-${randomBytes(4).toString('hex')}}`;
    spine = await startSpine({
      'redis.url': `redis://127.0.0.1:${cluster.ports[0]}`,
      'redis.clusterNodes': cluster.nodes,
      'redis.prefix': prefix,
      // An enqueue refused mid-migration (TRYAGAIN) leaves its message to the sweeper: sweep often here.
      'delivery.sweepEveryMs': 1000,
      'delivery.sweepStaleMs': 2000,
    });
  }, 60_000);
  afterAll(async () => {
    await spine?.close();
    await cluster?.stop();
  });

  const send = async (tag: string, count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const response = await spine.call('POST', '/v1/messages', {
        body: {
          operations: [0, 1].map((j) => ({
            kind: 'document.upsert',
            organisationId: DEMO.mainDc,
            document: document(`${tag}-${i}-${j}`),
          })),
        },
      });
      expect(response.status).toBe(202);
      ids.push((await response.json()).messageId);
    }
    return ids;
  };

  it('delivers through a cluster, and keeps delivering while the queues’ slot moves to another node', async () => {
    const before = await send('C', 20);
    for (const id of before) {
      expect(await spine.waitForStatus(id, ['delivered', 'failed'])).toBe('delivered');
    }
    expect((await spine.call('GET', '/health', { auth: null })).status).toBe(200);

    const owner = await cluster.ownerOf(`${prefix}:deliver:id`);
    const target = cluster.ports.find((port) => port !== owner)!;
    const [during] = await Promise.all([send('R', 40), cluster.moveSlotOf(`${prefix}:deliver:id`, target)]);
    expect(await cluster.ownerOf(`${prefix}:deliver:id`)).toBe(target);
    const after = await send('A', 10);
    for (const id of [...during, ...after]) {
      expect(await spine.waitForStatus(id, ['delivered', 'failed'], 60_000)).toBe('delivered');
    }
    const stats = await (await spine.sandbox.call('GET', '/__sandbox/stats', { token: null })).json();
    expect(stats.documents[DEMO.mainDc]).toBeGreaterThanOrEqual(140);
    expect((await spine.call('GET', '/health', { auth: null })).status).toBe(200);
  }, 180_000);

  it('a worker given one node as a plain Redis fails its health, saying why, once the slot moves away', async () => {
    const database = await createTestDatabase();
    const ownPrefix = `{dbtest-${randomBytes(4).toString('hex')}}`;
    const owner = await cluster.ownerOf(`${ownPrefix}:x`);
    const port = await freePort();
    const worker = new AppProcess('worker', workerEnv(database, `redis://127.0.0.1:${owner}`, ownPrefix, port)).start();
    try {
      const health = () => getJson(`http://127.0.0.1:${port}/health`);
      await worker.waitUntil(async () => (await health()).status === 200, 'health 200');
      // The same port serves what the worker counted, for Prometheus.
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await metrics.text()).toMatch(/^dockbridge_process_resident_memory_bytes \d+/m);
      await cluster.moveSlotOf(
        `${ownPrefix}:x`,
        cluster.ports.find((p) => p !== owner)!,
      );
      await worker.waitUntil(async () => (await health()).status === 503, 'health 503 after the reshard', 20_000);
      // ASK while the slot migrates, MOVED once it has: either way the node no longer serves the queues.
      expect((await health()).body.queues.error).toMatch(/MOVED|ASK/);
      await worker.waitUntil(async () => worker.output.includes('queues unreachable'), 'the failure logged', 10_000);
    } finally {
      await worker.kill();
      await database.drop();
    }
  }, 120_000);
});
