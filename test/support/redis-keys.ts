import Redis from 'ioredis';

/**
 * Removes every key under a test's Redis prefix: suites share this machine's Redis, and their
 * queues left ~20,000 keys a run behind. A Redis that is down (a test stopped it) is left alone.
 */
export async function dropRedisKeys(prefix: string, url = 'redis://127.0.0.1:6379'): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined); // the connect below says it
  try {
    await redis.connect();
    // Glob-special characters in the prefix are matched as themselves.
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    for await (const keys of redis.scanStream({ match: pattern, count: 1000 })) {
      if ((keys as string[]).length > 0) {
        await redis.unlink(...(keys as string[]));
      }
    }
  } catch {
    // Unreachable: nothing to clean here.
  } finally {
    redis.disconnect();
  }
}
