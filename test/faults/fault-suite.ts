import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, TestDatabase, TEST_POSTGRES_ADMIN_URL } from '../support/database';
import { AppProcess, freePort, getJson } from '../support/processes';
import { PrivateRedis } from '../support/redis-server';
import { DEMO, DEMO_SEED_PATH } from '../support/sandbox';

/**
 * The fault suite: real processes (a sandbox, a gateway, two workers) on a private Redis and a
 * database of their own, clients that retry with Idempotency-Keys, and one fault per scenario.
 * Each scenario measures what a user would ask: was anything lost, stuck or duplicated, did any
 * document end on an older version, were all platform writes audited, and how long it took to drain.
 */

export interface Scale {
  name: 'ci' | 'full';
  /** Messages per scenario (the v1/v2 scenario sends this many pairs). */
  messages: number;
  /** How long the platform is down in the outage scenario. */
  platformDownMs: number;
  /** How long Postgres refuses connections. */
  postgresDownMs: number;
  /** How long Redis stays away before it comes back empty. */
  redisDownMs: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** The load is spread over this long, so that each fault strikes while messages arrive. */
  loadMs: number;
  /** Longest wait for every message to settle after the load ends. */
  drainTimeoutMs: number;
}

export const SCALES: Record<Scale['name'], Scale> = {
  ci: {
    name: 'ci',
    messages: 150,
    platformDownMs: 15_000,
    postgresDownMs: 10_000,
    redisDownMs: 3_000,
    concurrency: 12,
    loadMs: 6_000,
    drainTimeoutMs: 120_000,
  },
  full: {
    name: 'full',
    messages: 1_000,
    platformDownMs: 600_000,
    postgresDownMs: 30_000,
    redisDownMs: 5_000,
    concurrency: 16,
    loadMs: 20_000,
    drainTimeoutMs: 900_000,
  },
};

export interface Outcome {
  scenario: string;
  sent: number;
  accepted: number;
  delivered: number;
  failed: number;
  superseded: number;
  /** Not settled when the drain timeout ended. */
  stuck: number;
  /** Messages recorded twice for one client request (same document and version). */
  duplicateMessages: number;
  /** Document writes the platform carried out (its own count, answered or not). */
  platformWrites: number;
  /** Successful platform writes beyond one per delivered operation (timeouts whose write landed). */
  duplicateWrites: number;
  /** Platform writes no attempt row accounts for. */
  unauditedWrites: number;
  /** Documents whose platform copy is not the newest version accepted. */
  olderVersions: number;
  /** Client requests that never got a 2xx (given up after retrying for the scenario). */
  clientGaveUp: number;
  /** Platform requests the sandbox failed or held on purpose. */
  injectedFaults: number;
  /** From the first request to the last message settled. */
  drainMs: number;
}

