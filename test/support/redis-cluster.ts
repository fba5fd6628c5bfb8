import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** A Redis Cluster of three masters on loopback (no replicas), in a temporary directory; as STACK.md describes. */
export class LocalRedisCluster {
  private constructor(
    readonly ports: number[],
    private readonly children: ChildProcess[],
    private readonly dir: string,
  ) {}

  static async start(): Promise<LocalRedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'dockbridge-cluster-'));
    // Cluster bus ports are port + 10000: keep the client ports low enough.
    const ports: number[] = [];
    while (ports.length < 3) {
      const port = await freePort();
      if (port < 55535 && !ports.includes(port)) {
        ports.push(port);
      }
    }
    const children = ports.map((port) =>
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      ),
    );
    const cluster = new LocalRedisCluster(ports, children, dir);
    for (const port of ports) {
      await cluster.waitFor(() => cluster.cli(port, 'PING').then((out) => out === 'PONG'), `redis-server on ${port}`);
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports) {
      await cluster.waitFor(
        async () => (await cluster.cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
        `cluster state ok on ${port}`,
      );
    }
    return cluster;
  }

  /** `host:port,…` of every node, as REDIS_CLUSTER_NODES takes it. */
  get nodes(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run('redis-cli', ['-p', String(port), ...args]);
    return stdout.trim();
  }

  /** The port of the node serving the slot of `key` (a `{tag}` decides it). */
  async ownerOf(key: string): Promise<number> {
    const slot = Number(await this.cli(this.ports[0], 'CLUSTER', 'KEYSLOT', key));
    for (const port of this.ports) {
      const mine = (await this.cli(port, 'CLUSTER', 'MYID')).trim();
      const nodes = (await this.cli(port, 'CLUSTER', 'NODES')).split('\n').find((line) => line.startsWith(mine))!;
      for (const range of nodes.split(' ').slice(8)) {
        const [from, to = from] = range.split('-').map(Number);
        if (slot >= from && slot <= to) {
          return port;
        }
      }
    }
    throw new Error(`no node serves slot ${slot}`);
  }

  /** Moves every slot of the node on `from` to the node on `to`, keys and all, while clients keep working (MOVED/ASK). */
  async reshardAll(from: number, to: number): Promise<void> {
    const [fromId, toId] = await Promise.all([this.cli(from, 'CLUSTER', 'MYID'), this.cli(to, 'CLUSTER', 'MYID')]);
    const owned = (await this.cli(from, 'CLUSTER', 'NODES'))
      .split('\n')
      .find((line) => line.startsWith(fromId))!
      .split(' ')
      .slice(8);
    const count = owned.reduce((sum, range) => {
      const [a, b = a] = range.split('-').map(Number);
      return sum + b - a + 1;
    }, 0);
    await run(
      'redis-cli',
      [
        '--cluster',
        'reshard',
        `127.0.0.1:${from}`,
        '--cluster-from',
        fromId,
        '--cluster-to',
        toId,
        '--cluster-slots',
        String(count),
        '--cluster-yes',
        '--cluster-pipeline',
        '100',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) {
              return resolve();
            }
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await check().catch(() => false)) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${what}: not ready after 10 s`);
  }
}
