import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { run } from './commands';

/** What reached the server, as it came over the wire. */
interface Received {
  method: string;
  /** Path and query exactly as sent (escaping included). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const TOKEN = 'admin-token-wire';
const API_KEY = 'dbk_wire_key';
const FILES: Record<string, string> = {
  'ASN 0001.edi': 'ISA*00*          *00*~GS*SH~',
  // Spaces and a newline a re-serialisation would lose: the gateway gets the file's own bytes.
  'po.json': '{ "operations" : [] }\n',
  'fix.json': '{"operations":[]}',
};

/**
 * The CLI against a real HTTP server on loopback, with the real fetch: what goes on the wire is what the
 * generated client makes of the typed calls (paths, escaping, queries, bodies, headers), checked exactly.
 */
describe('dockbridge over HTTP (a local server)', () => {
  let server: Server;
  let url: string;
  let received: Received[];
  let answer: (request: Received) => { status: number; body: string; type?: string };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        received.push(request);
        const { status, body, type } = answer(request);
        res.writeHead(status, { 'content-type': type ?? 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  beforeEach(() => {
    received = [];
    answer = () => ({ status: 200, body: '{}' });
  });

  async function cli(argv: string[], env: Record<string, string> = { DOCKBRIDGE_ADMIN_TOKEN: TOKEN }) {
    let stdout = '';
    let stderr = '';
    const code = await run(argv, {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: { DOCKBRIDGE_URL: `${url}/`, ...env },
      readFile: (path) => FILES[path] ?? '',
    });
    return { code, stdout, stderr };
  }

  const json = (value: unknown) => ({ status: 200, body: JSON.stringify(value) });

  it('searches with every filter as one query string, lists given as comma lists', async () => {
    answer = () => json({ items: [], nextCursor: null });
    const { code, stdout } = await cli([
      'messages',
      'list',
      '--status',
      'failed, partially_failed',
      '--channel',
      'sftp',
      '--partner',
      'acme-wms',
      '--from',
      '2026-11-01T00:00:00Z',
      '--document',
      'PO 1',
      '--file',
      'ASN 0001.edi',
      '--interchange',
      '123',
      '--limit',
      '20',
      '--cursor',
      'c-1',
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe('No messages match.\n');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      method: 'GET',
      url:
        '/v1/admin/messages?status=failed%2Cpartially_failed&channel=sftp&partner=acme-wms&from=2026-11-01T00%3A00%3A00Z' +
        '&documentId=PO+1&fileName=ASN+0001.edi&interchange=123&limit=20&cursor=c-1',
      body: '',
    });
    expect(received[0].headers).toMatchObject({ accept: 'application/json', authorization: `Bearer ${TOKEN}` });
    expect(received[0].headers['content-type']).toBeUndefined();
    expect(received[0].headers['x-api-key']).toBeUndefined();
  });

  it('escapes ids into paths and pages a detail; the payload comes as text, exactly', async () => {
    answer = () => ({ status: 404, body: '{"statusCode":404,"error":"NotFound","details":["no such message"]}' });
    const detail = await cli(['messages', 'show', 'a/b c', '--after', '200']);
    expect(received[0]).toMatchObject({ method: 'GET', url: '/v1/admin/messages/a%2Fb%20c?operationsAfter=200' });
    expect(detail).toEqual({ code: 1, stdout: '', stderr: 'error: NotFound (HTTP 404)\n  no such message\n' });

    answer = () => ({ status: 200, body: 'ISA*00*~\r\nGS*', type: 'application/edi-x12' });
    const payload = await cli(['messages', 'show', 'm-1', '--payload']);
    expect(received[1]).toMatchObject({ method: 'GET', url: '/v1/admin/messages/m-1/payload' });
    expect(received[1].headers.accept).toBe('*/*');
    expect(payload).toEqual({ code: 0, stdout: 'ISA*00*~\r\nGS*', stderr: '' });
  });

  it('replays one message and bulk with JSON bodies carrying only what was typed', async () => {
    answer = () => ({ status: 202, body: JSON.stringify({ messageId: 'new', replayOf: 'm-1', status: 'received' }) });
    const one = await cli(['messages', 'replay', 'm-1', '--payload-file', 'fix.json', '--reason', 'fixed', '--force']);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe('Replayed m-1 as new message new (received).\nFollow it: dockbridge messages show new\n');
    expect(received[0]).toMatchObject({
      method: 'POST',
      url: '/v1/admin/messages/m-1/replay',
      body: '{"reason":"fixed","force":true,"payload":"{\\"operations\\":[]}"}',
    });
    expect(received[0].headers['content-type']).toBe('application/json');

    answer = () => json({ dryRun: true, matching: 2, skipped: [] });
    const bulk = await cli(['messages', 'replay', '--status', 'failed', '--partner', 'acme', '--failed-only']);
    expect(bulk.stdout).toBe('Dry run: 2 messages match; nothing was replayed.\nAdd --no-dry-run to replay them.\n');
    expect(received[1]).toMatchObject({
      method: 'POST',
      url: '/v1/admin/messages/replay',
      body: '{"status":["failed"],"partner":"acme","mode":"failed-only"}',
    });
  });

  it('sends a partner file as its bytes, with the API key and no admin token', async () => {
    answer = () => ({ status: 202, body: JSON.stringify({ messageId: 'm-9', status: 'received' }) });
    const x12 = await cli(['send', 'ASN 0001.edi'], { DOCKBRIDGE_API_KEY: API_KEY });
    expect(x12).toEqual({ code: 0, stdout: 'Message m-9: received\n', stderr: '' });
    expect(received[0]).toMatchObject({
      method: 'POST',
      url: '/v1/edi?fileName=ASN+0001.edi',
      body: FILES['ASN 0001.edi'],
    });
    expect(received[0].headers).toMatchObject({ 'content-type': 'application/edi-x12', 'x-api-key': API_KEY });
    expect(received[0].headers.authorization).toBeUndefined();

    await cli(['send', 'po.json'], { DOCKBRIDGE_API_KEY: API_KEY });
    expect(received[1]).toMatchObject({ method: 'POST', url: '/v1/messages', body: FILES['po.json'] });
    expect(received[1].headers['content-type']).toBe('application/json');

    answer = () => json({ statusCode: 400, error: 'Bad', details: [] });
    await cli(['edi', 'preview', 'ASN 0001.edi', '--after', '100'], { DOCKBRIDGE_API_KEY: API_KEY });
    expect(received[2]).toMatchObject({ method: 'POST', url: '/v1/edi/preview?setsAfter=100' });

    const lines = '{"type":"set","documentId":"ASN-1"}\n{"type":"summary","sets":1}\n';
    answer = () => ({ status: 200, body: lines, type: 'application/x-ndjson' });
    const full = await cli(['edi', 'preview', 'ASN 0001.edi', '--full'], { DOCKBRIDGE_API_KEY: API_KEY });
    expect(full).toEqual({ code: 0, stdout: lines, stderr: '' });
    expect(received[3]).toMatchObject({ method: 'POST', url: '/v1/edi/preview?full=1', body: FILES['ASN 0001.edi'] });
    const both = await cli(['edi', 'preview', 'ASN 0001.edi', '--full', '--after', '5'], {
      DOCKBRIDGE_API_KEY: API_KEY,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--full prints every set as JSON lines: give it without --after or --json');
    expect(received).toHaveLength(4);
  });

  it('reads runs, operators and the activity log at their paths, options as typed', async () => {
    answer = () => ({ status: 400, body: '{"statusCode":400,"error":"Invalid","details":["limit must be a number"]}' });
    expect((await cli(['replays', 'list', '--limit', '5'])).code).toBe(1);
    await cli(['replays', 'show', 'run 1']);
    await cli(['activity', '--target', 'partner:acme', '--limit', 'ten']);
    await cli(['operators', 'create', 'dana', '--role', 'viewer', '--expires', '2027-01-01T00:00:00Z']);
    await cli(['operators', 'revoke', 'op-1']);
    await cli(['whoami']);
    await cli(['partners', 'show', 'acme-wms']);
    expect(received.map((r) => `${r.method} ${r.url} ${r.body}`.trimEnd())).toEqual([
      'GET /v1/admin/replays?limit=5',
      'GET /v1/admin/replays/run%201',
      'GET /v1/admin/activity?target=partner%3Aacme&limit=ten',
      'POST /v1/admin/operators {"name":"dana","role":"viewer","expiresAt":"2027-01-01T00:00:00Z"}',
      'DELETE /v1/admin/operators/op-1',
      'GET /v1/admin/me',
      'GET /v1/admin/partners/acme-wms',
    ]);
  });

  it('shows what a proxy sent instead of an ErrorBody, and says when nothing answers', async () => {
    answer = () => ({ status: 502, body: '<html>\n  Bad   gateway\n</html>', type: 'text/html' });
    const proxied = await cli(['whoami', '--verbose']);
    expect(proxied.code).toBe(1);
    expect(proxied.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/v1\/admin\/me -> 502 \(\d+ ms\)\n/);
    expect(proxied.stderr.split('\n').slice(1)).toEqual([
      'error: Bad Gateway (HTTP 502)',
      '  <html> Bad gateway </html>',
      '',
    ]);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await cli(['whoami', '--url', `http://127.0.0.1:${port}`]);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot reach the gateway at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n(is the gateway running there? set --url or DOCKBRIDGE_URL)\n`,
    });
  });
});
