import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './load-config';

const emptyDir = () => mkdtempSync(join(tmpdir(), 'dockbridge-config-'));

describe('SFTP limits', () => {
  it('default to 256 MiB files and 5 failed logins locking out for 15 minutes', () => {
    expect(loadConfig({ env: {}, dir: emptyDir() }).sftp).toMatchObject({
      maxFileBytes: 256 * 1024 * 1024,
      maxLoginFailures: 5,
      lockoutMs: 900_000,
    });
  });

  it('are set by SFTP_MAX_FILE_BYTES, SFTP_MAX_LOGIN_FAILURES and SFTP_LOCKOUT_MS', () => {
    const env = { SFTP_MAX_FILE_BYTES: '1048576', SFTP_MAX_LOGIN_FAILURES: '3', SFTP_LOCKOUT_MS: '60000' };
    expect(loadConfig({ env, dir: emptyDir() }).sftp).toMatchObject({
      maxFileBytes: 1048576,
      maxLoginFailures: 3,
      lockoutMs: 60_000,
    });
  });

  // An upload is read a slice at a time: files over V8's longest string (512 MiB - 24) are fine.
  it('take files over 512 MiB, up to what the stored size column holds (2 GiB - 1)', () => {
    expect(loadConfig({ env: { SFTP_MAX_FILE_BYTES: String(1024 ** 3) }, dir: emptyDir() }).sftp.maxFileBytes).toBe(
      1024 ** 3,
    );
    expect(() => loadConfig({ env: { SFTP_MAX_FILE_BYTES: String(2 ** 31) }, dir: emptyDir() })).toThrow(
      /sftp\.maxFileBytes.*\(set by SFTP_MAX_FILE_BYTES\)/,
    );
  });
});
