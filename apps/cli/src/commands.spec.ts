import { CliIo, DEFAULT_URL, run, secretsOf } from './commands';

const TOKEN = 'admin-token-do-not-print';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** Runs the CLI in-process against a fake gateway that answers `status` + `body` to every request. */
async function cli(
  argv: string[],
  answer: {
    status?: number;
    body?: unknown;
    fail?: Error;
    byRequest?: (url: string, n: number) => { status?: number; body?: unknown };
  } = {},
  env: CliIo['env'] = { DOCKBRIDGE_ADMIN_TOKEN: TOKEN },
  io: Partial<CliIo> = {},
) {
  const sent: Sent[] = [];
  let stdout = '';
  let stderr = '';
  const fakeFetch = async (request: Request) => {
    const url = request.url;
    const sentBody = await request.text();
    sent.push({
      url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: sentBody === '' ? undefined : sentBody,
    });
    if (answer.fail) {
      throw answer.fail;
    }
    const { status, body } = answer.byRequest?.(url, sent.length - 1) ?? answer;
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    return new Response(text, { status: status ?? 200 });
  };
  const code = await run(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env,
    fetch: fakeFetch,
    readFile: (path) => {
      if (path === 'fix.json') {
        return '{"operations":[]}';
      }
      if (path === 'po.edi') {
        return 'ISA*00*~';
      }
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    },
    pollMs: 1,
    ...io,
  });
  return { code, stdout, stderr, sent };
}

