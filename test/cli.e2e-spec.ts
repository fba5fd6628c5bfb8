import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartnerRepository } from '@dockbridge/partners';
import { DEMO } from './support/sandbox';
import { ADMIN_TOKEN, Spine, startSpine } from './support/spine';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist/apps/cli/src/dockbridge.js');
const EDI_FIXTURES = join(__dirname, 'fixtures/edi');
const FINAL = ['delivered', 'failed', 'partially_failed'];

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `dockbridge` binary as a child process (asynchronously: the gateway answers from this process). */
function dockbridge(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const document = (id: string) => ({
  id,
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  offsite: { coreName: 'ACME', coreId: 'SUP-KETTLE' },
  carrier: { coreName: 'SCAC', coreId: 'FFRT' },
  type: { name: 'PurchaseOrder' },
});
const upsert = (id: string) => ({ kind: 'document.upsert', organisationId: DEMO.mainDc, document: document(id) });

describe('dockbridge CLI against a real gateway', () => {
  let spine: Spine;
  let env: Record<string, string>;
  let deliveredId: string;
  let failedId: string;
  let failedBody: string;

  beforeAll(async () => {
    // The binary under test is the swc build of apps/cli/src and the client it loads (libs/api-client), exactly
    // what `npm run build` emits there.
    execFileSync(
      join(ROOT, 'node_modules/.bin/swc'),
      ['apps/cli/src', 'libs/api-client/src', '--out-dir', 'dist', '--config-file', '.swcrc', '-q'],
      { cwd: ROOT, stdio: 'pipe' },
    );
    spine = await startSpine();
    env = { DOCKBRIDGE_URL: spine.url, DOCKBRIDGE_ADMIN_TOKEN: ADMIN_TOKEN };

    // One message delivered, then one failed for good by an injected permanent 400.
    deliveredId = (
      await (await spine.call('POST', '/v1/messages', { body: { operations: [upsert('CLI-OK-1')] } })).json()
    ).messageId;
    expect(await spine.waitForStatus(deliveredId, FINAL)).toBe('delivered');
    await spine.sandbox.call('POST', '/__sandbox/faults', {
      token: null,
      body: { rules: [{ method: 'PUT', path: '/api/v2/organisations/*/documents/*', status: 400 }] },
    });
    failedBody = JSON.stringify({ operations: [upsert('CLI-1')] });
    failedId = (await (await spine.call('POST', '/v1/messages', { body: failedBody })).json()).messageId;
    expect(await spine.waitForStatus(failedId, FINAL)).toBe('failed');
    await spine.sandbox.call('DELETE', '/__sandbox/faults', { token: null });
  }, 120_000);
  afterAll(() => spine?.close());

  it('lists the failed messages as a table, and as JSON', async () => {
    const table = await dockbridge(['messages', 'list', '--status', 'failed', '--partner', 'test-wms'], env);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +RECEIVED +PARTNER +CHANNEL +STATUS +REASON$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${failedId}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ  test-wms  api +failed`),
    );
    expect(table.stdout).not.toContain(deliveredId);
    expect(lines.at(-1)).toBe('1 message');

    const json = await dockbridge(['messages', 'list', '--status', 'failed', '--json'], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).items.map((m: { id: string }) => m.id)).toEqual([failedId]);

    const both = await dockbridge(
      ['messages', 'list', '--status', 'delivered,failed', '--document', 'CLI-OK-1', '--json'],
      env,
    );
    expect(JSON.parse(both.stdout).items.map((m: { id: string }) => m.id)).toEqual([deliveredId]);
  });

  it('shows the failed message: the operation, its permanent outcome, the attempt and last error, the events', async () => {
    const shown = await dockbridge(['messages', 'show', failedId], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Message ${failedId}`);
    expect(shown.stdout).toMatch(/ {2}status {4}failed/);
    expect(shown.stdout).toMatch(/#1 document\.upsert CLI-1 at \S+: failed \(permanent\), 1 attempt/);
    expect(shown.stdout).toMatch(/last error: .*Injected fault|last error: .*sandbox fault rule/);
    expect(shown.stdout).toMatch(/permanent {2}HTTP 400 {2}\d+ ms/);
    expect(shown.stdout).toMatch(/delivering -> failed {2}by worker/);

    const payload = await dockbridge(['messages', 'show', failedId, '--payload'], env);
    expect(payload).toMatchObject({ code: 0, stdout: failedBody });
  });

  it('counts a bulk replay as a dry run, then replays the message after the fault is cleared and it is delivered', async () => {
    const dry = await dockbridge(['messages', 'replay', '--status', 'failed', '--partner', 'test-wms'], env);
    expect(dry).toMatchObject({
      code: 0,
      stdout: 'Dry run: 1 message matches; nothing was replayed.\nAdd --no-dry-run to replay them.\n',
    });
    expect(await spine.messages.countBy({ partnerId: 'test-wms' })).toBe(2); // nothing recorded by the dry run

    const replay = await dockbridge(
      ['messages', 'replay', failedId, '--failed-only', '--reason', 'sandbox fault cleared', '--operator', 'cli-test'],
      env,
    );
    expect(replay.code).toBe(0);
    const replayId = /as new message (\S+) /.exec(replay.stdout)?.[1];
    expect(replayId).toBeDefined();
    expect(await spine.waitForStatus(replayId!, FINAL)).toBe('delivered');
    expect((await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/CLI-1`)).status).toBe(200);

    const shown = await dockbridge(['messages', 'show', replayId!, '--json'], env);
    const detail = JSON.parse(shown.stdout);
    expect(detail.message).toMatchObject({
      status: 'delivered',
      channel: 'replay',
      replayOf: failedId,
      metadata: { replay: { mode: 'failed-only', by: 'operator:cli-test', reason: 'sandbox fault cleared' } },
    });
    expect((await spine.messages.findById(failedId))?.status).toBe('failed'); // the original is never rewritten

    // Replayed successfully already: bulk replay skips it, saying why, unless told to include it. A real
    // bulk replay is a run on the gateway: the CLI waits for it, showing its progress, and prints the result.
    const skipping = await dockbridge(
      ['messages', 'replay', '--status', 'failed', '--partner', 'test-wms', '--no-dry-run'],
      env,
    );
    expect(skipping.code).toBe(0);
    const runId = /^Bulk replay run (\S+): completed/.exec(skipping.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(skipping.stdout).toContain('Replayed 0 messages; 1 skipped (1 looked at');
    expect(skipping.stdout).toMatch(new RegExp(`Skipped:\n  ${failedId}: already replayed: replay \\S+ was delivered`));
    // Not a terminal: a plain line per change of progress on stderr, ending with the finished run's.
    expect(skipping.stderr).toContain(`Waiting for bulk replay run ${runId}`);
    expect(skipping.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^completed +\[#{30}\] 1\/1 \(100%\) {2}replayed 0, skipped 1$/,
    );

    const bulk = await dockbridge(
      [
        'messages',
        'replay',
        '--status',
        'failed',
        '--partner',
        'test-wms',
        '--include-replayed',
        '--no-dry-run',
        '--json',
      ],
      env,
    );
    expect(bulk.code).toBe(0);
    const result = JSON.parse(bulk.stdout);
    expect(result).toMatchObject({
      status: 'completed',
      total: 1,
      done: 1,
      replayed: 1,
      skipped: 0,
      skips: [],
      limit: 10_000,
      limitReached: false,
    });
    const replays = await spine.messages.replaysOf(failedId);
    expect(replays).toHaveLength(2);
    expect(await spine.waitForStatus(replays[1].id, FINAL)).toBe('delivered');

    // --detach: the run's id at once; `replays show` reads the run, `--wait` waits for it.
    const detached = await dockbridge(
      ['messages', 'replay', '--status', 'failed', '--partner', 'test-wms', '--no-dry-run', '--detach'],
      env,
    );
    expect(detached.code).toBe(0);
    const detachedId = /^Bulk replay run (\S+) queued\.\nFollow it: dockbridge replays show \1 --wait\n$/.exec(
      detached.stdout,
    )?.[1];
    expect(detachedId).toBeDefined();
    const waited = await dockbridge(['replays', 'show', detachedId!, '--wait'], env);
    expect(waited).toMatchObject({ code: 0 });
    expect(waited.stdout).toContain(`Bulk replay run ${detachedId}: completed`);
    const run = JSON.parse((await dockbridge(['replays', 'show', detachedId!, '--json'], env)).stdout);
    expect(run).toMatchObject({ runId: detachedId, status: 'completed', replayed: 0, skipped: 1 });
    const listed = await dockbridge(['replays', 'list'], env);
    expect(listed.stdout.split('\n')[1]).toMatch(new RegExp(`^${detachedId}  .* completed +1/1 +0 +1 `));
  });

  it('previews an EDI file with a partner API key: documents and diagnostics, nothing recorded', async () => {
    const partners = spine.app.get(PartnerRepository);
    await partners.upsert(
      {
        id: 'kettle-cli',
        name: 'Kettle (CLI)',
        locationOrganisationId: DEMO.mainDc,
        settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
      },
      'api',
    );
    const { key } = await partners.issueApiKey('kettle-cli', { label: 'cli test' });
    const before = await spine.messages.countBy({});

    const good = await dockbridge(['edi', 'preview', join(EDI_FIXTURES, 'kettle-850-856.edi'), '--api-key', key], {
      DOCKBRIDGE_URL: spine.url,
    });
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(
      /Documents \(2\)\n {2}document\.upsert PO-7001 at \S+\n {2}document\.upsert ASN-7001 at \S+/,
    );
    expect(good.stdout).toMatch(/Acknowledgments: 997 for/);

    const bad = await dockbridge(
      ['edi', 'preview', join(EDI_FIXTURES, 'kettle-850-bad-quantity.edi'), '--api-key', key],
      { DOCKBRIDGE_URL: spine.url },
    );
    expect(bad.code).toBe(0);
    expect(bad.stdout).toMatch(/850 control \S+ document PO-7001: rejected\n {6}error PO1 \(segment \d+\) element 2: /);
    expect(bad.stdout).toContain('Documents (0)');
    expect(await spine.messages.countBy({})).toBe(before);

    const wrongKey = await dockbridge(
      ['edi', 'preview', join(EDI_FIXTURES, 'kettle-850-856.edi'), '--api-key', 'dbk_not-a-real-key-000'],
      { DOCKBRIDGE_URL: spine.url },
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('(HTTP 401)');
    expect(wrongKey.stderr).toContain('check DOCKBRIDGE_API_KEY or --api-key');
    expect(wrongKey.stderr + wrongKey.stdout).not.toContain('dbk_not-a-real-key-000');
  });

  it('sends an EDI file under its name, finds it by name or ISA13, and shows its 997', async () => {
    const partners = spine.app.get(PartnerRepository);
    await partners.upsert(
      {
        id: 'kettle-cli',
        name: 'Kettle (CLI)',
        locationOrganisationId: DEMO.mainDc,
        settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
      },
      'api',
    );
    const { key } = await partners.issueApiKey('kettle-cli', { label: 'cli send test' });
    const dir = mkdtempSync(join(tmpdir(), 'dockbridge-cli-'));
    try {
      const file = join(dir, 'kettle 0931.edi');
      writeFileSync(
        file,
        readFileSync(join(EDI_FIXTURES, 'kettle-850-856.edi'), 'utf8')
          .replaceAll('000000101', '000000931')
          .replaceAll('000000102', '000000932'),
      );
      const sent = await dockbridge(['send', file, '--wait', '--api-key', key, '--json'], {
        DOCKBRIDGE_URL: spine.url,
      });
      expect(sent.code).toBe(0);
      const { messageId: id, status } = JSON.parse(sent.stdout);
      expect(status).toBe('delivered');
      expect(id).toEqual(expect.any(String));

      const byName = await dockbridge(['messages', 'list', '--file', 'kettle 0931.edi', '--json'], env);
      expect(JSON.parse(byName.stdout).items.map((m: { id: string }) => m.id)).toEqual([id]);
      const byInterchange = await dockbridge(['messages', 'list', '--interchange', '932'], env);
      expect(byInterchange.stdout).toMatch(new RegExp(`^${id} .* kettle-cli +http-edi +delivered`, 'm'));
      const shown = await dockbridge(['messages', 'show', id], env);
      // The upload itself (kept in the partner's inbound folder, as an SFTP upload is), then a 997 per interchange.
      expect(shown.stdout).toMatch(
        /Files \(3\)\n {2}FILE +KIND +SIZE +WRITTEN +STATE\n {2}inbound\/kettle 0931\.edi +upload +\d+ bytes .* present\n {2}outbound\/997_000000931_\S+ +997 +\d+ bytes .* not fetched yet\n {2}outbound\/997_000000932_\S+ +997 +\d+ bytes .* not fetched yet\n/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 1 with the gateway's reason for an unknown message", async () => {
    const unknown = randomUUID();
    const shown = await dockbridge(['messages', 'show', unknown], env);
    expect(shown).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: NotFound (HTTP 404)\n  message ${unknown} does not exist\n`,
    });
    const replay = await dockbridge(['messages', 'replay', unknown], env);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(`message ${unknown} does not exist`);
    const end = await dockbridge(['messages', 'end', unknown, '--reason', 'stuck'], env);
    expect([end.code, end.stderr]).toEqual([1, `error: NotFound (HTTP 404)\n  message ${unknown} does not exist\n`]);
    // A settled message has nothing left to end: the gateway's reason, exit 1.
    const settled = await dockbridge(['messages', 'end', failedId, '--reason', 'stuck'], env);
    expect(settled.code).toBe(1);
    expect(settled.stderr).toContain(
      `message ${failedId} is failed: only a message being delivered has operations to end`,
    );
    expect((await dockbridge(['messages', 'end', failedId], env)).code).toBe(2); // --reason is required
    const notAnId = await dockbridge(['messages', 'show', 'not-an-id'], env);
    expect(notAnId.code).toBe(1);
    expect(notAnId.stderr).toMatch(/\(HTTP 400\)\n {2}.*uuid/);
  });

  it('refuses a wrong token clearly without echoing it, even with --verbose', async () => {
    const wrong = 'wrong-admin-token-4242';
    const run = await dockbridge(['messages', 'list', '--token', wrong, '--verbose'], { DOCKBRIDGE_URL: spine.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: Unauthorized (HTTP 401)\n  missing or invalid admin token\n(check DOCKBRIDGE_ADMIN_TOKEN or --token)',
    );
    expect(run.stderr).toContain(`> GET ${spine.url}/v1/admin/messages -> 401`);
    expect(run.stderr + run.stdout).not.toContain(wrong);

    const fromEnv = await dockbridge(['messages', 'list', '-v'], {
      DOCKBRIDGE_URL: spine.url,
      DOCKBRIDGE_ADMIN_TOKEN: wrong,
    });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr + fromEnv.stdout).not.toContain(wrong);
  });

  it('names the URL it could not reach, and exits 2 on usage errors without sending anything', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const down = await dockbridge(['messages', 'list'], { DOCKBRIDGE_URL: url, DOCKBRIDGE_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`error: cannot reach the gateway at ${url}: connect ECONNREFUSED`);
    expect(down.stderr).not.toContain(ADMIN_TOKEN);

    expect((await dockbridge(['messages', 'list', '--limit', '0'], env)).code).toBe(2);
    expect((await dockbridge(['messages', 'replay', failedId, '--dry-run'], env)).code).toBe(2);
    const noToken = await dockbridge(['messages', 'list'], { DOCKBRIDGE_URL: spine.url });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('no admin token');
  });

  it('lists and shows partners, and sends a file as the partner, waiting for its outcome', async () => {
    const list = await dockbridge(['partners', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^test-wms +Test WMS +yes +${DEMO.mainDc}`, 'm'));
    const shown = await dockbridge(['partners', 'show', 'test-wms'], env);
    expect(shown.stdout).toMatch(/^ {2}dbk_\S+… {2}tests {2}active/m);
    expect(shown.stdout).not.toContain(spine.partnerKey);

    const dir = mkdtempSync(join(tmpdir(), 'dockbridge-cli-'));
    try {
      const file = join(dir, 'po.json');
      writeFileSync(file, JSON.stringify({ operations: [upsert('CLI-SEND-1')] }));
      const sent = await dockbridge(['send', file, '--wait'], {
        DOCKBRIDGE_URL: spine.url,
        DOCKBRIDGE_API_KEY: spine.partnerKey,
      });
      expect(sent).toMatchObject({ code: 0, stderr: '' });
      expect(sent.stdout).toMatch(/^Message \S+: delivered\n {2}#1 document\.upsert CLI-SEND-1: delivered\n$/);
      expect(sent.stdout).not.toContain(spine.partnerKey);
      expect(
        (await spine.sandbox.call('GET', `/api/v2/organisations/${DEMO.mainDc}/documents/CLI-SEND-1`)).status,
      ).toBe(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('issues, lists and revokes operator tokens, and shows who did what', async () => {
    const created = await dockbridge(['operators', 'create', 'cli-dana', '--role', 'viewer', '--json'], env);
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.stdout);
    expect(issued).toMatchObject({ name: 'cli-dana', role: 'viewer', token: expect.stringMatching(/^dbo_/) });
    const asDana = { ...env, DOCKBRIDGE_ADMIN_TOKEN: issued.token };
    expect((await dockbridge(['whoami'], asDana)).stdout.trim()).toBe('cli-dana (viewer)');
    // A viewer may not issue tokens: the gateway's reason, exit 1.
    const refused = await dockbridge(['operators', 'create', 'eve', '--role', 'admin'], asDana);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cli-dana is a viewer: this needs the admin role/);
    const list = await dockbridge(['operators', 'list'], env);
    expect(list.stdout).toMatch(new RegExp(`cli-dana +viewer +${issued.hint.replace('…', '.')} +active`));
    expect(list.stdout).not.toContain(issued.token);
    expect((await dockbridge(['operators', 'revoke', issued.id], env)).stdout).toMatch(
      /^Revoked cli-dana's viewer token/,
    );
    expect((await dockbridge(['whoami'], asDana)).code).toBe(1);
    const activity = await dockbridge(['activity', '--target', `operator:${issued.id}`], env);
    expect(activity.stdout).toMatch(
      /operator:admin \(admin\) {2}operator\.revoke {2}operator:\S+ {2}revoked cli-dana's viewer token/,
    );
    expect(activity.stdout).toMatch(/operator\.create .* issued viewer token dbo_\S+ to cli-dana/);
  });
});
