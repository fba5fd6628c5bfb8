import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from './support/database';

const ROOT = join(__dirname, '..');
/** How long a process may take to die of a fatal error once it has started: a spinning one never does. */
const EXIT_WITHIN_MS = 10_000;

interface Ending {
  hooked: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Still running EXIT_WITHIN_MS after the fatal error: killed with SIGKILL (it ignores SIGTERM). */
  spinning: boolean;
}

/**
 * Runs `apps/<app>/src/main.ts` as its own process and makes V8 abort the way a fatal error does
 * (test/support/child/fatal-once-hooked.js) once the app has hooked its shutdown signals.
 */
function runUntilFatal(app: string, env: Record<string, string>): Promise<Ending> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--allow-natives-syntax',
        '-r',
        './test/support/child/ts-register.js',
        '-r',
        './test/support/child/fatal-once-hooked.js',
        `apps/${app}/src/main.ts`,
      ],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', CONFIG_DIR: '/nonexistent', LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let hooked = false;
    let spinning = false;
    let output = '';
    const deadline = setTimeout(() => fail('never hooked its shutdown signals'), 60_000);
    const fail = (why: string) => {
      child.kill('SIGKILL');
      reject(new Error(`${app}: ${why}; output: ${output.slice(-2000)}`));
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (hooked || !output.includes('HOOKED')) {
        return;
      }
      hooked = true;
      clearTimeout(deadline);
      setTimeout(() => {
        spinning = true;
        child.kill('SIGKILL');
      }, EXIT_WITHIN_MS).unref();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      resolve({ hooked, code, signal, spinning });
    });
  });
}

/**
 * A V8 fatal error (e.g. "invalid size error") ends with a trap instruction. With SIGTRAP/SIGILL
 * hooked (`enableShutdownHooks()` without arguments) the process spins on it at 100% CPU,
 * ignoring SIGTERM, instead of dying so that its supervisor restarts it.
 */
describe('a fatal error ends the process', () => {
  let database: TestDatabase;
  const common = () => ({
    DATABASE_URL: database.url,
    REDIS_PREFIX: `{dbtest-${randomBytes(4).toString('hex')}}`,
    PARTNERS_DIR: '/nonexistent',
    SECRETS_KEY_PATH: join(tmpdir(), 'dockbridge-test-secrets.key'),
  });

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const died = { hooked: true, code: null, spinning: false, signal: expect.stringMatching(/^SIG(TRAP|ILL)$/) };

  it('gateway', async () => {
    const env = {
      ...common(),
      GATEWAY_PORT: '0',
      SFTP_PORT: '0',
      SFTP_HOST_KEY_PATH: join(tmpdir(), 'dockbridge-test-sftp-host-key'),
      SFTP_GENERATE_HOST_KEY: 'true',
    };
    expect(await runUntilFatal('gateway', env)).toEqual(died);
  }, 90_000);

  it('worker', async () => {
    expect(await runUntilFatal('worker', common())).toEqual(died);
  }, 90_000);

  it('sandbox', async () => {
    expect(await runUntilFatal('sandbox', { SANDBOX_PORT: '0' })).toEqual(died);
  }, 90_000);
});
