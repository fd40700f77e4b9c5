import createDebug from 'debug';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
import { SqlResourceError } from '../../errors';
import type { AuthIdentity } from '../auth/identity';
import type { RateLimitSettings } from './settings';

const log = createDebug('sql-resources:rate-limit');

/** The prefix of a profile's counters in Redis: hosts of one profile share them, other profiles do not. */
export function rateLimitNamespace(profileName = 'sql-resources'): string {
  return `sql-resources:${profileName}:`;
}

/** The client an IP address stands for (an IPv6 address by its /64, as @fastify/rate-limit does). */
function ipKey(request: FastifyRequest): string {
  return `ip:${normalizeIP(request.ip)}`;
}

/** The verified caller, by how it proved it (an API key's name never meets a token's `sub`); else its IP address. */
function callerKey(request: FastifyRequest): string {
  const auth = request.auth as AuthIdentity | null | undefined;
  return auth?.subject === undefined ? ipKey(request) : `${auth.via}:${auth.subject}`;
}

/**
 * A Redis client that connects when the server is ready and never queues a command while
 * disconnected: the check fails at once and the request passes (skipOnError). Only changes of
 * reachability are logged, by error code: never the URL, which may hold a password.
 */
function redisClient(server: FastifyInstance, url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 500,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // disconnect() waits this long for a socket's close event, which a socket closed already
    // (Redis away) never sends: 2 s by default, holding the process after the server closed.
    disconnectTimeout: 200,
  });
  let reachable: boolean | undefined;
  client.on('ready', () => {
    if (reachable !== true) log('Redis reachable: limits are shared by every host of the profile');
    reachable = true;
  });
  client.on('error', (error: Error & { code?: string }) => {
    if (reachable !== false) log('Redis not reachable (%s): requests pass unlimited until it is back', error.code ?? error.name);
    reachable = false;
  });
  // Connecting here, not at registration, leaves nothing open when the server is built but never started.
  server.addHook('onReady', async () => {
    // A failure was logged by the error listener; the client keeps reconnecting in the background.
    await client.connect().catch(() => undefined);
  });
  server.addHook('onClose', async () => {
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  });
  return client;
}

/**
 * `server.rateLimit` on every route added after it (call it before the routes): over `max`
 * requests per `timeWindow`, a client gets 429 RATE_LIMITED in the nok envelope, with
 * `Retry-After` in seconds. With `redis`, the counters live there under `namespace`.
 */
export async function registerRateLimit(server: FastifyInstance, settings: RateLimitSettings, namespace: string): Promise<void> {
  const redis = settings.redis === undefined ? undefined : redisClient(server, settings.redis);
  await server.register(rateLimit, {
    max: settings.max,
    timeWindow: settings.timeWindow,
    // onRequest, before any body is read. A route's own hooks come first: authentication's
    // onRequest has read the credential (a refused one still counts, by IP, before its 401).
    hook: 'onRequest',
    keyGenerator: settings.keyBy === 'auth' ? callerKey : ipKey,
    ...(redis ? { redis, nameSpace: namespace, skipOnError: true } : {}),
    // Thrown from the hook, it reaches the error handler, which answers the nok envelope.
    // The seconds of Retry-After (context.after rounds 59.9 s to '1 minute').
    errorResponseBuilder: (_request, { ttl }) => new SqlResourceError('RATE_LIMITED', `too many requests (server.rateLimit); retry after ${Math.ceil(ttl / 1000)} s`),
  });
}
