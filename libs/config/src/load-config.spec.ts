import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load-config';

const emptyDir = () => mkdtempSync(join(tmpdir(), 'dockbridge-config-'));

describe('loadConfig', () => {
  it('gives typed defaults when nothing is set', () => {
    const config = loadConfig({ env: {}, dir: emptyDir() });
    expect(config.sandbox.port).toBe(4010);
    expect(config.sandbox.controls).toBe(false);
    expect(config.log.level).toBe('info');
    expect(config.worker.jobLockMs).toBe(30_000);
    expect(loadConfig({ env: { WORKER_JOB_LOCK_MS: '5000' }, dir: emptyDir() }).worker.jobLockMs).toBe(5000);
    expect(() => loadConfig({ env: { WORKER_JOB_LOCK_MS: '10' }, dir: emptyDir() })).toThrow(/worker\.jobLockMs/);
  });

  it('layers default.yaml, <NODE_ENV>.yaml and the environment, in that order', () => {
    const dir = emptyDir();
    writeFileSync(join(dir, 'default.yaml'), 'sandbox:\n  port: 5000\n  seedPath: a.json\nlog:\n  level: warn\n');
    writeFileSync(join(dir, 'staging.yaml'), 'sandbox:\n  seedPath: b.json\n');
    const config = loadConfig({ env: { NODE_ENV: 'staging', SANDBOX_PORT: '6000', SANDBOX_CONTROLS: 'on' }, dir });
    expect(config.sandbox).toMatchObject({ port: 6000, seedPath: 'b.json', controls: true });
    expect(config.log.level).toBe('warn');
  });

  it('stops on a bad value with a message naming the key and the variable that set it', () => {
    expect(() => loadConfig({ env: { SANDBOX_PORT: '70000' }, dir: emptyDir() })).toThrow(
      /sandbox\.port.*65535.*\(set by SANDBOX_PORT\)/,
    );
    expect(() => loadConfig({ env: { SANDBOX_CONTROLS: 'maybe' }, dir: emptyDir() })).toThrow(/sandbox\.controls/);
  });

  it('takes a Redis Cluster as a node list, and refuses a prefix that would spread a queue over slots', () => {
    expect(
      loadConfig({ env: { REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001' }, dir: emptyDir() }).redis.clusterNodes,
    ).toBe('10.0.0.1:7000, redis-b:7001');
    expect(() => loadConfig({ env: { REDIS_CLUSTER_NODES: '10.0.0.1' }, dir: emptyDir() })).toThrow(
      /clusterNodes must be host:port/,
    );
    expect(() =>
      loadConfig({ env: { REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_PREFIX: 'dockbridge' }, dir: emptyDir() }),
    ).toThrow(/no \{hash tag\}/);
  });

  it('refuses unknown keys in a file, naming them', () => {
    const dir = emptyDir();
    writeFileSync(join(dir, 'default.yaml'), 'sandbox:\n  prot: 5000\n');
    try {
      loadConfig({ env: {}, dir });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join()).toMatch(/sandbox\.prot/);
    }
  });

  it('reports a malformed YAML file by name', () => {
    const dir = emptyDir();
    writeFileSync(join(dir, 'default.yaml'), 'sandbox: [unclosed\n');
    expect(() => loadConfig({ env: {}, dir })).toThrow(/default\.yaml/);
  });
});

describe('platform accounts', () => {
  it('reads a token from the variable tokenEnv names, and says which one is missing', () => {
    const dir = emptyDir();
    writeFileSync(
      join(dir, 'default.yaml'),
      'platform:\n  accounts:\n    - name: dc01\n      tokenEnv: DC01_TOKEN\n      organisationIds: [8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01]\n',
    );
    expect(loadConfig({ env: { DC01_TOKEN: 'secret-value' }, dir }).platform.accounts[0].token).toBe('secret-value');
    let message = '';
    try {
      loadConfig({ env: {}, dir });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/platform\.accounts\[0\]\.tokenEnv: environment variable DC01_TOKEN is not set/);
  });

  it('never puts a secret value in a configuration error', () => {
    let message = '';
    try {
      loadConfig({
        env: { PLATFORM_TOKEN: 'super-secret-token', DATABASE_URL: 'mysql://user:pw@host/db' },
        dir: emptyDir(),
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/database\.url must be a postgres:\/\/ URL \(set by DATABASE_URL\)/);
    expect(message).not.toContain('pw@host');
    expect(message).not.toContain('super-secret-token');
  });
});
