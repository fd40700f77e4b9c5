import { request } from 'node:http';
import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind, digitsTable } from '../support/servers';

const sleepSql: Record<Kind, string> = { mysql: 'SELECT SLEEP(1) AS slept', postgres: 'SELECT pg_sleep(1)::text AS slept' };
const fillSql: Record<Kind, (table: string) => string> = {
  mysql: (table) =>
    `INSERT INTO ${table} (n, label) SELECT a.d * 10000 + b.d * 1000 + c.d * 100 + e.d * 10 + f.d, CONCAT('row "', a.d, b.d, c.d, e.d, f.d, '" été') ` +
    `FROM ${digitsTable} a, ${digitsTable} b, ${digitsTable} c, ${digitsTable} e, ${digitsTable} f WHERE a.d < 3`,
  postgres: (table) => `INSERT INTO ${table} (n, label) SELECT n, 'row "' || n || '" été' FROM generate_series(0, 29999) AS n`,
};

/** Reads the first bytes of a response, then drops the connection. */
function readThenDisconnect(app: App, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port: app.address()?.port, path }, (response) => {
      response.once('data', () => {
        outgoing.destroy();
        resolve();
      });
    });
    outgoing.on('error', (error) => (outgoing.destroyed ? resolve() : reject(error)));
    outgoing.end();
  });
}

describe.each(kinds)('%s host', (kind: Kind) => {
  const table = uniqueName('sr_host');
  let app: App;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (n INT PRIMARY KEY, label VARCHAR(100))`);
    await rawQuery(kind, fillSql[kind](q(kind, table)));
    const pool = kind === 'mysql' ? { connectionLimit: 1 } : { max: 1 };
    app = createApp({
      resources: { db: resourceConfig(kind, pool, { keepAliveInterval: 0 }) },
      server: {
        bodyLimit: 2048,
        cors: { origins: ['http://allowed.example'], methods: ['GET'] },
        endpoints: [
          { path: '/rows', endpoint: 'list', resource: 'db', sql: `SELECT n, label FROM ${q(kind, table)} ORDER BY n` },
          { path: '/slow', endpoint: 'list', resource: 'db', sql: sleepSql[kind] },
          { path: '/rows', endpoint: 'create', resource: 'db', table },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  it('streams a large list as one valid JSON envelope', async () => {
    const answer = await call(app, 'GET', '/rows');
    expect(answer.status).toBe(200);
    expect(answer.body.total).toBe(30000);
    const data = answer.body.data as { n: number; label: string }[];
    expect(data).toHaveLength(30000);
    expect(data[29999]).toEqual({ n: 29999, label: 'row "29999" été' });
  });

  it('frees the connection of a client that disconnects mid-stream', async () => {
    for (let round = 0; round < 3; round += 1) await readThenDisconnect(app, '/rows');
    // The only pooled connection must be back: a stuck one would hang this request.
    const answer = await call(app, 'GET', '/slow');
    expect(answer.status).toBe(200);
  });

  it('keeps CORS to the configured origins', async () => {
    const port = app.address()?.port;
    const allowed = await fetch(`http://127.0.0.1:${port}/slow`, { headers: { origin: 'http://allowed.example' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://allowed.example');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await fetch(`http://127.0.0.1:${port}/slow`, { headers: { origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`http://127.0.0.1:${port}/rows`, {
      method: 'OPTIONS',
      headers: { origin: 'http://allowed.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET');
  });

  it('applies server.bodyLimit', async () => {
    expect((await call(app, 'POST', '/rows', { n: -1, label: 'x'.repeat(4000) })).status).toBe(413);
    expect((await call(app, 'POST', '/rows', { n: -1, label: 'small' })).status).toBe(201);
  });
});

