import Redis from 'ioredis';

/** The Redis server of the tests that share state between hosts; override with REDIS_URL. */
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export const redisStartCommand =
  'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log';

/** A client for checks that bypass the product; fails at once rather than queueing while Redis is away. */
export function redisClient(): Redis {
  return new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
}

/** Throws, with the command to start it, when the test Redis is not there. */
export async function probeRedis(): Promise<void> {
  const client = redisClient();
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new Error(`The Redis test server at ${redisUrl} is not reachable (${(error as Error).message}).\nStart it with: ${redisStartCommand}`);
  } finally {
    client.disconnect();
  }
}
