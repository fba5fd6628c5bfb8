import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { ConfigError, loadConfig } from '@dockbridge/config';
import { PartnerRepository } from '@dockbridge/partners';
import { createSandboxApp } from '../../sandbox/src/sandbox.app';
import { readSeed } from '../../sandbox/src/state/seed';
import { consoleDirectory } from './console/console-static';
import { createGatewayApp } from './gateway.app';

/**
 * `npm start`: gateway + worker + sandbox in one process, for a first look on one machine.
 * Embedded PGlite without DATABASE_URL; Redis from REDIS_URL, or a private redis-server when
 * nothing listens there. Platform calls go to the in-process sandbox unless PLATFORM_BASE_URL is set.
 */
const DEMO_KEY_LABEL = 'npm start demo key';

async function main(): Promise<void> {
  const config = loadConfig();
  await ensureRedis(config.redis.url);

  const seed = readSeed(config.sandbox.seedPath);
  const sandbox = await createSandboxApp({
    seed,
    controls: true,
    bodyLimitBytes: config.sandbox.bodyLimitBytes,
    logger: ['error', 'warn'],
  });
  await sandbox.listen(config.sandbox.port, config.sandbox.host);
  const sandboxUrl = `http://${config.sandbox.host}:${config.sandbox.port}`;

  const usesSandbox = !config.platform.token && config.platform.accounts.length === 0;
  if (usesSandbox) {
    config.platform.baseUrl = sandboxUrl;
    config.platform.token = seed.tokens[0]?.token;
  }
  // One machine, one SFTP server: a key of its own is the right one (replicas must share theirs: off by default).
  config.sftp.generateHostKey = true;
  const generatedAdminToken = !config.gateway.adminToken;
  config.gateway.adminToken ??= `adm_${randomBytes(18).toString('base64url')}`;

  const gateway = await createGatewayApp({ config, withWorker: true });
  await gateway.listen(config.gateway.port, config.gateway.host);
  const url = `http://${config.gateway.host}:${config.gateway.port}`;

  // A fresh demo key each start (the earlier ones revoked): a key is shown once, and a first look needs one.
  const partners = gateway.get(PartnerRepository);
  const demo = (await partners.list())[0];
  let demoKey: string | undefined;
  if (demo) {
    for (const key of await partners.listApiKeys(demo.id)) {
      if (key.label === DEMO_KEY_LABEL && !key.revokedAt) {
        await partners.revokeApiKey(demo.id, key.id);
      }
    }
    demoKey = (await partners.issueApiKey(demo.id, { label: DEMO_KEY_LABEL })).key;
  }

  console.log(`dockbridge is running on one machine
  gateway     ${url}   (OpenAPI: ${url}/docs, health: ${url}/health, metrics: ${url}/metrics)
  console     ${url}/console${consoleDirectory() ? '   (sign in with the admin token below)' : '   (not built: npm run build:console)'}
  sftp        ${config.sftp.enabled ? `sftp://${config.sftp.host}:${config.sftp.port}   (users: POST ${url}/v1/admin/partners/{id}/sftp-users)` : 'off'}
  sandbox     ${sandboxUrl}${usesSandbox ? '   (the platform for this run)' : ''}
  database    ${config.database.url ? 'Postgres (DATABASE_URL)' : `embedded PGlite in ${config.database.dataDir}`}
  admin token ${generatedAdminToken ? `${config.gateway.adminToken}   (generated for this run; set ADMIN_TOKEN to keep one)` : '(from ADMIN_TOKEN)'}
${demo ? `  partner     ${demo.id}, API key ${demoKey}   (a demo key for this run)` : '  partner     none: add config/partners/*.yaml'}
Try:
  curl -X POST ${url}/v1/messages -H 'X-API-Key: <key>' -H 'content-type: application/json' \\
    -d '{"operations":[{"kind":"document.upsert","organisationId":"${demo?.locationOrganisationId ?? '<location uuid>'}","document":{"id":"PO-1","direction":"Inbound","carrier":{"coreName":"SCAC","coreId":"FFRT"}}}]}'`);
}

/** Uses the Redis at `url`; when nothing answers there and redis-server is installed, starts a private one (no persistence). */
async function ensureRedis(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const target = { host: hostname || '127.0.0.1', port: Number(port || 6379) };
  if (await listening(target.host, target.port)) {
    return;
  }
  const local = ['127.0.0.1', 'localhost', '::1'].includes(target.host);
  if (local) {
    const child = spawn(
      'redis-server',
      ['--port', String(target.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const started = await new Promise<boolean>((resolve) => {
      child.once('error', () => resolve(false));
      const poll = async (tries: number): Promise<void> => {
        if (await listening(target.host, target.port)) {
          return resolve(true);
        }
        if (tries <= 0) {
          return resolve(false);
        }
        setTimeout(() => void poll(tries - 1), 100);
      };
      void poll(50);
    });
    if (started) {
      console.log(
        `Redis: nothing listened on ${target.host}:${target.port}; started a private redis-server there (no persistence; stops with dockbridge)`,
      );
      const stop = () => child.kill();
      process.once('exit', stop);
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          stop();
          process.exit(0);
        });
      }
      return;
    }
  }
  throw new ConfigError([
    `redis.url: nothing answers at ${target.host}:${target.port}. Start Redis (apt-get install redis-server, or docker compose up redis) or set REDIS_URL`,
  ]);
}

function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
