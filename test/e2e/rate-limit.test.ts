import { createHash } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createApp, type App, type Profile } from '../../src';
import { rateLimitSettings } from '../../src/host/rate-limit';
import { startedApps } from '../support/apps';
import { probeRedis, redisClient, redisUrl } from '../support/redis';
import { resourceConfig, uniqueName } from '../support/servers';

/**
 * `server.rateLimit`: a client over `max` requests per window gets 429 RATE_LIMITED in the nok
 * envelope with `Retry-After`; with `redis`, the hosts of one profile share the budget. Every
 * profile has a name of its own, so counters left in Redis by an earlier run never matter.
 */

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A GET from `from` (another loopback address is another client), on a connection of its own. */
function get(app: App, path: string, { from = '127.0.0.1', headers = {} }: { from?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const address = app.address();
  if (!address) throw new Error('the app is not listening');
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: address.port, path, headers, localAddress: from, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

async function statuses(app: App, count: number, options?: Parameters<typeof get>[2], path = '/up'): Promise<number[]> {
  const answers: number[] = [];
  for (let sent = 0; sent < count; sent += 1) answers.push((await get(app, path, options)).status);
  return answers;
}

function profile(name: string, rateLimit: unknown, server: Record<string, unknown> = {}): Profile {
  return {
    name,
    resources: { db: resourceConfig('mysql') },
    server: {
      rateLimit,
      endpoints: [
        { path: '/up', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS up' },
        { path: '/status', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS up', public: true },
      ],
      ...server,
    },
  } as Profile;
}

const { start, stopAll } = startedApps();
afterEach(stopAll);

describe('rate limiting in one host', () => {
  it('answers 200 within the budget, then 429 RATE_LIMITED in the nok envelope with Retry-After', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 3, timeWindow: '1 minute' }));
    const within = await Promise.all([1, 2, 3].map(() => get(app, '/up')));
    expect(within.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(within.map((answer) => answer.headers['x-ratelimit-remaining']).sort()).toEqual(['0', '1', '2']);

    const over = await get(app, '/up');
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ code: 'nok', message: `too many requests (server.rateLimit); retry after ${over.headers['retry-after']} s`, error: 'RATE_LIMITED' });
    expect(over.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(over.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The security headers of every answer are there too.
    expect(over.headers['x-content-type-options']).toBe('nosniff');
  });

  it('counts each IP address on its own (keyBy ip, the default)', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 2, timeWindow: 60_000 }));
    expect(await statuses(app, 3, { from: '127.0.0.1' })).toEqual([200, 200, 429]);
    expect(await statuses(app, 3, { from: '127.0.0.2' })).toEqual([200, 200, 429]);
  });

  it('counts every endpoint of the host in one budget', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 2, keyBy: 'ip' }));
    expect((await get(app, '/up')).status).toBe(200);
    expect((await get(app, '/status')).status).toBe(200);
    expect((await get(app, '/up')).status).toBe(429);
    expect((await get(app, '/status')).status).toBe(429);
  });

  it('does not count the 404 of an unknown path', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 1 }));
    expect(await statuses(app, 2, {}, '/nowhere')).toEqual([404, 404]);
    expect(await statuses(app, 2)).toEqual([200, 429]);
  });

  it('fails open when its Redis is unreachable: requests pass unlimited, and the host starts and stops', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 1, redis: 'redis://127.0.0.1:1' }));
    expect(await statuses(app, 3)).toEqual([200, 200, 200]);
  });
});

describe('rate limiting by caller (keyBy auth)', () => {
  const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex');
  const apiKeys = [
    { name: 'alice', sha256: sha256('alice-key-0123456789') },
    { name: 'bob', sha256: sha256('bob-key-0123456789') },
  ];
  const as = (key: string): { headers: Record<string, string> } => ({ headers: { 'x-api-key': key } });

  it('gives each verified caller its own budget, whatever its IP address', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 2, keyBy: 'auth' }, { auth: { apiKeys } }));
    expect(await statuses(app, 3, as('alice-key-0123456789'))).toEqual([200, 200, 429]);
    expect(await statuses(app, 1, { ...as('alice-key-0123456789'), from: '127.0.0.2' })).toEqual([429]);
    expect(await statuses(app, 3, as('bob-key-0123456789'))).toEqual([200, 200, 429]);
  });

  it('counts a request without a credential by its IP address, apart from the callers', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 2, keyBy: 'auth' }, { auth: { apiKeys } }));
    expect(await statuses(app, 2, as('alice-key-0123456789'))).toEqual([200, 200]);
    expect(await statuses(app, 3, {}, '/status')).toEqual([200, 200, 429]);
  });

  it('counts refused credentials by IP address, so guessing keys is limited too', async () => {
    const app = await start(profile(uniqueName('sr_rate'), { max: 2, keyBy: 'auth' }, { auth: { apiKeys } }));
    expect(await statuses(app, 3, { ...as('a-wrong-key-0123456789'), from: '127.0.0.3' })).toEqual([401, 401, 429]);
    expect(await statuses(app, 1, as('alice-key-0123456789'))).toEqual([200]);
  });
});

