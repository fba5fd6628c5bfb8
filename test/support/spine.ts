import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app';
import { MessageRepository } from '@dockbridge/audit';
import { AppConfig, loadConfig } from '@dockbridge/config';
import { PartnerRepository } from '@dockbridge/partners';
import { createTestDatabase, TestDatabase } from './database';
import { dropRedisKeys } from './redis-keys';
import { DEMO, RunningSandbox, startSandbox, TestResponse } from './sandbox';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Spine {
  sandbox: RunningSandbox;
  database: TestDatabase;
  config: AppConfig;
  app: NestFastifyApplication;
  url: string;
  partnerKey: string;
  messages: MessageRepository;
  /** fetch against the gateway; `auth` 'partner' (default), 'admin' or none. */
  call(
    method: string,
    path: string,
    options?: { auth?: 'partner' | 'admin' | null; body?: unknown },
  ): Promise<TestResponse>;
  /** Polls until the message reaches one of `statuses` (or fails the test after `timeoutMs`). */
  waitForStatus(messageId: string, statuses: string[], timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * Everything real on loopback: the sandbox over HTTP, a fresh Postgres database, Redis under a
 * private key prefix, and the gateway with its workers in this process.
 */
export async function startSpine(
  overrides: Record<string, unknown> = {},
  /** `host`: the address the gateway listens on (loopback unless given); calls go to loopback either way. */
  options: { sandbox?: RunningSandbox; host?: string } = {},
): Promise<Spine> {
  const sandbox = options.sandbox ?? (await startSandbox());
  const database = await createTestDatabase();
  const config = loadConfig({
    env: {},
    dir: '/nonexistent',
    overrides: {
      'database.url': database.url,
      'redis.prefix': `{dbtest-${randomBytes(4).toString('hex')}}`,
      'platform.baseUrl': sandbox.url,
      'platform.token': DEMO.tokens.location,
      'platform.timeoutMs': 5000,
      'gateway.adminToken': ADMIN_TOKEN,
      'gateway.partnersDir': '/nonexistent',
      'gateway.port': 0,
      'sftp.port': 0,
      'sftp.hostKeyPath': join(tmpdir(), 'dockbridge-test-sftp-host-key'),
      'sftp.generateHostKey': true,
      'secrets.keyPath': join(tmpdir(), 'dockbridge-test-secrets.key'),
      'delivery.backoffBaseMs': 20,
      'delivery.backoffMaxMs': 200,
      'delivery.batchPollMs': 20,
      'log.level': 'warn',
      ...overrides,
    },
  });
  const app = await createGatewayApp({ config, withWorker: true });
  await app.listen(0, options.host ?? '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const partners = app.get(PartnerRepository);
  await partners.upsert({ id: 'test-wms', name: 'Test WMS', locationOrganisationId: DEMO.mainDc }, 'api');
  const { key: partnerKey } = await partners.issueApiKey('test-wms', { label: 'tests' });
  const messages = app.get(MessageRepository);

  const call: Spine['call'] = (method, path, { auth = 'partner', body } = {}) =>
    fetch(url + path, {
      method,
      headers: {
        ...(auth === 'partner'
          ? { 'x-api-key': partnerKey }
          : auth === 'admin'
            ? { authorization: `Bearer ${ADMIN_TOKEN}` }
            : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  return {
    sandbox,
    database,
    config,
    app,
    url,
    partnerKey,
    messages,
    call,
    async waitForStatus(messageId, statuses, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let status = '';
      while (Date.now() < deadline) {
        status = (await messages.findById(messageId))?.status ?? '';
        if (statuses.includes(status)) {
          return status;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`message ${messageId} is ${status}, not ${statuses.join('/')} after ${timeoutMs} ms`);
    },
    async close() {
      await app.close().catch(() => undefined); // may be closed already by the test
      await dropRedisKeys(config.redis.prefix, config.redis.url);

      if (!options.sandbox) {
        await sandbox.close();
      }
      await database.drop();
    },
  };
}
