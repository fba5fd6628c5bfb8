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
    // redis-cli exits 0 on a command error: an answer starting ERR is one.
    if (/^(ERR|MOVED|ASK|CLUSTERDOWN)\b/.test(stdout.trim())) {
      throw new Error(`redis-cli -p ${port} ${args.join(' ')}: ${stdout.trim()}`);
    }
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

  /**
   * Moves the slot of `key` (its `{tag}` decides it) from the node serving it to the node on `to`,
   * keys and all, as a reshard does slot by slot, while clients keep working (MOVED/ASK).
   */
  async moveSlotOf(key: string, to: number): Promise<void> {
    const from = await this.ownerOf(key);
    if (from === to) {
      return;
    }
    const slot = await this.cli(this.ports[0], 'CLUSTER', 'KEYSLOT', key);
    const [fromId, toId] = await Promise.all([this.cli(from, 'CLUSTER', 'MYID'), this.cli(to, 'CLUSTER', 'MYID')]);
    await this.cli(to, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId);
    await this.cli(from, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId);
    for (;;) {
      const keys = (await this.cli(from, 'CLUSTER', 'GETKEYSINSLOT', slot, '1000')).split('\n').filter(Boolean);
      if (keys.length === 0) {
        break;
      }
      await this.cli(from, 'MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'REPLACE', 'KEYS', ...keys);
    }
    for (const port of [to, from, ...this.ports.filter((p) => p !== to && p !== from)]) {
      await this.cli(port, 'CLUSTER', 'SETSLOT', slot, 'NODE', toId);
    }
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
