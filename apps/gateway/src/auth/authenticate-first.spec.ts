import { connect } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import type { OperatorActivityRepository, OperatorTokenRepository } from '@dockbridge/audit';
import type { AppConfig } from '@dockbridge/config';
import type { PartnerRepository } from '@dockbridge/partners';
import { OperatorAccess } from '@dockbridge/pipeline';
import { limitBodiesByCredential } from '../http-limits';
import { authenticateFirst, credentialOf, refuseUnknownRoutesFirst } from './authenticate-first';

const GOOD_KEY = 'dbk_good-key';
const partners = {
  authenticate: async (key: string) => (key === GOOD_KEY ? { id: 'p1' } : null),
} as unknown as PartnerRepository;

/** A Fastify app with the gateway's before-the-body checks, a small default body limit and a few routes. */
async function appWith(adminToken: string | undefined): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ bodyLimit: 64 * 1024 });
  refuseUnknownRoutesFirst(app);
  // No named tokens here: the e2e suites cover those against Postgres.
  const noTokens = { identify: async () => null } as unknown as OperatorTokenRepository;
  const operators = new OperatorAccess(
    { gateway: { adminToken } } as AppConfig,
    noTokens,
    {} as OperatorActivityRepository,
  );
  authenticateFirst(app, partners, operators);
  limitBodiesByCredential(app, 10 * 1024 * 1024);
  for (const url of ['/v1/messages', '/v1/admin/messages/replay', '/open']) {
    app.post(url, async (request) => ({ got: JSON.stringify(request.body).length }));
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port };
}

/** Sends the head of a request declaring a 9 MB body, and one byte of it: resolves with the status line of the answer, if one comes before the body. */
const answerBeforeBody = (port: number, method: string, path: string, headers = ''): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' }, () =>
      socket.write(
        `${method} ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 9000000\r\n${headers}\r\n{`,
      ),
    );
    let text = '';
    const timer = setTimeout(() => finish('no answer'), 3000);
    const finish = (answer: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        finish(text.split('\r\n')[0]);
      }
    });
    socket.on('error', () => finish('error'));
  });

describe('credentialOf', () => {
  it('names the credential by route pattern', () => {
    expect(credentialOf('/v1/messages')).toBe('partner');
    expect(credentialOf('/v1/edi/preview')).toBe('partner');
    expect(credentialOf('/v1/admin/messages/:id/replay')).toBe('admin');
    expect(credentialOf('/v1/webhooks/:partner')).toBeNull();
    expect(credentialOf('/v1/messagesx')).toBeNull();
    expect(credentialOf(undefined)).toBeNull();
  });
});

describe('before the body is read', () => {
  let withToken: { app: FastifyInstance; port: number };
  let withoutToken: { app: FastifyInstance; port: number };
  beforeAll(async () => {
    withToken = await appWith('admin-token-0123456789');
    withoutToken = await appWith(undefined);
  });
  afterAll(async () => {
    await withToken?.app.close();
    await withoutToken?.app.close();
  });

  it('answers 401 to the partner API without a valid key, however the path is spelled', async () => {
    for (const path of ['/v1/messages', '/v1/%6Dessages', '/v1/messages?x=1']) {
      expect(await answerBeforeBody(withToken.port, 'POST', path)).toBe('HTTP/1.1 401 Unauthorized');
      expect(await answerBeforeBody(withToken.port, 'POST', path, 'x-api-key: dbk_wrong\r\n')).toBe(
        'HTTP/1.1 401 Unauthorized',
      );
    }
  });

  it('answers 401 to the admin API without the token, and 503 when no admin token is configured', async () => {
    expect(
      await answerBeforeBody(withToken.port, 'POST', '/v1/%61dmin/messages/replay', 'authorization: Bearer wrong\r\n'),
    ).toBe('HTTP/1.1 401 Unauthorized');
    expect(await answerBeforeBody(withoutToken.port, 'POST', '/v1/admin/messages/replay')).toBe(
      'HTTP/1.1 503 Service Unavailable',
    );
  });

  it('answers 404 to a request with a body for no route', async () => {
    for (const path of ['/nothing', '/V1/messages', '//v1/messages']) {
      expect(await answerBeforeBody(withToken.port, 'POST', path)).toBe('HTTP/1.1 404 Not Found');
    }
    expect(await answerBeforeBody(withToken.port, 'PUT', '/v1/messages')).toBe('HTTP/1.1 404 Not Found');
  });
});

describe('body limits by credential', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => ({ app, port } = await appWith('admin-token-0123456789')));
  afterAll(() => app?.close());
  const post = (path: string, bytes: number, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ pad: 'x'.repeat(bytes) }),
    });

  it('gives routes authenticated from the headers the large limit, and any other route the small default', async () => {
    expect((await post('/v1/messages', 200 * 1024, { 'x-api-key': GOOD_KEY })).status).toBe(200);
    expect(
      (await post('/v1/admin/messages/replay', 200 * 1024, { authorization: 'Bearer admin-token-0123456789' })).status,
    ).toBe(200);
    expect((await post('/open', 200 * 1024)).status).toBe(413);
    expect((await post('/open', 1024)).status).toBe(200);
  });
});
