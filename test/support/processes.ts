import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createTestDatabase } from './database';
import { dropRedisKeys } from './redis-keys';
import { DEMO, DEMO_SEED_PATH } from './sandbox';

const ROOT = join(__dirname, '..', '..');

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Every child still running: killed when this process exits, however it exits, so none outlives its run. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) {
    child.kill('SIGKILL');
  }
});

/**
 * One dockbridge role (`apps/<app>/src/main.ts`) as a real process, run from the TypeScript sources
 * (test/support/child/ts-register.js), with only the environment given (no config files).
 */
export class AppProcess {
  output = '';
  private child?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    readonly app: 'gateway' | 'worker' | 'sandbox',
    readonly env: Record<string, string>,
  ) {}

  start(): this {
    // From dist/ when asked (`npm run faults` builds first): a snapshot, so editing the sources during a long run changes no restarted process.
    const args =
      process.env.DOCKBRIDGE_FROM_DIST === '1'
        ? [`dist/apps/${this.app}/src/main.js`]
        : ['-r', './test/support/child/ts-register.js', `apps/${this.app}/src/main.ts`];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', CONFIG_DIR: '/nonexistent', LOG_LEVEL: 'warn', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Only the tail is kept: a long run must not grow the test's memory.
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-200_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    running.add(child);
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        running.delete(child);
        resolve();
      }),
    );
    this.child = child;
    return this;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** `kill -9`: no shutdown hook runs. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.running) {
      return;
    }
    this.child!.kill(signal);
    await this.exited;
  }

  /** Polls `check` until it holds; fails with the process's output when it does not within `timeoutMs`. */
  async waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) {
        return;
      }
      if (this.child && !this.running) {
        throw new Error(`${this.app} exited while waiting for ${what}: ${this.output.slice(-3000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${this.app}: ${what} not within ${timeoutMs} ms; output: ${this.output.slice(-3000)}`);
  }
}

/** GET a URL; the status and parsed JSON body (null when not JSON), or status 0 when nothing answered. */
export async function getJson(url: string): Promise<{ status: number; body: any }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body };
  } catch {
    return { status: 0, body: null };
  }
}

/** A sandbox process on a free port, seeded with the demo (config/sandbox.seed.json), its controls on. */
export async function startSandboxProcess(): Promise<{ process: AppProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const sandbox = new AppProcess('sandbox', {
    SANDBOX_PORT: String(port),
    SANDBOX_CONTROLS: 'on',
    SANDBOX_SEED: DEMO_SEED_PATH,
  }).start();
  try {
    await sandbox.waitUntil(async () => (await getJson(`${url}/__sandbox/stats`)).status === 200, 'sandbox');
  } catch (error) {
    await sandbox.kill();
    throw error;
  }
  return { process: sandbox, url };
}

/** What the dockbridge processes of one test share: its database, a Redis prefix of its own, the sandbox as platform. */
export function processEnv(
  databaseUrl: string,
  sandboxUrl: string,
  prefix: string,
  adminToken: string,
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `{${prefix}-${randomBytes(4).toString('hex')}}`,
    PARTNERS_DIR: '/nonexistent',
    SECRETS_KEY: randomBytes(32).toString('base64'),
    PLATFORM_BASE_URL: sandboxUrl,
    PLATFORM_TOKEN: DEMO.tokens.location,
    ADMIN_TOKEN: adminToken,
  };
}

/** Sandbox, gateway and worker as processes of their own (processPipeline), and how to reach them. */
export interface ProcessPipeline {
  gatewayUrl: string;
  sandboxUrl: string;
  worker: AppProcess;
  /** fetch against the gateway, as the admin (bearer `adminToken`) or with the headers given. */
  call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Response>;
  /** An admin call that must succeed; its JSON. */
  admin(method: string, path: string, body?: unknown): Promise<any>;
  /** Kills them all and removes the database and Redis keys. */
  stop(): Promise<void>;
}

/**
 * A fresh database, the sandbox, a gateway without a worker (SFTP off) and a worker with a heap
 * limit, each its own process, as deployed; `env` is added to gateway's and worker's. The worker
 * takes WORKER_TEXT_BYTES_AT_ONCE from this test's environment when set (to show what a budget saves).
 */
export async function processPipeline(
  name: string,
  adminToken: string,
  options: { heapMiB: number; env?: Record<string, string> },
): Promise<ProcessPipeline> {
  const database = await createTestDatabase();
  const processes: AppProcess[] = [];
  let redisPrefix: string | undefined;
  const stop = async () => {
    await Promise.all(processes.map((p) => p.kill()));
    await database.drop();
    if (redisPrefix) {
      await dropRedisKeys(redisPrefix);
    }
  };
  try {
    const sandbox = await startSandboxProcess();
    processes.push(sandbox.process);
    const common = { ...processEnv(database.url, sandbox.url, name, adminToken), ...options.env };
    redisPrefix = common.REDIS_PREFIX;
    const gatewayUrl = `http://127.0.0.1:${await freePort()}`;
    const gateway = new AppProcess('gateway', {
      ...common,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: new URL(gatewayUrl).port,
      GATEWAY_WITH_WORKER: 'off',
      SFTP_ENABLED: 'off',
    }).start();
    processes.push(gateway);
    await gateway.waitUntil(async () => (await getJson(`${gatewayUrl}/health`)).status === 200, 'gateway', 120_000);
    const healthPort = await freePort();
    const worker = new AppProcess('worker', {
      ...common,
      NODE_OPTIONS: `--max-old-space-size=${options.heapMiB}`,
      WORKER_HEALTH_PORT: String(healthPort),
      ...(process.env.WORKER_TEXT_BYTES_AT_ONCE && {
        WORKER_TEXT_BYTES_AT_ONCE: process.env.WORKER_TEXT_BYTES_AT_ONCE,
      }),
    }).start();
    processes.push(worker);
    await worker.waitUntil(
      async () => (await getJson(`http://127.0.0.1:${healthPort}/health`)).status === 200,
      'worker',
      120_000,
    );
    const call = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      fetch(gatewayUrl + path, { method, headers: { 'content-type': 'application/json', ...headers }, body });
    const admin = async (method: string, path: string, body?: unknown) => {
      const response = await call(method, path, { authorization: `Bearer ${adminToken}` }, JSON.stringify(body));
      if (!response.ok) {
        throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      }
      return response.json();
    };
    return { gatewayUrl, sandboxUrl: sandbox.url, worker, call, admin, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
