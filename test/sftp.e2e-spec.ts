import { Logger } from '@nestjs/common';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import SftpClient from 'ssh2-sftp-client';
import { DataSource } from 'typeorm';
import { MessageQueries } from '@dockbridge/pipeline';
import {
  generateEd25519KeyPair,
  PartnerFileRepository,
  PartnerRepository,
  READ_SLICE_BYTES,
  sshFingerprint,
  SftpCredentialRepository,
} from '@dockbridge/partners';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

const PASSWORD = 'correct horse battery staple';
const OTHER_PASSWORD = 'another partner password';
const MAX_FILE_BYTES = 64 * 1024;

/** A small, well-formed 850 with CRLF after each terminator (a real-world quirk; bytes must survive). */
function x12(control: string, po: string): string {
  const segments = [
    `ISA*00*          *00*          *ZZ*TESTWMS        *ZZ*DOCKBRIDGE     *260301*1200*U*00401*${control}*0*T*>`,
    'GS*PO*TESTWMS*DOCKBRIDGE*20260301*1200*1*X*004010',
    'ST*850*0001',
    `BEG*00*SA*${po}**20260301`,
    'PO1*1*10*EA***VP*SKU-1',
    'SE*4*0001',
    'GE*1*1',
    `IEA*1*${control}`,
  ];
  return segments.map((s) => `${s}~\r\n`).join('');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('SFTP ingress (real ssh2 SFTP server, real client)', () => {
  let spine: Spine;
  let dir: string;
  let hostKeyPath: string;
  let port: number;
  let server: SftpServer;
  let files: PartnerFileRepository;
  let credentials: SftpCredentialRepository;
  let dataSource: DataSource;
  let clientKeys: { private: string; public: string };
  const clients: SftpClient[] = [];

  const connect = async (options: {
    username: string;
    password?: string;
    privateKey?: string;
  }): Promise<SftpClient> => {
    const client = new SftpClient();
    clients.push(client);
    await client.connect({
      host: '127.0.0.1',
      port,
      readyTimeout: 10_000,
      ...options,
      // Pin the server's host key: the fingerprint the server logged at start.
      hostVerifier: (key: Buffer) => sshFingerprint(key) === server.hostKeyFingerprint,
    });
    return client;
  };
  const loginFails = async (options: { username: string; password?: string; privateKey?: string }) => {
    await expect(connect(options)).rejects.toThrow(/authentication|auth/i);
  };
  const messagesFor = (
    partnerId: string,
    fileName: string,
  ): Promise<
    { id: string; channel: string; raw_payload: string; content_type: string; metadata: Record<string, unknown> }[]
  > =>
    dataSource.query(
      `SELECT id, channel, raw_payload, content_type, metadata FROM message WHERE partner_id = $1 AND metadata->>'fileName' = $2`,
      [partnerId, fileName],
    );
  const fileRows = (
    partnerId: string,
    name: string,
  ): Promise<{ id: string; message_id: string | null; removed_at: Date | null }[]> =>
    dataSource.query(`SELECT id, message_id, removed_at FROM partner_file WHERE partner_id = $1 AND name = $2`, [
      partnerId,
      name,
    ]);

  beforeAll(async () => {
    // ssh2-sftp-client console.logs "Global end/close listener" when a refused login drops the
    // connection; keep the test output readable, let anything else through.
    const log = console.log.bind(console);
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('Global ')) {
        return;
      }
      log(...args);
    });
    dir = mkdtempSync(join(tmpdir(), 'dockbridge-sftp-'));
    hostKeyPath = join(dir, 'keys', 'sftp_host_ed25519_key');
    // Its refused logins must not lock 127.0.0.1 out (the lockout has its own suite, sftp-abuse).
    spine = await startSpine({
      'sftp.port': 0,
      'sftp.hostKeyPath': hostKeyPath,
      'sftp.generateHostKey': true,
      'sftp.maxFileBytes': MAX_FILE_BYTES,
      'sftp.maxLoginFailures': 1000,
    });
    server = spine.app.get(SftpServer);
    port = server.port!;
    files = spine.app.get(PartnerFileRepository);
    credentials = spine.app.get(SftpCredentialRepository);
    dataSource = spine.app.get(DataSource);
    const partners = spine.app.get(PartnerRepository);
    await partners.upsert({ id: 'other-wms', name: 'Other WMS', locationOrganisationId: DEMO.mainDc }, 'api');
    await partners.upsert({ id: 'off-wms', name: 'Disabled WMS', locationOrganisationId: DEMO.mainDc }, 'api');
    await credentials.setPassword('test-wms', 'testwms', PASSWORD);
    await credentials.setPassword('other-wms', 'otherwms', OTHER_PASSWORD);
    await credentials.setPassword('off-wms', 'offwms', PASSWORD);
    await partners.setEnabled('off-wms', false);
    clientKeys = generateEd25519KeyPair('test-wms@tests');
    await credentials.addPublicKey('test-wms', 'testwms-key', clientKeys.public);
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await spine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on the bound port with a generated ed25519 host key (mode 0600)', () => {
    expect(port).toBeGreaterThan(0);
    expect(statSync(hostKeyPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(hostKeyPath, 'utf8')).toContain('OPENSSH PRIVATE KEY');
    expect(server.hostKeyFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('logs in with a password; the root holds exactly inbound and outbound', async () => {
    const client = await connect({ username: 'testwms', password: PASSWORD });
    expect(await client.realPath('.')).toBe('/');
    const root = await client.list('/');
    expect(root.map((e) => [e.name, e.type]).sort()).toEqual([
      ['inbound', 'd'],
      ['outbound', 'd'],
    ]);
    expect((await client.stat('/inbound')).isDirectory).toBe(true);
  });

  it('logs in with a public key', async () => {
    const client = await connect({ username: 'testwms-key', privateKey: clientKeys.private });
    expect((await client.list('/')).map((e) => e.name).sort()).toEqual(['inbound', 'outbound']);
  });

  it('refuses a wrong password, an unknown user, a revoked account, a disabled partner and a foreign key', async () => {
    await loginFails({ username: 'testwms', password: 'wrong password here' });
    await loginFails({ username: 'nobody', password: PASSWORD });
    await loginFails({ username: 'offwms', password: PASSWORD });
    // Someone else's key for a real account.
    await loginFails({ username: 'testwms-key', privateKey: generateEd25519KeyPair().private });
    // A password where only a key is set.
    await loginFails({ username: 'testwms-key', password: PASSWORD });

    await credentials.setPassword('test-wms', 'revoked-user', PASSWORD);
    const ok = await connect({ username: 'revoked-user', password: PASSWORD });
    await ok.end();
    await credentials.revoke('test-wms', 'revoked-user');
    await loginFails({ username: 'revoked-user', password: PASSWORD });
  });

  it('records an upload to /inbound as an sftp message with the exact bytes, linked to its partner_file row', async () => {
    const client = await connect({ username: 'testwms', password: PASSWORD });
    const bytes = Buffer.from(x12('000000101', 'PO-101'), 'utf8');
    await client.put(bytes, '/inbound/po-101.edi');

    const file = await files.read('test-wms', 'inbound', 'po-101.edi');
    expect(file).not.toBeNull();
    expect(file!.content.equals(bytes)).toBe(true);
    expect(file!.sha256).toBe(sha256(bytes));
    expect(file!.messageId).toEqual(expect.any(String));

    const [message, ...more] = await messagesFor('test-wms', 'po-101.edi');
    expect(more).toHaveLength(0);
    expect(message.id).toBe(file!.messageId);
    expect(message.channel).toBe('sftp');
    expect(message.content_type).toBe('application/edi-x12');
    // Stored once: the message points at the file instead of holding a copy of its text.
    expect(message.raw_payload).toBe('');
    expect(message.metadata).toMatchObject({
      fileName: 'po-101.edi',
      size: bytes.length,
      sha256: sha256(bytes),
      via: 'sftp',
      fileId: file!.id,
      payloadFile: file!.id,
    });
    const stored = await spine.messages.findById(message.id);
    expect(stored?.channel).toBe('sftp');

    // The partner sees its upload; it cannot remove what already became a message.
    const inbound = await client.list('/inbound');
    expect(inbound.find((e) => e.name === 'po-101.edi')?.size).toBe(bytes.length);
    await expect(client.delete('/inbound/po-101.edi')).rejects.toThrow(/received as message|denied/i);
    expect(await files.stat('test-wms', 'inbound', 'po-101.edi')).not.toBeNull();
  });

  it('records a .tmp upload only when renamed to its final name, exactly once', async () => {
    const client = await connect({ username: 'testwms', password: PASSWORD });
    const bytes = Buffer.from(x12('000000102', 'PO-102'), 'utf8');
    await client.put(bytes, '/inbound/po-102.edi.tmp');
    expect((await files.stat('test-wms', 'inbound', 'po-102.edi.tmp'))?.messageId).toBeNull();
    expect(await messagesFor('test-wms', 'po-102.edi.tmp')).toHaveLength(0);

    await client.rename('/inbound/po-102.edi.tmp', '/inbound/po-102.edi');
    const renamed = await files.stat('test-wms', 'inbound', 'po-102.edi');
    expect(await files.stat('test-wms', 'inbound', 'po-102.edi.tmp')).toBeNull();
    const messages = await messagesFor('test-wms', 'po-102.edi');
    expect(messages).toHaveLength(1);
    expect(renamed?.messageId).toBe(messages[0].id);
    expect(messages[0].metadata).toMatchObject({ payloadFile: renamed!.id, size: bytes.length });
    expect((await files.read('test-wms', 'inbound', 'po-102.edi'))!.content.equals(bytes)).toBe(true);
    expect(await messagesFor('test-wms', 'po-102.edi.tmp')).toHaveLength(0);

    // Renaming a received file again records nothing new; renaming onto an existing name is refused.
    await client.rename('/inbound/po-102.edi', '/inbound/po-102-done.edi');
    expect(await messagesFor('test-wms', 'po-102-done.edi')).toHaveLength(0);
    await client.put(Buffer.from('x'), '/inbound/other.part');
    await expect(client.rename('/inbound/other.part', '/inbound/po-102-done.edi')).rejects.toThrow(/exists|failure/i);
    // An unfinished upload may be removed.
    await client.delete('/inbound/other.part');
    expect(await files.stat('test-wms', 'inbound', 'other.part')).toBeNull();
  });

  it('lists, downloads byte-exact and removes an outbound file', async () => {
    const ack = Buffer.from(
      `ISA*00*...~GS*FA*DOCKBRIDGE*TESTWMS~ST*997*0001~AK1*PO*1~AK9*A*1*1*1~SE*4*0001~\r\n\u00e9\u0000end`,
      'utf8',
    );
    const put = await files.put('test-wms', 'outbound', '997-000000101.x12', ack, { kind: '997' });
    const client = await connect({ username: 'testwms', password: PASSWORD });
    const listing = await client.list('/outbound');
    expect(listing.map((e) => [e.name, e.size, e.type])).toEqual([['997-000000101.x12', ack.length, '-']]);
    expect(listing[0].modifyTime).toBe(Math.floor(put.createdAt.getTime() / 1000) * 1000);

    const fetchedAtOf = async () =>
      (
        (await dataSource.query(`SELECT fetched_at FROM partner_file WHERE id = $1`, [put.id])) as {
          fetched_at: Date | null;
        }[]
      )[0].fetched_at;
    expect(await fetchedAtOf()).toBeNull(); // listed is not fetched
    const fetched = (await client.get('/outbound/997-000000101.x12')) as Buffer;
    expect(Buffer.isBuffer(fetched) && fetched.equals(ack)).toBe(true);
    // "Did the carrier fetch its 997?": the first read says so, and a second read leaves the time alone.
    const first = await fetchedAtOf();
    expect(first).toBeInstanceOf(Date);
    await client.get('/outbound/997-000000101.x12');
    expect(await fetchedAtOf()).toEqual(first);

    // Read-only folder: no uploads into outbound.
    await expect(client.put(Buffer.from('x'), '/outbound/mine.x12')).rejects.toThrow(/read-only|denied/i);

    await client.delete('/outbound/997-000000101.x12');
    expect(await client.list('/outbound')).toEqual([]);
    expect(await files.stat('test-wms', 'outbound', '997-000000101.x12')).toBeNull();
    const rows = await fileRows('test-wms', '997-000000101.x12');
    expect(rows).toHaveLength(1);
    expect(rows[0].removed_at).not.toBeNull(); // kept for the record
  });

  // A partner grows its folders (every upload, every 997 of a 10,000-interchange file): OPENDIR used
  // to read the whole folder into the handle, and 64 handles a session could hold it 64 times.
  it('lists a folder of any size a page at a time, in name order, never reading it whole', async () => {
    await spine.app
      .get(PartnerRepository)
      .upsert({ id: 'many-wms', name: 'Many Files WMS', locationOrganisationId: DEMO.mainDc }, 'api');
    await credentials.setPassword('many-wms', 'manywms', PASSWORD);
    const names = Array.from({ length: 250 }, (_, i) => `997-${String(i).padStart(9, '0')}.x12`);
    await files.putMany(
      'many-wms',
      'outbound',
      names.map((name) => ({ name, content: Buffer.from(`ack ${name}`), kind: '997' as const })),
    );
    const pages: number[] = [];
    const list = files.list.bind(files);
    const spy = jest.spyOn(files, 'list').mockImplementation(async (...args) => {
      const page = await list(...args);
      pages.push(page.length);
      return page;
    });
    try {
      const client = await connect({ username: 'manywms', password: PASSWORD });
      const listing = await client.list('/outbound');
      expect(listing.map((e) => e.name).sort()).toEqual(names);
      expect(pages.reduce((a, b) => a + b, 0)).toBe(250);
      expect(Math.max(...pages)).toBeLessThanOrEqual(100);
      // A page is read when asked: a file written after the first page is in a later one.
      pages.length = 0;
      const sftp = (client as unknown as { sftp: SFTPWrapper }).sftp;
      const call = <T>(run: (done: (error: Error | null | undefined, value?: T) => void) => void) =>
        new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
      const handle = await call<Buffer>((done) => sftp.opendir('/outbound', done));
      const first = await call<{ filename: string }[]>((done) => sftp.readdir(handle, done));
      await files.put('many-wms', 'outbound', '999-late.x12', Buffer.from('late'), { kind: '997' });
      const rest: string[] = [];
      for (;;) {
        const page = await call<{ filename: string }[]>((done) => sftp.readdir(handle, done)).catch(() => null);
        if (!page) {
          break;
        }
        rest.push(...page.map((e) => e.filename));
      }
      await call((done) => sftp.close(handle, done));
      expect(first).toHaveLength(100);
      expect([...first.map((e) => e.filename), ...rest]).toEqual([...names, '999-late.x12']);
    } finally {
      spy.mockRestore();
      await Promise.all([...names, '999-late.x12'].map((name) => files.remove('many-wms', 'outbound', name)));
    }
  });

  it('serves a file larger than a read slice byte-exact, never fetching all of it in one query', async () => {
    // bytea comes back from the driver as hex text, buffered whole: one query for a 60 MiB file took ~550 MiB.
    const big = Buffer.alloc(READ_SLICE_BYTES * 2 + 12345);
    for (let i = 0; i < big.length; i += 4096) {
      big.writeUInt32BE(i, i);
    }
    await files.put('test-wms', 'outbound', 'big-export.csv', big, { kind: 'export' });
    let largest = 0;
    const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
    const spy = jest.spyOn(dataSource, 'createQueryRunner').mockImplementation((...args) => {
      const runner = createQueryRunner(...args);
      const query = runner.query.bind(runner) as (...a: unknown[]) => Promise<{ records?: { content?: unknown }[] }>;
      runner.query = (async (...a: unknown[]) => {
        const result = await query(...a);
        for (const row of result?.records ?? []) {
          if (Buffer.isBuffer(row.content)) {
            largest = Math.max(largest, row.content.length);
          }
        }
        return result;
      }) as typeof runner.query;
      return runner;
    });
    try {
      const client = await connect({ username: 'testwms', password: PASSWORD });
      const fetched = (await client.get('/outbound/big-export.csv')) as Buffer;
      expect(fetched.length).toBe(big.length);
      expect(fetched.equals(big)).toBe(true);
      expect((await files.read('test-wms', 'outbound', 'big-export.csv'))!.content.equals(big)).toBe(true);
      expect(largest).toBeGreaterThan(0);
      expect(largest).toBeLessThanOrEqual(READ_SLICE_BYTES);
    } finally {
      spy.mockRestore();
      await files.remove('test-wms', 'outbound', 'big-export.csv');
    }
  });

  it('refuses path traversal and anything outside the two folders', async () => {
    const client = await connect({ username: 'testwms', password: PASSWORD });
    await expect(client.get('/inbound/../../etc/passwd')).rejects.toThrow(/denied|outside/i);
    await expect(client.list('/../other')).rejects.toThrow(/denied|outside/i);
    await expect(client.list('/etc')).rejects.toThrow(/denied|outside/i);
    await expect(client.put(Buffer.from('x'), '/tmp/evil.edi')).rejects.toThrow(/denied|outside/i);
    await expect(client.put(Buffer.from('x'), '../../tmp/evil.edi')).rejects.toThrow(/denied|outside/i);
    await expect(client.rename('/inbound/po-101.edi', '/outbound/po-101.edi')).rejects.toThrow(/denied|within/i);
    await expect(client.mkdir('/inbound/sub')).rejects.toThrow(/denied|cannot/i);
    await expect(client.rmdir('/inbound')).rejects.toThrow(/denied|cannot/i);
    // `..` above the root stays at the root.
    expect(await client.realPath('/../..')).toBe('/');
  });

  it("never shows or serves another partner's files", async () => {
    const secret = Buffer.from('ISA*00*other~');
    await files.put('other-wms', 'outbound', 'secret-997.x12', secret, { kind: '997' });
    const mine = await connect({ username: 'testwms', password: PASSWORD });
    expect((await mine.list('/outbound')).map((e) => e.name)).not.toContain('secret-997.x12');
    await expect(mine.get('/outbound/secret-997.x12')).rejects.toThrow(/no such file/i);
    await expect(mine.get('/other-wms/outbound/secret-997.x12')).rejects.toThrow(/denied|outside/i);
    await expect(mine.delete('/outbound/secret-997.x12')).rejects.toThrow(/no such file/i);
    expect(await files.stat('other-wms', 'outbound', 'secret-997.x12')).not.toBeNull();

    const theirs = await connect({ username: 'otherwms', password: OTHER_PASSWORD });
    expect(((await theirs.get('/outbound/secret-997.x12')) as Buffer).equals(secret)).toBe(true);
  });

  it('fails an upload larger than sftp.maxFileBytes, records nothing and logs the refusal for operators', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const client = await connect({ username: 'testwms', password: PASSWORD });
    await expect(client.put(Buffer.alloc(MAX_FILE_BYTES + 1, 'A'), '/inbound/too-big.edi')).rejects.toThrow(
      /maximum size/i,
    );
    expect(await fileRows('test-wms', 'too-big.edi')).toHaveLength(0);
    expect(await messagesFor('test-wms', 'too-big.edi')).toHaveLength(0);
    // The partner's client may show only "Failure" (OpenSSH does): the log says whose file and why.
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({
        msg: expect.stringMatching(/refused.*maxFileBytes/),
        partnerId: 'test-wms',
        fileName: 'too-big.edi',
        maxFileBytes: MAX_FILE_BYTES,
      }),
    );
    warn.mockRestore();
    // Exactly the limit is fine.
    await client.put(Buffer.alloc(MAX_FILE_BYTES, 'A'), '/inbound/just-fits.edi');
    expect(await messagesFor('test-wms', 'just-fits.edi')).toHaveLength(1);
  });

  it('fails an empty upload and records nothing', async () => {
    const client = await connect({ username: 'testwms', password: PASSWORD });
    await expect(client.put(Buffer.alloc(0), '/inbound/empty.edi')).rejects.toThrow(/empty/i);
    expect(await fileRows('test-wms', 'empty.edi')).toHaveLength(0);
    expect(await messagesFor('test-wms', 'empty.edi')).toHaveLength(0);
  });

  it('answers CLOSE with a failure when the message cannot be recorded, and keeps no file', async () => {
    const execute = jest.spyOn(spine.messages, 'recordIn').mockRejectedValueOnce(new Error('database unavailable'));
    try {
      const client = await connect({ username: 'testwms', password: PASSWORD });
      await expect(client.put(Buffer.from(x12('000000104', 'PO-104')), '/inbound/po-104.edi')).rejects.toThrow(
        /could not be recorded/i,
      );
      expect(execute).toHaveBeenCalledTimes(1);
      expect(await files.stat('test-wms', 'inbound', 'po-104.edi')).toBeNull();
      expect(await messagesFor('test-wms', 'po-104.edi')).toHaveLength(0);
      // The retry of the same upload goes through.
      await client.put(Buffer.from(x12('000000104', 'PO-104')), '/inbound/po-104.edi');
      expect(await messagesFor('test-wms', 'po-104.edi')).toHaveLength(1);
    } finally {
      execute.mockRestore();
    }
  });

  it('keeps every partner file operation inside one partner (repository)', async () => {
    const a = await files.put('test-wms', 'outbound', 'same-name.x12', Buffer.from('mine v1'));
    const b = await files.put('test-wms', 'outbound', 'same-name.x12', Buffer.from('mine v2'), { kind: 'export' });
    await files.put('other-wms', 'outbound', 'same-name.x12', Buffer.from('theirs'));
    expect(b.id).not.toBe(a.id);
    expect((await files.read('test-wms', 'outbound', 'same-name.x12'))!.content.toString()).toBe('mine v2');
    expect((await files.read('other-wms', 'outbound', 'same-name.x12'))!.content.toString()).toBe('theirs');
    expect((await files.list('test-wms', 'outbound')).filter((f) => f.name === 'same-name.x12')).toEqual([
      expect.objectContaining({ id: b.id, kind: 'export', size: 7 }),
    ]);
    await expect(files.rename('test-wms', 'outbound', 'same-name.x12', '../x')).rejects.toThrow(
      /invalid partner file path/,
    );
    await expect(files.put('test-wms', 'outbound', 'a/b', Buffer.from('x'))).rejects.toThrow(
      /invalid partner file path/,
    );
    await expect(files.put('no-such-partner', 'outbound', 'x', Buffer.from('x'))).rejects.toThrow(/not found/);
    await files.put('test-wms', 'outbound', 'target.x12', Buffer.from('t'));
    await expect(files.rename('test-wms', 'outbound', 'same-name.x12', 'target.x12')).rejects.toThrow(/already exists/);
    await files.rename('test-wms', 'outbound', 'same-name.x12', 'target.x12', { overwrite: true });
    expect((await files.read('test-wms', 'outbound', 'target.x12'))!.content.toString()).toBe('mine v2');
    expect(await files.remove('test-wms', 'outbound', 'target.x12')).toBe(true);
    expect(await files.remove('test-wms', 'outbound', 'target.x12')).toBe(false);
    expect(await files.stat('other-wms', 'outbound', 'same-name.x12')).not.toBeNull();
    await files.remove('other-wms', 'outbound', 'same-name.x12');
  });

  it('never returns password hashes; refuses taken, revoked and malformed credentials', async () => {
    const [summary] = (await credentials.list('test-wms')).filter((c) => c.username === 'testwms-key');
    expect(summary).toEqual(
      expect.objectContaining({
        hasPassword: false,
        publicKeyType: 'ssh-ed25519',
        publicKeyFingerprint: expect.stringMatching(/^SHA256:/),
      }),
    );
    expect(JSON.stringify(await credentials.list('test-wms'))).not.toMatch(/scrypt|correct horse/);
    const [row] = await dataSource.query(
      `SELECT password_hash FROM partner_sftp_credential WHERE username = 'testwms'`,
    );
    expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(row.password_hash).not.toContain(PASSWORD);
    await expect(credentials.setPassword('other-wms', 'testwms', OTHER_PASSWORD)).rejects.toThrow(/another partner/);
    await expect(credentials.setPassword('test-wms', 'revoked-user', PASSWORD)).rejects.toThrow(/revoked/);
    await expect(credentials.setPassword('test-wms', 'short', 'tooshort')).rejects.toThrow(/at least/);
    await expect(credentials.setPassword('test-wms', 'bad name!', PASSWORD)).rejects.toThrow(/user name/);
    await expect(credentials.addPublicKey('test-wms', 'k2', clientKeys.private)).rejects.toThrow(/private key/);
    await expect(credentials.addPublicKey('test-wms', 'k2', 'ssh-ed25519 AAAAnotakey')).rejects.toThrow(
      /not an OpenSSH public key/,
    );
  });

  it('records bytes that are not UTF-8 as latin1 text and says so', async () => {
    const client = await connect({ username: 'testwms', password: PASSWORD });
    const bytes = Buffer.concat([Buffer.from('ISA*00*caf'), Buffer.from([0xe9, 0xff]), Buffer.from('~')]);
    await client.put(bytes, '/inbound/latin1.edi');
    const [message] = await messagesFor('test-wms', 'latin1.edi');
    expect(message.metadata).toMatchObject({ encoding: 'latin1', sha256: sha256(bytes) });
    expect((await files.read('test-wms', 'inbound', 'latin1.edi'))!.content.equals(bytes)).toBe(true);
    const detail = (await spine.app.get(MessageQueries).detail(message.id))!;
    expect(detail.message.rawPayload).toBe(bytes.toString('latin1'));
  });

  const openssh = (() => {
    try {
      return execFileSync('sh', ['-c', 'command -v sftp'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();
  if (!openssh) {
    it.skip('OpenSSH sftp client: skipped, `sftp` is not installed (apt-get install openssh-client)', () => undefined);
  }
  (openssh ? it : it.skip)(
    'works with OpenSSH sftp non-interactively (password through SSH_ASKPASS): put, ls, get, bye',
    async () => {
      const work = mkdtempSync(join(dir, 'openssh-'));
      const askpass = join(work, 'askpass.sh');
      writeFileSync(askpass, `#!/bin/sh\necho '${PASSWORD}'\n`);
      chmodSync(askpass, 0o700);
      const upload = Buffer.from(x12('000000103', 'PO-103'), 'utf8');
      writeFileSync(join(work, 'po-103.edi'), upload);
      const ack = Buffer.from('ISA*00*ack-for-openssh~\r\n');
      await files.put('test-wms', 'outbound', 'ack-103.x12', ack, { kind: '997' });

      const commands = [
        `put ${join(work, 'po-103.edi')} /inbound/po-103.edi.tmp`,
        'rename /inbound/po-103.edi.tmp /inbound/po-103.edi',
        'cd /inbound',
        'ls -l',
        `get /outbound/ack-103.x12 ${join(work, 'ack-103.x12')}`,
        'rm /outbound/ack-103.x12',
        'bye',
        '',
      ].join('\n');
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(
          openssh,
          [
            '-P',
            String(port),
            '-o',
            'StrictHostKeyChecking=no',
            '-o',
            'UserKnownHostsFile=/dev/null',
            '-o',
            'PubkeyAuthentication=no',
            '-o',
            'PreferredAuthentications=password',
            '-o',
            'NumberOfPasswordPrompts=1',
            'testwms@127.0.0.1',
          ],
          {
            env: { ...process.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' },
            stdio: ['pipe', 'pipe', 'pipe'],
            detached: true,
          },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(
            new Error(
              `OpenSSH sftp did not finish (it hangs after bye when the server does not end the channel)\n${stdout}\n${stderr}`,
            ),
          );
        }, 20_000);
        child.on('error', reject);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
        child.stdin.end(commands);
      });
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/denied|fail|error|not found|couldn't/i);
      expect(result.stdout).toContain('sftp> bye');
      expect(result.stdout).toMatch(/-rw-r--r--\s+1 testwms\s+testwms\s+\d+ \w{3} [ \d]\d \d\d:\d\d po-103\.edi/);
      expect(readFileSync(join(work, 'ack-103.x12')).equals(ack)).toBe(true);
      const [message, ...more] = await messagesFor('test-wms', 'po-103.edi');
      expect(more).toHaveLength(0);
      expect((await files.read('test-wms', 'inbound', 'po-103.edi'))!.content.equals(upload)).toBe(true);
      expect((await files.stat('test-wms', 'inbound', 'po-103.edi'))?.messageId).toBe(message.id);
      expect(await files.stat('test-wms', 'inbound', 'po-103.edi.tmp')).toBeNull();
      expect(await files.stat('test-wms', 'outbound', 'ack-103.x12')).toBeNull();
    },
    30_000,
  );
});
