import IORedis, { RedisOptions } from 'ioredis';

/**
 * Producers fail fast when Redis is down (no offline queue: the row is already durable and the
 * sweeper enqueues it later); workers wait for Redis forever (BullMQ needs maxRetriesPerRequest null).
 */
export function createRedisConnection(url: string, role: 'producer' | 'worker'): IORedis {
  const options: RedisOptions =
    role === 'producer'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  const connection = new IORedis(url, options);
  // ioredis reports connection errors as events; without a listener they would crash the process.
  connection.on('error', () => undefined);
  return connection;
}
