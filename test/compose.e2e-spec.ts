import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ENV_KEYS } from '@dockbridge/config';

/**
 * docker-compose.yml as Compose itself reads it (`docker-compose config`: merges, anchors,
 * defaults). Images cannot be pulled or built here, so the stack is not started: this checks the
 * file. Needs Debian's `docker-compose` (apt-get install -y docker-compose); skipped without it.
 */
const ROOT = join(__dirname, '..');
const probe = spawnSync('docker-compose', ['version'], { encoding: 'utf8' });
const available = !probe.error && probe.status === 0;
if (!available) {
  console.warn('test/compose.e2e-spec.ts SKIPPED: docker-compose is not installed (apt-get install -y docker-compose)');
}

interface Service {
  image?: string;
  build?: { context: string };
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  ports?: { published: number | string; target: number }[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string; disable?: boolean };
}

const ONE_SHOT = ['migrate'];
const DOCKBRIDGE = ['sandbox', 'migrate', 'gateway', 'worker'];

(available ? describe : describe.skip)('docker-compose.yml', () => {
  let services: Record<string, Service>;

  beforeAll(() => {
    const result = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    services = (parseYaml(result.stdout) as { services: Record<string, Service> }).services;
  });

  it('parses, with every service of the stack', () => {
    expect(Object.keys(services).sort()).toEqual(['gateway', 'migrate', 'postgres', 'redis', 'sandbox', 'worker']);
  });

  it('builds one image from the Dockerfile for every dockbridge process; nothing installs or builds at start', () => {
    const images = new Set(DOCKBRIDGE.map((name) => services[name].image));
    expect(images.size).toBe(1);
    for (const name of DOCKBRIDGE) {
      expect(services[name].build?.context).toBe(ROOT);
      expect(services[name].command?.[0]).toBe('node');
      expect(services[name].command?.join(' ')).not.toMatch(/npm|install|build/);
      // No bind mount of the source tree: the image holds dist/ and node_modules.
      expect((services[name].volumes ?? []).filter((v) => v.startsWith('/') || v.startsWith('.'))).toEqual([]);
    }
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:\S+ AS build$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('runs migrations once, in a one-shot service that gateway and worker wait for', () => {
    expect(services.migrate.command).toEqual(['node', 'dist/apps/cli/src/migrate.js']);
    expect(services.migrate.restart).toBe('no');
    expect(services.migrate.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
    for (const name of ['gateway', 'worker']) {
      expect(services[name].depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
      expect(services[name].environment?.DATABASE_MIGRATE_ON_START).toBe('off');
    }
  });

  it('has a healthcheck on every long-running service', () => {
    for (const [name, service] of Object.entries(services)) {
      if (ONE_SHOT.includes(name)) {
        continue;
      }
      expect({ name, healthcheck: service.healthcheck?.test && !service.healthcheck.disable }).toEqual({
        name,
        healthcheck: true,
      });
    }
    expect(services.gateway.healthcheck?.test).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`http://127.0.0.1:${services.gateway.environment?.GATEWAY_PORT}/health`),
      ]),
    );
    // The worker's own /health, which fails while it cannot use its queues (not just "the process exists").
    expect(services.worker.healthcheck?.test).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`http://127.0.0.1:${services.worker.environment?.WORKER_HEALTH_PORT}/health`),
      ]),
    );
  });

  it('publishes HTTP and SFTP, listening on every interface, with a host key kept in a volume', () => {
    const gateway = services.gateway;
    const env = gateway.environment ?? {};
    const published = (gateway.ports ?? []).map((p) => [Number(p.published), p.target]);
    expect(published).toEqual(
      expect.arrayContaining([
        [3000, Number(env.GATEWAY_PORT)],
        [2222, Number(env.SFTP_PORT)],
      ]),
    );
    expect(env.GATEWAY_HOST).toBe('0.0.0.0');
    expect(env.SFTP_HOST).toBe('0.0.0.0');
    const keyDir = env.SFTP_HOST_KEY_PATH.replace(/\/[^/]+$/, '');
    expect(gateway.volumes?.map((v) => v.split(':')[1])).toContain(keyDir);
    // Gateway and worker share the secrets key (webhook secrets sealed by one are opened by the other).
    const secretsDir = env.SECRETS_KEY_PATH.replace(/\/[^/]+$/, '');
    expect(services.worker.environment?.SECRETS_KEY_PATH).toBe(env.SECRETS_KEY_PATH);
    expect(services.worker.volumes?.map((v) => v.split(':')[1])).toContain(secretsDir);
  });

  it('sets only environment variables dockbridge reads', () => {
    for (const name of DOCKBRIDGE) {
      const unknown = Object.keys(services[name].environment ?? {}).filter((variable) => !(variable in ENV_KEYS));
      expect({ name, unknown }).toEqual({ name, unknown: [] });
    }
  });
});
