import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, SFTPWrapper } from 'ssh2';
import { DataSource } from 'typeorm';
import { PartnerRepository, SftpCredentialRepository } from '@dockbridge/partners';
import { DEMO } from './support/sandbox';
import { createGatewayApp } from '../apps/gateway/src/gateway.app';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { AppConfig, loadConfig } from '@dockbridge/config';
import { Spine, startSpine } from './support/spine';

const PASSWORD = 'sftp-abuse-password-0123';
const MiB = 1024 * 1024;

/**
 * What a careless or hostile partner can do with raw SFTP requests must never stop the gateway: a
 * write far past the end (a sparse file of NULs), binary content, and the process's own signals.
 */
describe('SFTP uploads that cannot stop the gateway', () => {
  let spine: Spine;
  let connection: Client;
  let sftp: SFTPWrapper;
  let hookedBefore: Record<string, number>;
  const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGILL', 'SIGTRAP', 'SIGABRT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'] as const;

  const call = <T = void>(run: (done: (error: Error | null | undefined, value?: T) => void) => void) =>
    new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
  const open = (path: string) => call<Buffer>((done) => sftp.open(path, 'w', done));
  const write = (handle: Buffer, data: Buffer, offset: number) =>
    call((done) => sftp.write(handle, data, 0, data.length, offset, done));
  const close = (handle: Buffer) => call((done) => sftp.close(handle, done));
  const messagesNamed = async (fileName: string): Promise<number> =>
    Number(
      (
        await spine.app
          .get(DataSource)
          .query(`SELECT count(*) AS n FROM message WHERE metadata->>'fileName' = $1`, [fileName])
      )[0].n,
    );
  const healthWithin = async (ms: number) => {
    const started = Date.now();
    const response = await fetch(`${spine.url}/health`, { signal: AbortSignal.timeout(ms) });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(ms);
  };

  /** A new connection's SFTP channel (rejects when the login is refused). */
  const login = (username: string, password: string) =>
    new Promise<{ connection: Client; sftp: SFTPWrapper }>((resolve, reject) => {
      const c = new Client();
      c.on('ready', () =>
        c.sftp((error, channel) => (error ? reject(error) : resolve({ connection: c, sftp: channel }))),
      );
      c.on('error', reject);
      c.connect({
        host: '127.0.0.1',
        port: spine.app.get(SftpServer).port!,
        username,
        password,
        readyTimeout: 10_000,
        tryKeyboard: false,
      });
    });

  beforeAll(async () => {
    hookedBefore = Object.fromEntries(SIGNALS.map((s) => [s, process.listenerCount(s)]));
    spine = await startSpine({ 'sftp.maxFileBytes': 256 * MiB });
    await spine.app.get(SftpCredentialRepository).setPassword('test-wms', 'abuser', PASSWORD);
    connection = new Client();
    sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
      connection.on('ready', () => connection.sftp((error, channel) => (error ? reject(error) : resolve(channel))));
      connection.on('error', reject);
      connection.connect({
        host: '127.0.0.1',
        port: spine.app.get(SftpServer).port!,
        username: 'abuser',
        password: PASSWORD,
        readyTimeout: 10_000,
      });
    });
  }, 60_000);
  afterAll(async () => {
    connection?.end();
    await spine?.close();
  });

  it('refuses a write far past the end (a sparse file) when it happens, and keeps serving', async () => {
    const handle = await open('/inbound/sparse.edi');
    await expect(write(handle, Buffer.from('~'), 64 * MiB - 1)).rejects.toThrow(
      `a write at offset ${64 * MiB - 1} would leave a hole after the 0 bytes written in order so far`,
    );
    await expect(close(handle)).rejects.toThrow(/is empty/);
    await healthWithin(1000);
    expect(await messagesNamed('sparse.edi')).toBe(0);

    // The same session still takes a good file.
    const good = await open('/inbound/after-sparse.edi');
    await write(good, Buffer.from('ISA*00*'), 0);
    await close(good);
    expect(await messagesNamed('after-sparse.edi')).toBe(1);
  });

  // Each write ahead used to move the window on, allocating its hole: 16 one-byte writes made 256 MiB.
  it('keeps writes ahead within one window of what was written in order, and refuses a hole at close', async () => {
    const handle = await open('/inbound/stepping.edi');
    await write(handle, Buffer.from('~'), 15 * MiB);
    await expect(write(handle, Buffer.from('~'), 30 * MiB)).rejects.toThrow(
      `a write at offset ${30 * MiB} would leave a hole after the 0 bytes written in order so far`,
    );
    await expect(close(handle)).rejects.toThrow(
      `/inbound/stepping.edi: the file has a hole: bytes 0 to ${15 * MiB - 1} were never written; nothing was recorded`,
    );
    await healthWithin(1000);
    expect(await messagesNamed('stepping.edi')).toBe(0);
  });

  it('takes writes out of order within the window clients use', async () => {
    const handle = await open('/inbound/out-of-order.edi');
    await write(handle, Buffer.from('B'.repeat(1000)), 1000);
    await write(handle, Buffer.from('A'.repeat(1000)), 0);
    await close(handle);
    expect(await messagesNamed('out-of-order.edi')).toBe(1);
  });

  it('refuses binary content (a NUL byte) at close, naming where, and records nothing', async () => {
    const handle = await open('/inbound/binary.edi');
    await write(handle, Buffer.concat([Buffer.from('ISA*00*'), Buffer.alloc(32 * MiB), Buffer.from('~')]), 0);
    await expect(close(handle)).rejects.toThrow(
      '/inbound/binary.edi: the file holds a NUL byte at offset 7: X12 is text',
    );
    await healthWithin(1000);
    expect(await messagesNamed('binary.edi')).toBe(0);
    const listed = await call<{ filename: string }[]>((done) => sftp.readdir('/inbound', done));
    expect(listed.map((f) => f.filename)).not.toContain('binary.edi');
  }, 60_000);

  it('refuses binary content at CLOSE, under a temporary name too, and keeps nothing of it', async () => {
    const handle = await open('/inbound/upload.tmp');
    await write(handle, Buffer.from('ISA\u0000'), 0);
    await expect(close(handle)).rejects.toThrow(/NUL byte at offset 3/);
    const listed = await call<{ filename: string }[]>((done) => sftp.readdir('/inbound', done));
    expect(listed.map((f) => f.filename)).not.toContain('upload.tmp');
    expect(await messagesNamed('upload.tmp')).toBe(0);
  });

  it('ends what a session may do once its account is revoked or its partner disabled', async () => {
    const credentials = spine.app.get(SftpCredentialRepository);
    const ask = <T = void>(run: (done: (error: Error | null | undefined, value?: T) => void) => void) =>
      new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
    const closed = (c: Client) => new Promise<void>((resolve) => c.once('close', () => resolve()));
    const REFUSED = /revoked or its partner disabled since login/;

    // Three sessions logged in before the account is revoked: one mid-upload.
    await credentials.setPassword('test-wms', 'revokee', PASSWORD);
    const [uploading, opening, listing] = [
      await login('revokee', PASSWORD),
      await login('revokee', PASSWORD),
      await login('revokee', PASSWORD),
    ];
    const handle = await ask<Buffer>((done) => uploading.sftp.open('/inbound/before-revoke.edi', 'w', done));
    await ask((done) => uploading.sftp.write(handle, Buffer.from('ISA*00*'), 0, 7, 0, done));
    await credentials.revoke('test-wms', 'revokee');

    const ended = closed(uploading.connection);
    await expect(ask((done) => uploading.sftp.close(handle, done))).rejects.toThrow(REFUSED);
    await ended; // the connection, not only the channel: no new channel can start over
    await expect(ask<Buffer>((done) => opening.sftp.open('/inbound/after-revoke.edi', 'w', done))).rejects.toThrow(
      REFUSED,
    );
    await expect(ask<unknown[]>((done) => listing.sftp.readdir('/outbound', done))).rejects.toThrow(REFUSED);
    expect(await messagesNamed('before-revoke.edi')).toBe(0);
    expect(await messagesNamed('after-revoke.edi')).toBe(0);
    for (const s of [opening, listing]) {
      s.connection.end();
    }

    const partners = spine.app.get(PartnerRepository);
    await partners.upsert({ id: 'soon-off', name: 'Soon disabled', locationOrganisationId: DEMO.mainDc }, 'api');
    await credentials.setPassword('soon-off', 'soonoff', PASSWORD);
    const [soonOff, removing] = [await login('soonoff', PASSWORD), await login('soonoff', PASSWORD)];
    await partners.setEnabled('soon-off', false);
    await expect(ask<Buffer>((done) => soonOff.sftp.open('/inbound/x.edi', 'w', done))).rejects.toThrow(REFUSED);
    await expect(ask((done) => removing.sftp.unlink('/outbound/any.x12', done))).rejects.toThrow(REFUSED);
    for (const s of [soonOff, removing]) {
      s.connection.end();
    }
  });

  it('refuses to start without its host key unless told to create one, naming the file', async () => {
    const missing = join(tmpdir(), `dockbridge-no-host-key-${Date.now()}`);
    const config = loadConfig({
      env: {},
      dir: '/nonexistent',
      overrides: {
        ...flatten(spine.config),
        'sftp.hostKeyPath': missing,
        'sftp.generateHostKey': undefined,
        'gateway.port': 0,
        'sftp.port': 0,
      },
    });
    expect(config.sftp.generateHostKey).toBe(false);
    const replica = await createGatewayApp({ config });
    await expect(replica.listen(0, '127.0.0.1')).rejects.toThrow(`SFTP host key ${missing} does not exist`);
    await replica.close().catch(() => undefined);
    expect(existsSync(missing)).toBe(false);
  });

  it('hooks only SIGTERM and SIGINT, so a fatal V8 error ends the process instead of spinning', () => {
    const added = Object.fromEntries(SIGNALS.map((s) => [s, process.listenerCount(s) - hookedBefore[s]]));
    expect(added).toEqual({
      SIGTERM: 1,
      SIGINT: 1,
      SIGILL: 0,
      SIGTRAP: 0,
      SIGABRT: 0,
      SIGHUP: 0,
      SIGQUIT: 0,
      SIGUSR2: 0,
    });
  });

  // Last: it locks this address out for the rest of the suite.
  it('locks a user name out after repeated wrong passwords, even for the right one', async () => {
    await spine.app.get(SftpCredentialRepository).setPassword('test-wms', 'guessed', PASSWORD);
    for (let i = 0; i < 5; i++) {
      await expect(login('guessed', `wrong-${i}`)).rejects.toThrow(/authentication/i);
    }
    await expect(login('guessed', PASSWORD)).rejects.toThrow(/authentication/i);
    // The session opened before the lockout goes on.
    expect(await call<unknown[]>((done) => sftp.readdir('/inbound', done))).toBeDefined();
  }, 60_000);
});

/** A loaded configuration as `loadConfig` overrides (dotted keys), to start a second process like the first. */
function flatten(config: AppConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (node: object, path: string) => {
    for (const [key, value] of Object.entries(node)) {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        walk(value, `${path}${key}.`);
      } else {
        out[`${path}${key}`] = value;
      }
    }
  };
  walk(config, '');
  return out;
}