describe.each(kinds)('%s host shutdown', (kind: Kind) => {
  it('lets in-flight requests finish, then stops', async () => {
    const app = createApp({
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: { endpoints: [{ path: '/slow', endpoint: 'list', resource: 'db', sql: sleepSql[kind] }] },
    });
    await app.start({ port: 0 });
    const pending = Promise.all([call(app, 'GET', '/slow'), call(app, 'GET', '/slow')]);
    // Long enough for both requests to reach the server even on a loaded machine, well within the sleep.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await app.stop();
    const answers = await pending;
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(app.resources.get('db').started).toBe(false);
  });

  it('serves a server.lib handler that answers later from a callback', async () => {
    const app = createApp({
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: { lib: require.resolve('./fixtures/late-handlers.js'), endpoints: [{ path: '/late', handler: 'lateCount', resource: 'db' }] },
    });
    await app.start({ port: 0 });
    try {
      expect((await call(app, 'GET', '/late')).body).toEqual({ code: 'ok', message: 'late', data: { answer: 42 } });
    } finally {
      await app.stop();
    }
  });

  it('listens on server.port and server.host read from the environment', async () => {
    process.env.SR_TEST_PORT = '0';
    const app = createApp({
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: { port: '{{SR_TEST_PORT:-8077}}', host: '{{SR_TEST_HOST:-127.0.0.1}}', endpoints: [{ path: '/one', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS one' }] },
    });
    await app.start();
    try {
      expect(app.address()?.host).toBe('127.0.0.1');
      expect(app.address()?.port).not.toBe(8077);
      expect((await call(app, 'GET', '/one')).status).toBe(200);
    } finally {
      await app.stop();
      delete process.env.SR_TEST_PORT;
    }
  });

  it('is off by default for CORS', async () => {
    const app = createApp({
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: { endpoints: [{ path: '/one', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS one' }] },
    });
    await app.start({ port: 0 });
    try {
      const response = await fetch(`http://127.0.0.1:${app.address()?.port}/one`, { headers: { origin: 'http://any.example' } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(await response.json()).toEqual({ code: 'ok', message: 'list /one', data: [{ one: 1 }], total: 1 });
    } finally {
      await app.stop();
    }
  });
});

describe.each(kinds)('%s pool exhaustion', (kind: Kind) => {
  it('answers 503 when no connection frees up within the wait limit', async () => {
    // pg waits connectionTimeoutMillis for a pooled client; mysql2 refuses past queueLimit waiting calls.
    const pool = kind === 'mysql' ? { connectionLimit: 1, queueLimit: 1 } : { max: 1, connectionTimeoutMillis: 150 };
    const app = createApp({
      resources: { db: resourceConfig(kind, pool, { keepAliveInterval: 0 }) },
      server: { endpoints: [{ path: '/slow', endpoint: 'list', resource: 'db', sql: sleepSql[kind] }] },
    });
    await app.start({ port: 0 });
    try {
      const answers = await Promise.all([1, 2, 3].map(() => call(app, 'GET', '/slow')));
      const statuses = answers.map((answer) => answer.status).sort();
      // mysql2: one runs, one waits in the queue of 1 and runs next, one is refused; pg: one runs, two give up after 150 ms.
      expect(statuses).toEqual(kind === 'mysql' ? [200, 200, 503] : [200, 503, 503]);
      const refused = answers.find((answer) => answer.status === 503);
      expect(refused?.body).toEqual({ code: 'nok', message: expect.stringMatching(/^internal error \(request \S+\)$/), error: 'DB_UNAVAILABLE' });
      expect((await call(app, 'GET', '/slow')).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});

describe('mysql pool without waiting', () => {
  it('answers 503 at once when mysql2 is told not to wait for a connection', async () => {
    const app = createApp({
      resources: { db: resourceConfig('mysql', { connectionLimit: 1, waitForConnections: false }, { keepAliveInterval: 0 }) },
      server: { endpoints: [{ path: '/slow', endpoint: 'list', resource: 'db', sql: sleepSql.mysql }] },
    });
    await app.start({ port: 0 });
    try {
      const statuses = (await Promise.all([1, 2].map(() => call(app, 'GET', '/slow')))).map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 503]);
    } finally {
      await app.stop();
    }
  });
});