const ADMIN_TOKEN = 'fault-suite-admin-token-0123456789';
const SECRETS_KEY = randomBytes(32).toString('base64');
const FINAL = ['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate', 'superseded'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FaultEnvironment {
  sandbox!: AppProcess;
  gateway!: AppProcess;
  workers: AppProcess[] = [];
  sandboxUrl = '';
  gatewayUrl = '';
  partnerKey = '';

  private constructor(
    readonly database: TestDatabase,
    readonly redis: PrivateRedis,
    private readonly prefix: string,
  ) {}

  static async start(workers = 2): Promise<FaultEnvironment> {
    const env = new FaultEnvironment(
      await createTestDatabase(),
      await PrivateRedis.start(),
      `{faults-${randomBytes(4).toString('hex')}}`,
    );
    const sandboxPort = await freePort();
    env.sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
    env.sandbox = new AppProcess('sandbox', {
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_CONTROLS: 'on',
      SANDBOX_SEED: DEMO_SEED_PATH,
    }).start();
    await env.sandbox.waitUntil(
      async () => (await getJson(`${env.sandboxUrl}/__sandbox/stats`)).status === 200,
      'sandbox up',
    );
    // The gateway first: it migrates the database, so the workers start on a complete schema.
    env.gatewayUrl = `http://127.0.0.1:${await freePort()}`;
    await env.startGateway();
    for (let i = 0; i < workers; i++) {
      env.workers.push(await env.startWorker());
    }
    await env.admin('PUT', '/v1/admin/partners/fault-wms', {
      name: 'Fault suite WMS',
      locationOrganisationId: DEMO.mainDc,
    });
    env.partnerKey = (await env.admin('POST', '/v1/admin/partners/fault-wms/api-keys', { label: 'fault suite' })).key;
    return env;
  }

  private common(): Record<string, string> {
    return {
      DATABASE_URL: this.database.url,
      DATABASE_POOL_SIZE: '10',
      REDIS_URL: this.redis.url,
      REDIS_PREFIX: this.prefix,
      PARTNERS_DIR: '/nonexistent',
      SECRETS_KEY,
      PLATFORM_BASE_URL: this.sandboxUrl,
      PLATFORM_TOKEN: DEMO.tokens.location,
      PLATFORM_TIMEOUT_MS: '2000',
      ADMIN_TOKEN,
      // Short waits so that a scenario heals in seconds, not in production's minutes.
      DELIVERY_BACKOFF_BASE_MS: '100',
      DELIVERY_BACKOFF_MAX_MS: '2000',
      DELIVERY_SWEEP_EVERY_MS: '2000',
      DELIVERY_SWEEP_STALE_MS: '10000',
      WORKER_JOB_LOCK_MS: '5000',
    };
  }

  async startGateway(): Promise<void> {
    const port = new URL(this.gatewayUrl).port;
    this.gateway = new AppProcess('gateway', {
      ...this.common(),
      GATEWAY_PORT: port,
      GATEWAY_HOST: '127.0.0.1',
      SFTP_ENABLED: 'false',
    }).start();
    await this.gateway.waitUntil(
      async () => (await getJson(`${this.gatewayUrl}/health`)).status === 200,
      'gateway healthy',
      120_000,
    );
  }

  async startWorker(): Promise<AppProcess> {
    const port = await freePort();
    const worker = new AppProcess('worker', {
      ...this.common(),
      WORKER_HEALTH_PORT: String(port),
      WORKER_QUEUE_PROBE_EVERY_MS: '500',
    }).start();
    await worker.waitUntil(
      async () => (await getJson(`http://127.0.0.1:${port}/health`)).status === 200,
      'worker healthy',
      120_000,
    );
    return worker;
  }

  /** Which processes exited on their own, with the end of their output. */
  died(): string {
    return [this.sandbox, this.gateway, ...this.workers]
      .filter((process) => process && !process.running)
      .map((process) => `${process.app}: ${process.output.slice(-2000)}`)
      .join('\n');
  }

  async admin(method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(this.gatewayUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) {
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    }
    return response.json();
  }

  async sandboxControl(method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(`${this.sandboxUrl}/__sandbox/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) {
      throw new Error(`sandbox ${path}: ${response.status} ${await response.text()}`);
    }
    return response.json();
  }

  /** Makes the database refuse every connection (existing ones ended) — Postgres down, as the processes see it — until `up`. */
  async postgresDown(): Promise<void> {
    const name = new URL(this.database.url).pathname.slice(1);
    await withAdmin((client) => client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`));
    await withAdmin((client) =>
      client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [name],
      ),
    );
  }

  async postgresUp(): Promise<void> {
    const name = new URL(this.database.url).pathname.slice(1);
    await withAdmin((client) => client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
  }

  async query<T = any>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.database.url });
    await client.connect();
    try {
      return (await client.query(sql, parameters)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([this.gateway?.kill(), ...this.workers.map((worker) => worker.kill()), this.sandbox?.kill()]);
    await this.redis.down();
    await this.postgresUp().catch(() => undefined);
    await this.database.drop();
  }
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** One client request: a document at a version, sent until a 2xx (same Idempotency-Key each time), as a careful partner would. */
interface Request {
  documentId: string;
  version: number;
}

const documentBody = ({ documentId, version }: Request) =>
  JSON.stringify({
    operations: [
      {
        kind: 'document.upsert',
        organisationId: DEMO.mainDc,
        document: {
          id: documentId,
          direction: 'Inbound',
          occupant: { coreName: 'ACME', coreId: 'DC01' },
          offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' },
          carrier: { coreName: 'SCAC', coreId: 'FFRT' },
          loads: [{ name: 'Pallet', quantity: version }],
          type: { name: 'PurchaseOrder' },
        },
      },
    ],
  });

/** Sends until the gateway answers 2xx; gives up after `giveUpMs` (counted, never silently). */
async function sendUntilAccepted(env: FaultEnvironment, request: Request, giveUpMs: number): Promise<string | null> {
  const deadline = Date.now() + giveUpMs;
  const key = `${request.documentId}-v${request.version}`;
  for (let wait = 100; Date.now() < deadline; wait = Math.min(wait * 2, 2000)) {
    try {
      const response = await fetch(`${env.gatewayUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': env.partnerKey, 'content-type': 'application/json', 'idempotency-key': key },
        body: documentBody(request),
        signal: AbortSignal.timeout(10_000),
      });
      if (response.ok) {
        return ((await response.json()) as { messageId: string }).messageId;
      }
      if (response.status < 500 && response.status !== 429) {
        throw new Error(`${key}: ${response.status} ${await response.text()}`);
      }
    } catch (error) {
      // By name: under Jest, fetch's TypeError comes from another realm than the test's.
      if (!['TypeError', 'TimeoutError'].includes((error as Error).name)) {
        throw error;
      }
      // Connection refused or reset (the gateway is down): try again, with the same key.
    }
    await sleep(wait);
  }
  return null;
}

export interface ScenarioSpec {
  name: string;
  /** Send v1 then, once accepted, v2 of each document (newest write wins under faults). */
  pairs?: boolean;
  /** Sandbox fault rules in force while the load runs. */
  faults?: unknown[];
  /** The fault, started when the load starts; resolves when it has healed (with the platform requests it failed, if any). */
  during?: (env: FaultEnvironment, scale: Scale) => Promise<number | void>;
}

/** Runs one scenario on a running environment and measures it. */
export async function runScenario(env: FaultEnvironment, spec: ScenarioSpec, scale: Scale): Promise<Outcome> {
  await env.sandboxControl('POST', 'reset');
  if (spec.faults) {
    await env.sandboxControl('POST', 'faults', { rules: spec.faults });
  }
  const tag = `${spec.name.replace(/[^a-z0-9]+/gi, '-')}-${randomBytes(3).toString('hex')}`;
  const documents = Array.from({ length: scale.messages }, (_, i) => `${tag}-${i}`);
  const started = Date.now();
  const giveUpMs = scale.drainTimeoutMs;
  const accepted: string[] = [];
  let sent = 0;
  let gaveUp = 0;

  const fault = spec.during ? spec.during(env, scale) : Promise.resolve();
  let next = 0;
  const interval = scale.loadMs / documents.length;
  const client = async () => {
    while (next < documents.length) {
      const index = next++;
      const documentId = documents[index];
      await sleep(started + index * interval - Date.now());
      for (const version of spec.pairs ? [1, 2] : [1]) {
        sent++;
        const id = await sendUntilAccepted(env, { documentId, version }, giveUpMs);
        if (id) {
          accepted.push(id);
        } else {
          gaveUp++;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: scale.concurrency }, client)).catch((error: Error) => {
    throw new Error(`${error.message}; processes that died: ${env.died()}`);
  });
  const injectedDuring = (await fault) ?? 0;
  if (env.died()) {
    throw new Error(`${spec.name}: processes died: ${env.died()}`);
  }
  // Faults stay until the load has ended; then the platform is healthy again and the backlog drains.
  const rules: { hits: number }[] = (await env.sandboxControl('GET', 'faults')).rules;
  const injectedFaults = rules.reduce((sum, rule) => sum + rule.hits, 0) + injectedDuring;
  await env.sandboxControl('DELETE', 'faults');

  // Drain: every accepted message settled, or the timeout.
  const pattern = `${tag}-%`;
  const statuses = async () =>
    env.query<{ status: string; count: number }>(
      `SELECT status, count(*)::int AS count FROM message WHERE idempotency_key LIKE $1 GROUP BY status`,
      [`api:${pattern}`],
    );
  let counts: Record<string, number> = {};
  const drainDeadline = Date.now() + scale.drainTimeoutMs;
  for (;;) {
    counts = Object.fromEntries((await statuses().catch(() => [])).map((row) => [row.status, row.count]));
    const unsettled = Object.entries(counts)
      .filter(([status]) => !FINAL.includes(status))
      .reduce((sum, [, n]) => sum + n, 0);
    if ((unsettled === 0 && Object.keys(counts).length > 0) || Date.now() > drainDeadline) {
      break;
    }
    await sleep(250);
  }
  const drainMs = Date.now() - started;
  const count = (...names: string[]) => names.reduce((sum, name) => sum + (counts[name] ?? 0), 0);
  const stuck = Object.entries(counts)
    .filter(([status]) => !FINAL.includes(status))
    .reduce((sum, [, n]) => sum + n, 0);

  const [{ duplicates }] = await env.query<{ duplicates: number }>(
    `SELECT coalesce(sum(n - 1), 0)::int AS duplicates FROM (
       SELECT count(*) AS n FROM message WHERE idempotency_key LIKE $1
        GROUP BY raw_payload::jsonb #>> '{operations,0,document,id}', raw_payload::jsonb #>> '{operations,0,document,loads,0,quantity}') t`,
    [`api:${pattern}`],
  );
  const [ops] = await env.query<{ delivered: number; possible: number }>(
    `SELECT count(*) FILTER (WHERE o.status = 'delivered')::int AS delivered,
            (SELECT count(*) FROM attempt a JOIN operation p ON p.id = a.operation_id JOIN message n ON n.id = p.message_id
              WHERE n.idempotency_key LIKE $1 AND (a.outcome IN ('success', 'interrupted') OR (a.outcome = 'retryable' AND a.http_status IS NULL)))::int AS possible
       FROM operation o JOIN message m ON m.id = o.message_id WHERE m.idempotency_key LIKE $1`,
    [`api:${pattern}`],
  );
  const stats = await env.sandboxControl('GET', 'stats');
  // Counted by the platform as carried out, answered or not (a timed-out write that landed counts).
  const writes: number = stats.documentWrites?.[DEMO.mainDc] ?? 0;

  // Newest version accepted per document, against what the platform holds.
  const newest = spec.pairs ? 2 : 1;
  let olderVersions = 0;
  for (let i = 0; i < documents.length; i += 50) {
    const slice = documents.slice(i, i + 50);
    const found = await Promise.all(
      slice.map(async (id) => {
        const response = await fetch(`${env.sandboxUrl}/api/v2/organisations/${DEMO.mainDc}/documents/${id}`, {
          headers: { authorization: `Bearer ${DEMO.tokens.location}` },
        });
        return response.ok
          ? ((await response.json()) as { loads?: { quantity: number }[] }).loads?.[0]?.quantity
          : undefined;
      }),
    );
    olderVersions += found.filter((version) => version !== undefined && version < newest).length;
  }

  return {
    scenario: spec.name,
    sent,
    accepted: accepted.length,
    delivered: count('delivered'),
    failed: count('failed', 'partially_failed', 'rejected'),
    superseded: count('superseded'),
    stuck,
    duplicateMessages: duplicates,
    platformWrites: writes,
    duplicateWrites: Math.max(0, writes - ops.delivered),
    unauditedWrites: Math.max(0, writes - ops.possible),
    olderVersions,
    clientGaveUp: gaveUp,
    injectedFaults,
    drainMs,
  };
}

const at = (ms: number) => sleep(ms);

/** The scenarios of issue 13's "Done when", in order. */
export const SCENARIOS: ScenarioSpec[] = [
  { name: 'baseline' },
  {
    name: '30% 502 and timeouts',
    faults: [
      // Answered after the 2 s client timeout: the write lands, the caller does not know.
      { method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 0, answerLatencyMs: 2500, rate: 0.05 },
      { method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 502, rate: 0.3 },
    ],
  },
  {
    name: 'platform down, then back',
    async during(env, scale) {
      await env.sandboxControl('POST', 'faults', {
        rules: [{ path: '/api/v2/organisations/*/documents/*', status: 503 }],
      });
      await at(scale.platformDownMs);
      const { rules } = await env.sandboxControl('GET', 'faults');
      await env.sandboxControl('DELETE', 'faults');
      return (rules as { hits: number }[]).reduce((sum, rule) => sum + rule.hits, 0);
    },
  },
  {
    name: 'kill -9 of a worker',
    async during(env) {
      await at(1500);
      await env.workers[0].kill();
      await at(2000);
      env.workers[0] = await env.startWorker();
    },
  },
  {
    name: 'kill -9 of the gateway (clients retry with Idempotency-Key)',
    async during(env) {
      await at(1500);
      await env.gateway.kill();
      await at(2000);
      await env.startGateway();
    },
  },
  {
    name: 'Redis restarted empty',
    async during(env, scale) {
      await at(1500);
      await env.redis.down();
      await at(scale.redisDownMs);
      await env.redis.up();
    },
  },
  {
    name: 'Postgres down',
    async during(env, scale) {
      await at(1500);
      await env.postgresDown();
      await at(scale.postgresDownMs);
      await env.postgresUp();
    },
  },
  {
    name: 'v1/v2 pairs under 30% 502, 2 workers',
    pairs: true,
    faults: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 502, rate: 0.3 }],
  },
];

/** A Markdown table of outcomes, for docs/reliability.md. */
export function table(outcomes: Outcome[]): string {
  const columns: (keyof Outcome)[] = [
    'scenario',
    'sent',
    'accepted',
    'delivered',
    'failed',
    'superseded',
    'stuck',
    'duplicateMessages',
    'platformWrites',
    'duplicateWrites',
    'unauditedWrites',
    'olderVersions',
    'clientGaveUp',
    'injectedFaults',
    'drainMs',
  ];
  const lines = [`| ${columns.join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`];
  for (const outcome of outcomes) {
    lines.push(
      `| ${columns.map((column) => (column === 'drainMs' ? `${(outcome.drainMs / 1000).toFixed(1)} s` : String(outcome[column]))).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
