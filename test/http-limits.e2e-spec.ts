import { connect, Socket } from 'node:net';
import { MessageQueues } from '@dockbridge/pipeline';
import { ADMIN_TOKEN, Spine, startSpine } from './support/spine';

/**
 * What the gateway reads before it knows who is asking: nothing of the body. Unauthenticated
 * requests, webhooks to unknown partners, slow senders and connection floods are all cut short.
 */
describe('HTTP limits before authentication', () => {
  let spine: Spine;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    spine = await startSpine({ 'gateway.requestTimeoutMs': 1500, 'gateway.maxConnectionsPerAddress': 20 });
    port = Number(new URL(spine.url).port);
  }, 60_000);
  afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));
  afterAll(() => spine?.close());

  /** Opens a raw connection and sends `head` (and `body`); resolves with what the server answered and when it closed. */
  const raw = (head: string, body = ''): Promise<{ socket: Socket; answer: Promise<string>; closed: Promise<void> }> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.write(head + body);
        let text = '';
        const answer = new Promise<string>((res) => {
          socket.on('data', (chunk) => {
            text += chunk.toString('latin1');
            if (/\r\n\r\n/.test(text)) {
              res(text);
            }
          });
          socket.on('close', () => res(text));
        });
        const closed = new Promise<void>((res) => socket.on('close', () => res()));
        resolve({ socket, answer, closed });
      });
      socket.on('error', () => undefined);
      socket.once('error', reject);
      sockets.push(socket);
    });
  const post = (path: string, headers: Record<string, string>, length: number) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n${Object.entries(
      headers,
    )
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
  const NINE_MB = 9 * 1024 * 1024;

  it('answers 401 to a 9 MB body without a valid API key before the body is sent', async () => {
    for (const headers of [{}, { 'x-api-key': 'dbk_not-a-real-key-000000000000000000000000000' }] as Record<
      string,
      string
    >[]) {
      const { answer } = await raw(post('/v1/messages', headers, NINE_MB), '{"operations":[');
      expect(await answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(await answer).toMatch(/connection: close/i);
    }
  });

  it('answers 401 to the admin API without the admin token before reading the body, and serves it with the token', async () => {
    const { answer } = await raw(
      post('/v1/admin/messages/replay', { authorization: 'Bearer wrong-token-000000' }, NINE_MB),
      '{',
    );
    expect(await answer).toMatch(/^HTTP\/1\.1 401 /);
    const ok = await fetch(`${spine.url}/v1/admin/messages/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(ok.status).toBe(200);
  });

  it('answers before the body however the path is spelled, and 404 to a body for no route', async () => {
    for (const [path, status] of [
      ['/v1/%6Dessages', 401],
      ['/nothing', 404],
      ['/health', 404],
      ['/V1/messages', 404],
    ] as const) {
      const { answer } = await raw(post(path, {}, NINE_MB), '{');
      expect(await answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    }
  });

  it('answers 404 to a webhook for an unknown partner before reading its body', async () => {
    const { answer } = await raw(post('/v1/webhooks/nobody-here', {}, NINE_MB), '{');
    expect(await answer).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('cuts off a client that trickles its body past the request timeout', async () => {
    const { socket, answer, closed } = await raw(post('/v1/messages', { 'x-api-key': spine.partnerKey }, 1000), '{"op');
    const timer = setInterval(() => socket.writable && socket.write(' '), 200);
    const started = Date.now();
    await closed;
    clearInterval(timer);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes connections from one address past the cap, and serves again once they are gone', async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => raw('')));
    const extra = await raw('');
    await extra.closed;
    expect(await extra.answer).toBe('');
    held.forEach(({ socket }) => socket.destroy());
    await Promise.all(held.map(({ closed }) => closed));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await fetch(`${spine.url}/health`)).status).toBe(200);
  });

  it('runs one health check for probes that arrive together', async () => {
    // Slow queue depths (500 ms), so that all the probes arrive while the first check runs.
    const queues = spine.app.get(MessageQueues);
    const original = queues.depths.bind(queues);
    const depths = jest.spyOn(queues, 'depths').mockImplementation(async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return original();
    });
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${spine.url}/health`)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(depths.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      depths.mockRestore();
    }
  });
});
