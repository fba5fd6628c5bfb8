import IORedis, { Cluster, ClusterNode, RedisOptions } from 'ioredis';

/** Where the queues live: one Redis (`url`) or a Redis Cluster found from `clusterNodes` (the url then gives credentials and TLS). */
export interface RedisTarget {
  url: string;
  /** `host:port` of cluster nodes, comma-separated; empty: not a cluster. */
  clusterNodes?: string;
}

export type RedisConnection = IORedis | Cluster;

/** `host:port,host:port` as ioredis cluster nodes. */
export function clusterNodesOf(list: string | undefined): ClusterNode[] {
  return (list ?? '')
    .split(',')
    .map((node) => node.trim())
    .filter(Boolean)
    .map((node) => {
      const at = node.lastIndexOf(':');
      return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
    });
}

/** Credentials, database and TLS a redis:// or rediss:// URL gives, for each cluster node. */
function optionsOfUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  return {
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
  };
}

/**
 * Producers fail fast when Redis is down (no offline queue: the row is already durable and the
 * sweeper enqueues it later); workers wait for Redis forever (BullMQ needs maxRetriesPerRequest null).
 * A cluster follows MOVED/ASK redirections and slot changes (a reshard) by itself.
 */
export function createRedisConnection(target: RedisTarget, role: 'producer' | 'worker'): RedisConnection {
  const options: RedisOptions =
    role === 'producer'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  const nodes = clusterNodesOf(target.clusterNodes);
  const connection: RedisConnection =
    nodes.length > 0
      ? new Cluster(nodes, {
          redisOptions: { ...optionsOfUrl(target.url), ...options },
          enableOfflineQueue: role === 'worker',
          enableReadyCheck: true,
          // Keep looking for the cluster for ever, at most a second apart (ioredis gives up otherwise).
          clusterRetryStrategy: (times) => Math.min(100 * times, 1000),
          slotsRefreshTimeout: 2000,
        })
      : new IORedis(target.url, options);
  // ioredis reports connection errors as events; without a listener they would crash the process.
  // Whoever cares (worker health, /health) asks the queues, which fail while Redis is away.
  connection.on('error', () => undefined);
  return connection;
}
