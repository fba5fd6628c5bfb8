import Fastify from 'fastify';
import pino from 'pino';
import { logRequests, urlForLog } from './request-log';

/** A Fastify app logging requests into `lines` at `level`. */
async function appLoggingAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const app = Fastify();
  logRequests(app, logger);
  app.post('/v1/webhooks/:partner', async (_request, reply) => reply.status(202).send({ ok: true }));
  app.get('/health', async () => ({ status: 'ok' }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, lines, url };
}

describe('urlForLog', () => {
  it('keeps the path and the names of query parameters, never their values', () => {
    expect(urlForLog('/v1/edi?fileName=PO-1.edi&token=s3cret&x')).toBe('/v1/edi?fileName=…&token=…&x=…');
    expect(urlForLog('/v1/messages')).toBe('/v1/messages');
    expect(urlForLog('/v1/admin/messages?')).toBe('/v1/admin/messages?');
  });
});

describe('request log lines', () => {
  it('say what was asked and how it ended, with safe headers only: no credential, whatever its header name', async () => {
    const { app, lines, url } = await appLoggingAt('info');
    await fetch(`${url}/v1/webhooks/fast-freight?api_key=query-secret`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        authorization: 'Bearer admin-token',
        'x-api-key': 'dbk_live_secret',
        'x-tms-signature': 'sha256=abc',
        cookie: 'session=1',
      },
      body: '{}',
    });
    await fetch(`${url}/health`);
    await app.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      method: 'POST',
      url: '/v1/webhooks/fast-freight?api_key=…',
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'content-length': '2' },
      statusCode: 202,
      responseTime: expect.any(Number),
    });
    expect(JSON.stringify(lines)).not.toMatch(/admin-token|dbk_live|sha256=|session|query-secret/);
  });

  it('are not produced when info is off', async () => {
    const { app, lines, url } = await appLoggingAt('warn');
    await fetch(`${url}/v1/webhooks/x`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    await app.close();
    expect(lines).toEqual([]);
  });
});