describe('dockbridge commands (fake gateway)', () => {
  it('lists messages with the admin token, at the default URL, as a table', async () => {
    const { code, stdout, sent } = await cli(['messages', 'list', '--status', 'failed', '--partner', 'acme'], {
      body: { items: [], nextCursor: null },
    });
    expect(code).toBe(0);
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe(`${DEFAULT_URL}/v1/admin/messages?status=failed&partner=acme`);
    expect(sent[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(stdout).toBe('No messages match.\n');
  });

  it('takes --url and --token before or after the command, and DOCKBRIDGE_URL', async () => {
    const { sent } = await cli(
      ['messages', 'list', '--url', 'http://gw.example:8080/', '--token', 'other'],
      { body: { items: [], nextCursor: null } },
      {},
    );
    expect(sent[0].url).toBe('http://gw.example:8080/v1/admin/messages');
    expect(sent[0].headers.authorization).toBe('Bearer other');
    const before = await cli(['--url', 'http://gw.example:8080', 'messages', 'list'], {
      body: { items: [], nextCursor: null },
    });
    expect(before.sent[0].url).toBe('http://gw.example:8080/v1/admin/messages');
    const fromEnv = await cli(
      ['messages', 'list'],
      { body: { items: [], nextCursor: null } },
      { DOCKBRIDGE_URL: 'http://env:1234', DOCKBRIDGE_ADMIN_TOKEN: TOKEN },
    );
    expect(fromEnv.sent[0].url).toBe('http://env:1234/v1/admin/messages');
  });

  it('sends a file as its partner: X12 to /v1/edi under its file name, JSON to /v1/messages, with the API key', async () => {
    const env = { DOCKBRIDGE_API_KEY: 'dbk_partner_key_secret' };
    const edi = await cli(['send', 'po.edi'], { status: 202, body: { messageId: 'm-1', status: 'received' } }, env);
    expect(edi.code).toBe(0);
    expect(edi.sent[0]).toMatchObject({
      url: `${DEFAULT_URL}/v1/edi?fileName=po.edi`,
      method: 'POST',
      body: 'ISA*00*~',
    });
    expect(edi.sent[0].headers).toMatchObject({
      'x-api-key': 'dbk_partner_key_secret',
      'content-type': 'application/edi-x12',
    });
    expect(edi.stdout).toBe('Message m-1: received\n');
    const canonical = await cli(
      ['send', 'fix.json'],
      { status: 202, body: { messageId: 'm-2', status: 'received' } },
      env,
    );
    expect(canonical.sent[0]).toMatchObject({ url: `${DEFAULT_URL}/v1/messages`, body: '{"operations":[]}' });
    expect((await cli(['send', 'po.edi'], {}, {})).code).toBe(2); // no API key: nothing sent
  });

  it('send --wait polls the message until it settles and prints each operation', async () => {
    const settled = {
      messageId: 'm-1',
      status: 'partially_failed',
      reason: '1 of 2 operations failed; first: 400 bad date',
      operations: [
        { seq: 1, kind: 'document.upsert', target: 'PO-1', status: 'delivered', error: null, attempts: 1 },
        { seq: 2, kind: 'document.upsert', target: 'PO-2', status: 'failed', error: '400 bad date', attempts: 1 },
      ],
    };
    // The fake answers every request alike: the POST's answer doubles as the settled status.
    const { code, stdout, sent } = await cli(
      ['send', 'fix.json', '--wait'],
      { body: settled },
      { DOCKBRIDGE_API_KEY: 'k' },
    );
    expect(code).toBe(0);
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST ${DEFAULT_URL}/v1/messages`,
      `GET ${DEFAULT_URL}/v1/messages/m-1`,
    ]);
    expect(stdout).toBe(
      [
        'Message m-1: partially_failed (1 of 2 operations failed; first: 400 bad date)',
        '  #1 document.upsert PO-1: delivered',
        '  #2 document.upsert PO-2: failed: 400 bad date',
        '',
      ].join('\n'),
    );
  });

  it('lists and shows partners with the admin token', async () => {
    const partner = {
      id: 'acme-wms',
      name: 'Acme WMS',
      enabled: true,
      locationOrganisationId: 'loc-1',
      platformAccount: null,
      settings: { webhook: { verification: 'standard-webhooks' }, edi: { senderIds: ['ACME'] } },
      source: 'file',
      updatedAt: '2026-11-22T03:00:00Z',
    };
    const list = await cli(['partners', 'list'], { body: [partner] });
    expect(list.sent[0].url).toBe(`${DEFAULT_URL}/v1/admin/partners`);
    expect(list.stdout).toContain(
      'acme-wms  Acme WMS  yes      loc-1     file    edi(ACME) webhook(standard-webhooks)',
    );
    const show = await cli(['partners', 'show', 'acme-wms'], {
      body: {
        ...partner,
        apiKeys: [
          {
            keyPrefix: 'AbCdEfGh',
            label: 'prod',
            createdAt: '2026-11-01T00:00:00Z',
            expiresAt: null,
            revokedAt: null,
            lastUsedAt: null,
          },
        ],
      },
    });
    expect(show.sent[0].url).toBe(`${DEFAULT_URL}/v1/admin/partners/acme-wms`);
    expect(show.stdout).toContain('  dbk_AbCdEfGh…  prod  active');
  });

  it('prints --json answers as JSON', async () => {
    const page = { items: [], nextCursor: null };
    const { stdout } = await cli(['messages', 'list', '--json'], { body: page });
    expect(JSON.parse(stdout)).toEqual(page);
  });

  it('prints only the whole raw payload with show --payload, downloaded as it was received', async () => {
    const { code, stdout, sent } = await cli(['messages', 'show', 'm', '--payload'], { body: 'ISA*00*~\nGS*' });
    expect(code).toBe(0);
    expect(sent[0].url).toBe(`${DEFAULT_URL}/v1/admin/messages/m/payload`);
    expect(stdout).toBe('ISA*00*~\nGS*');
  });

  it('sends a single replay with the corrected payload file, and a bulk dry run by default', async () => {
    const one = await cli(['messages', 'replay', 'id-1', '--payload-file', 'fix.json', '--reason', 'fixed'], {
      status: 202,
      body: { messageId: 'new', replayOf: 'id-1', status: 'received' },
    });
    expect(one.code).toBe(0);
    expect(one.sent[0]).toMatchObject({ method: 'POST', url: `${DEFAULT_URL}/v1/admin/messages/id-1/replay` });
    expect(JSON.parse(one.sent[0].body!)).toEqual({ payload: '{"operations":[]}', reason: 'fixed' });
    expect(one.stdout).toContain('Replayed id-1 as new message new (received).');

    const bulk = await cli(['messages', 'replay', '--status', 'failed'], { body: { dryRun: true, matching: 2 } });
    expect(JSON.parse(bulk.sent[0].body!)).toEqual({ status: ['failed'] });
    expect(bulk.stdout).toContain('Dry run: 2 messages match');
  });

  describe('a real bulk replay (a run on the gateway)', () => {
    const started = {
      dryRun: false,
      runId: 'run-1',
      status: 'queued',
      limit: 10_000,
      location: '/v1/admin/replays/run-1',
    };
    const run = (over: Record<string, unknown>) => ({
      runId: 'run-1',
      filter: {},
      request: {},
      actor: 'operator:admin',
      reason: null,
      total: 3,
      done: 0,
      replayed: 0,
      skipped: 0,
      skips: [],
      limit: 10_000,
      limitReached: false,
      error: null,
      createdAt: '2026-11-01T12:00:00.000Z',
      startedAt: null,
      finishedAt: null,
      updatedAt: '2026-11-01T12:00:00.000Z',
      ...over,
    });
    /** The 202, then the run as it goes: queued, running 2/3, completed 3/3 (the last answer repeats). */
    const gateway = (
      last: Record<string, unknown> = {
        status: 'completed',
        done: 3,
        replayed: 2,
        skipped: 1,
        skips: [{ id: 'm-3', reason: 'refused at ingress' }],
        finishedAt: '2026-11-01T12:00:09.000Z',
      },
    ) => ({
      byRequest: (url: string, n: number) =>
        n === 0
          ? { status: 202, body: started }
          : {
              body: run(
                [{ status: 'queued', total: null }, { status: 'running', done: 2, replayed: 2 }, last][
                  Math.min(n - 1, 2)
                ],
              ),
            },
    });

    it('starts the run, waits with a progress line per change (no terminal), and prints the result', async () => {
      const real = await cli(['messages', 'replay', '--status', 'failed', '--no-dry-run', '--failed-only'], gateway());
      expect(real.code).toBe(0);
      expect(JSON.parse(real.sent[0].body!)).toEqual({ status: ['failed'], mode: 'failed-only', dryRun: false });
      expect(real.sent.slice(1).map((s) => s.url)).toEqual(
        [1, 2, 3].map(() => `${DEFAULT_URL}/v1/admin/replays/run-1`),
      );
      expect(real.stderr.split('\n').slice(1, -1)).toEqual([
        `queued    [${'-'.repeat(30)}] 0  replayed 0, skipped 0`,
        `running   [${'#'.repeat(20)}${'-'.repeat(10)}] 2/3 (66%)  replayed 2, skipped 0`,
        `completed [${'#'.repeat(30)}] 3/3 (100%)  replayed 2, skipped 1`,
      ]);
      expect(real.stdout).toBe(
        'Bulk replay run run-1: completed (asked by operator:admin at 2026-11-01 12:00:00Z)\nReplayed 2 messages; 1 skipped (3 looked at, finished 2026-11-01 12:00:09Z).\nSkipped:\n  m-3: refused at ingress\n',
      );
    });

    it('redraws one bar in place on a terminal', async () => {
      const { stderr } = await cli(['messages', 'replay', '--status', 'failed', '--no-dry-run'], gateway(), undefined, {
        isTTY: true,
      });
      expect(stderr.split('\n')[1].split('\r').filter(Boolean)).toHaveLength(3);
      expect(stderr).toContain('\x1b[K');
      expect(stderr.endsWith('replayed 2, skipped 1\x1b[K\n')).toBe(true);
    });

    it('prints the finished run as JSON with --json, and exits 1 when the run failed', async () => {
      const asJson = await cli(['messages', 'replay', '--status', 'failed', '--no-dry-run', '--json'], gateway());
      expect(JSON.parse(asJson.stdout)).toMatchObject({ runId: 'run-1', status: 'completed', replayed: 2, skipped: 1 });
      const failed = await cli(
        ['messages', 'replay', '--status', 'failed', '--no-dry-run'],
        gateway({ status: 'failed', error: 'database unavailable' }),
      );
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('Error: database unavailable');
      expect(failed.stderr).toContain('error: bulk replay run run-1 failed: database unavailable');
    });

    it('returns with the run id at once with --detach; replays show reads it, --wait waits for it', async () => {
      const detached = await cli(['messages', 'replay', '--status', 'failed', '--no-dry-run', '--detach'], gateway());
      expect(detached).toMatchObject({
        code: 0,
        stdout: 'Bulk replay run run-1 queued.\nFollow it: dockbridge replays show run-1 --wait\n',
      });
      expect(detached.sent).toHaveLength(1);
      expect(JSON.parse(detached.sent[0].body!)).toEqual({ status: ['failed'], dryRun: false });
      const shown = await cli(['replays', 'show', 'run-1'], { body: run({ status: 'running', done: 1, replayed: 1 }) });
      expect(shown.sent[0].url).toBe(`${DEFAULT_URL}/v1/admin/replays/run-1`);
      expect(shown.stdout).toContain('Bulk replay run run-1: running');
      expect(shown.stdout).toContain('1 of 3 looked at: 1 replayed, 0 skipped.');
      const waited = await cli(['replays', 'show', 'run-1', '--wait'], {
        byRequest: (url, n) => ({
          body: run(n === 0 ? { status: 'running' } : { status: 'completed', done: 3, replayed: 3 }),
        }),
      });
      expect(waited.sent).toHaveLength(2);
      expect(waited.stdout).toContain('Replayed 3 messages; 0 skipped');
      const list = await cli(['replays', 'list', '--limit', '5'], { body: { items: [run({})] } });
      expect(list.sent[0].url).toBe(`${DEFAULT_URL}/v1/admin/replays?limit=5`);
    });
  });

  it('refuses --detach where nothing would run in the background', async () => {
    expect((await cli(['messages', 'replay', '--status', 'failed', '--detach'])).code).toBe(2);
    expect((await cli(['messages', 'replay', 'id-1', '--detach'])).code).toBe(2);
  });

  it('posts an EDI file to the preview with the API key header, not the admin token', async () => {
    const preview = {
      summary: { interchanges: 0, sets: 0, accepted: 0, rejected: 0, documents: 0 },
      nextSetsAfter: null,
      interchanges: [],
      transactionSets: [],
      documents: [],
      acknowledgments: [],
      problems: [],
    };
    const { code, sent } = await cli(['edi', 'preview', 'po.edi', '--api-key', 'dbk_key'], { body: preview });
    expect(code).toBe(0);
    expect(sent[0]).toMatchObject({ method: 'POST', url: `${DEFAULT_URL}/v1/edi/preview`, body: 'ISA*00*~' });
    expect(sent[0].headers).toMatchObject({ 'x-api-key': 'dbk_key', 'content-type': 'application/edi-x12' });
    expect(sent[0].headers.authorization).toBeUndefined();
  });

  it("exits 1 on a refusal and prints the gateway's error and details", async () => {
    const { code, stdout, stderr } = await cli(['messages', 'show', 'c0ffee00-0000-4000-8000-000000000000'], {
      status: 404,
      body: {
        statusCode: 404,
        error: 'NotFound',
        details: ['message c0ffee00-0000-4000-8000-000000000000 does not exist'],
      },
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe('error: NotFound (HTTP 404)\n  message c0ffee00-0000-4000-8000-000000000000 does not exist\n');
  });

  it('exits 1 on a 401 with a hint naming the credential, never its value, even when the gateway echoes it', async () => {
    const { code, stderr } = await cli(
      ['messages', 'list', '--token', 'wrong-token-1234', '--verbose'],
      { status: 401, body: { statusCode: 401, error: 'Unauthorized', details: ['bad token wrong-token-1234'] } },
      {},
    );
    expect(code).toBe(1);
    expect(stderr).toContain('error: Unauthorized (HTTP 401)');
    expect(stderr).toContain('check DOCKBRIDGE_ADMIN_TOKEN or --token');
    expect(stderr).toContain('> GET http://127.0.0.1:3000/v1/admin/messages -> 401');
    expect(stderr).not.toContain('wrong-token-1234');
  });

  it('exits 1 naming the URL when the gateway cannot be reached', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:3000'), { code: 'ECONNREFUSED' }),
    });
    const { code, stderr } = await cli(['messages', 'list', '--url', 'http://10.0.0.1:3000/', '-v'], { fail: refused });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^> GET http:\/\/10\.0\.0\.1:3000\/v1\/admin\/messages failed after \d+ ms\n/);
    expect(stderr).toContain('cannot reach the gateway at http://10.0.0.1:3000: connect ECONNREFUSED 10.0.0.1:3000');
  });

  it('never prints the credentials of a URL that fetch itself refuses (its error names the whole URL)', async () => {
    let stderr = '';
    // The real fetch: it refuses a URL with user:password before any connection is tried.
    const code = await run(['messages', 'list', '--url', 'http://ops:pw-do-not-print@127.0.0.1:9', '-v'], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
      env: { DOCKBRIDGE_ADMIN_TOKEN: TOKEN },
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:9\/v1\/admin\/messages failed after \d+ ms\n/);
    expect(stderr).toContain('cannot reach the gateway at http://127.0.0.1:9: ');
    expect(stderr).toContain('includes credentials: http://127.0.0.1:9/v1/admin/messages');
    expect(stderr).not.toContain('pw-do-not-print');
  });

  it.each([
    ['an unknown option', ['messages', 'list', '--colour', 'red']],
    ['a missing id', ['messages', 'show']],
    ['a bad --limit', ['messages', 'list', '--limit', 'ten']],
    ['a bad --mapping', ['messages', 'replay', 'id-1', '--mapping', 'latest']],
    ['a bulk replay without a filter', ['messages', 'replay', '--no-dry-run']],
    ['--dry-run with an id', ['messages', 'replay', 'id-1', '--dry-run']],
    ['a bad --url', ['messages', 'list', '--url', 'ftp://x']],
    ['an unreadable file', ['edi', 'preview', 'missing.edi', '--api-key', 'k']],
    ['a group without its command', ['messages']],
  ])('exits 2 and sends nothing on %s', async (_name, argv) => {
    const { code, sent, stderr } = await cli(argv);
    expect(code).toBe(2);
    expect(sent).toHaveLength(0);
    expect(stderr).not.toBe('');
  });

  it('exits 2 without a token or API key, and says where to set it', async () => {
    const admin = await cli(['messages', 'list'], {}, {});
    expect(admin).toMatchObject({ code: 2, sent: [] });
    expect(admin.stderr).toContain('no admin token: set DOCKBRIDGE_ADMIN_TOKEN');
    const edi = await cli(['edi', 'preview', 'po.edi'], {}, {});
    expect(edi).toMatchObject({ code: 2, sent: [] });
    expect(edi.stderr).toContain('no partner API key');
  });

  it('prints help with exit 0', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: dockbridge');
  });
});

describe('secretsOf', () => {
  it('finds the token and API key in both argument forms and in the environment', () => {
    expect(
      secretsOf(['--token', 'a1', '--api-key=b2', 'list'], {
        DOCKBRIDGE_ADMIN_TOKEN: 'c3',
        DOCKBRIDGE_API_KEY: undefined,
      }).sort(),
    ).toEqual(['a1', 'b2', 'c3']);
  });
});