describe('rate limiting shared through Redis', () => {
  const redis = redisClient();

  beforeAll(async () => {
    await probeRedis();
    await redis.connect();
  });

  afterAll(() => {
    redis.disconnect();
  });

  it('shares one budget between two hosts of the same profile name, in its namespace', async () => {
    const name = uniqueName('sr_rate');
    const settings = { max: 4, timeWindow: '1 minute', redis: redisUrl };
    const [first, second] = [await start(profile(name, settings)), await start(profile(name, settings))];
    expect(first.address()?.port).not.toBe(second.address()?.port);
    expect([...(await statuses(first, 2)), ...(await statuses(second, 2))]).toEqual([200, 200, 200, 200]);
    const over = await get(second, '/up');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 'nok', error: 'RATE_LIMITED' });
    expect(over.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(await statuses(first, 1)).toEqual([429]);

    const key = `sql-resources:${name}:ip:127.0.0.1`;
    try {
      expect(await redis.get(key)).toBe('6');
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await redis.del(key);
    }
  });

  it('keeps the budget of another profile name apart', async () => {
    const settings = { max: 1, redis: redisUrl };
    const [name, otherName] = [uniqueName('sr_rate'), uniqueName('sr_rate')];
    const [app, other] = [await start(profile(name, settings)), await start(profile(otherName, settings))];
    try {
      expect(await statuses(app, 2)).toEqual([200, 429]);
      expect(await statuses(other, 2)).toEqual([200, 429]);
    } finally {
      await redis.del(`sql-resources:${name}:ip:127.0.0.1`, `sql-resources:${otherName}:ip:127.0.0.1`);
    }
  });
});

describe('server.rateLimit settings', () => {
  const refusal = (rateLimit: unknown): Error => {
    try {
      createApp(profile(uniqueName('sr_rate'), rateLimit));
    } catch (error) {
      return error as Error;
    }
    throw new Error('the profile was accepted');
  };

  it.each([
    ['max 0', { max: 0 }, 'server.rateLimit.max: must be a positive integer'],
    ["max 'x'", { max: 'x' }, 'server.rateLimit.max: must be a positive integer'],
    ['no max', { timeWindow: 1000 }, "server.rateLimit: 'max' is required"],
    ["keyBy 'user'", { max: 3, keyBy: 'user' }, "server.rateLimit.keyBy: 'user' is not one of ip, auth"],
    ['redis not a URL', { max: 3, redis: '127.0.0.1:6379' }, 'server.rateLimit.redis: must be a redis:// (or rediss://) URL of a Redis server'],
    ['timeWindow not a duration', { max: 3, timeWindow: 'soon' }, "server.rateLimit.timeWindow: must be a positive number of milliseconds, or a duration such as '1 minute'"],
    ['timeWindow 0', { max: 3, timeWindow: 0 }, 'server.rateLimit.timeWindow: must be a positive number of milliseconds'],
    ['an unknown key', { max: 3, by: 'ip' }, "server.rateLimit: unknown key 'by'"],
    ['keyBy auth without server.auth', { max: 3, keyBy: 'auth' }, "server.rateLimit.keyBy: 'auth' needs server.auth (without it every client is counted by its address)"],
  ])('refuses %s with a CONFIG_INVALID naming the key', (_case, rateLimit, message) => {
    const error = refusal(rateLimit);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(error.message).toContain(message);
  });

  it('never shows the Redis URL, which may hold a password, in its errors', () => {
    expect(refusal({ max: 3, redis: 'http://user:s3cret-pw@127.0.0.1:6379' }).message).not.toContain('s3cret-pw');
    process.env.SR_RATE_REDIS = 'redis//:s3cret-pw@127.0.0.1';
    try {
      const error = refusal({ max: 3, redis: '{{SR_RATE_REDIS}}' });
      expect(error.message).toContain('server.rateLimit.redis');
      expect(error.message).not.toContain('s3cret-pw');
    } finally {
      delete process.env.SR_RATE_REDIS;
    }
  });

  it('keeps the Redis URL out of the settings when they are logged or serialized', () => {
    const settings = rateLimitSettings({ max: 3, redis: 'redis://:s3cret-pw@127.0.0.1:6379' });
    expect(settings?.redis).toBe('redis://:s3cret-pw@127.0.0.1:6379');
    expect(JSON.stringify(settings)).not.toContain('s3cret-pw');
    expect(Object.keys(settings ?? {})).not.toContain('redis');
  });

  it.each([
    ['1 minute', 60_000],
    ['30s', 30_000],
    ['1.5 hours', 5_400_000],
    ['2 Days', 172_800_000],
    ['250', 250],
    [250, 250],
    [undefined, 60_000],
  ])('reads timeWindow %p as %d ms', (timeWindow, milliseconds) => {
    expect(rateLimitSettings({ max: '5', timeWindow })).toEqual({ max: 5, timeWindow: milliseconds, keyBy: 'ip' });
  });

  it('takes max and timeWindow from the environment', () => {
    process.env.SR_RATE_MAX = '7';
    process.env.SR_RATE_WINDOW = '10 seconds';
    try {
      expect(rateLimitSettings({ max: '{{SR_RATE_MAX}}', timeWindow: '{{SR_RATE_WINDOW}}', keyBy: 'auth' })).toEqual({ max: 7, timeWindow: 10_000, keyBy: 'auth' });
    } finally {
      delete process.env.SR_RATE_MAX;
      delete process.env.SR_RATE_WINDOW;
    }
  });
});
