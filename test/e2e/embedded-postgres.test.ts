import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'pg';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/host/embedded-postgres';

const LOOPBACK = '127.0.0.1';
const POOL_SIZE = 10;
// The first start runs initdb (seconds); the child also compiles TypeScript under ts-node.
const START_TIMEOUT_MS = 120_000;

/** Lets the OS pick a free loopback port, then releases it for the server under test. */
async function findFreeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return address.port;
}

async function isPortOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: LOOPBACK, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function poolFor(server: EmbeddedPostgres): Pool {
  return new Pool({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database: server.database,
    max: POOL_SIZE,
  });
}

async function timed<T>(action: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const startedAt = Date.now();
  const result = await action();
  return { result, ms: Date.now() - startedAt };
}

describe('embedded PostgreSQL (PGlite over the wire protocol)', () => {
  let dataDir: string;
  let port: number;
  let server: EmbeddedPostgres;
  let pool: Pool;
  let firstStartMs: number;
  const started: EmbeddedPostgres[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sql-resources-embedded-pg-'));
    port = await findFreeLoopbackPort();
    expect(port).not.toBe(5432);
    // No template: this first start runs initdb, the path taken when npm install made none.
    const firstStart = await timed(() => startEmbeddedPostgres({ dataDir: join(dataDir, 'pgdata'), host: LOOPBACK, port, template: false }));
    server = firstStart.result;
    firstStartMs = firstStart.ms;
    started.push(server);
    pool = poolFor(server);
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await pool?.end();
    await Promise.all(started.map((each) => each.stop()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, START_TIMEOUT_MS);

  it('listens on the requested loopback port and identifies as PostgreSQL', async () => {
    expect(server).toMatchObject({ host: LOOPBACK, port, database: 'postgres', user: 'postgres', initialized: 'initdb' });
    const { rows } = await pool.query('SELECT version() AS version, current_database() AS database');
    expect(rows[0].version).toMatch(/^PostgreSQL \d+/);
    expect(rows[0].database).toBe('postgres');
  });

  it('serves a full pool of concurrent connections', async () => {
    const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
    try {
      expect(pool.totalCount).toBe(POOL_SIZE);
      const answers = await Promise.all(
        clients.map((client, index) => client.query('SELECT $1::int * 2 AS doubled', [index])),
      );
      expect(answers.map(({ rows }) => rows[0].doubled)).toEqual(clients.map((_, index) => index * 2));
    } finally {
      clients.forEach((client) => client.release());
    }
  });

  it('creates a table, inserts with bound parameters and reads the rows back', async () => {
    await pool.query('CREATE TABLE greetings (id serial PRIMARY KEY, language text NOT NULL, words text NOT NULL)');
    const greetings = [
      ['en', 'hello'],
      ['fr', "l'été"],
      ['ja', 'こんにちは'],
    ];
    await Promise.all(
      greetings.map(([language, words]) =>
        pool.query('INSERT INTO greetings (language, words) VALUES ($1, $2)', [language, words]),
      ),
    );
    const { rows } = await pool.query('SELECT language, words FROM greetings WHERE language = ANY($1::text[]) ORDER BY language', [
      ['fr', 'ja'],
    ]);
    expect(rows).toEqual([
      { language: 'fr', words: "l'été" },
      { language: 'ja', words: 'こんにちは' },
    ]);
  });

  // A statement whose parameters span several TCP chunks must not be interleaved
  // with another connection's statement on PGlite's single shared session.
  it('keeps each connection\'s statement and parameters together under concurrency', async () => {
    const bigText = 'x'.repeat(300_000);
    const roundsPerClient = 40;
    const mismatches: string[] = [];
    const runClient = async (clientIndex: number) => {
      for (let round = 0; round < roundsPerClient; round++) {
        if (clientIndex % 2 === 0) {
          const { rows } = await pool.query('SELECT length($1::text) + $2::int AS total', [bigText, round]);
          if (rows[0].total !== bigText.length + round) mismatches.push(JSON.stringify(rows[0]).slice(0, 60));
        } else {
          const { rows } = await pool.query("SELECT $1::text || ':' || $2::text AS label", [`c${clientIndex}`, `r${round}`]);
          if (rows[0].label !== `c${clientIndex}:r${round}`) mismatches.push(JSON.stringify(rows[0]).slice(0, 60));
        }
      }
    };
    await Promise.all(Array.from({ length: POOL_SIZE }, (_, clientIndex) => runClient(clientIndex)));
    expect(mismatches).toEqual([]);
  }, 60_000);

  // pglite-socket never resets its queue's "processing" flag when PGlite's execProtocolRawStream
  // rejects, which would freeze every connection. SQL errors do not take that path: PGlite
  // answers them with an ErrorResponse like Postgres does. This pins that down for the errors
  // the HTTP layer meets (a 409 must not freeze the demo), on the same and on other connections.
  it('keeps serving every connection after SQL errors, in and out of transactions', async () => {
    await pool.query('CREATE TABLE error_probe (id int PRIMARY KEY)');
    await pool.query('INSERT INTO error_probe VALUES ($1)', [1]);
    const client = await pool.connect();
    try {
      await expect(client.query('INSERT INTO error_probe VALUES ($1)', [1])).rejects.toMatchObject({ code: '23505' });
      await expect(client.query('INSERT INTO error_probe VALUES (1)')).rejects.toMatchObject({ code: '23505' });
      await expect(client.query('SELEC $1::int', [1])).rejects.toMatchObject({ code: '42601' });
      await expect(client.query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
      expect((await client.query('SELECT $1::int AS same', [7])).rows).toEqual([{ same: 7 }]);
      expect((await pool.query('SELECT $1::int AS other', [8])).rows).toEqual([{ other: 8 }]);

      // A failed statement inside a transaction: the others wait for it, then go on after ROLLBACK.
      await client.query('BEGIN');
      await expect(client.query('INSERT INTO error_probe VALUES ($1)', [1])).rejects.toMatchObject({ code: '23505' });
      const waiting = pool.query('SELECT count(*)::int AS count FROM error_probe');
      await expect(client.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' });
      await client.query('ROLLBACK');
      expect((await waiting).rows).toEqual([{ count: 1 }]);
    } finally {
      client.release();
    }

    // A connection that dies inside a transaction is rolled back and frees the session.
    const doomed = await pool.connect();
    await doomed.query('BEGIN');
    await doomed.query('INSERT INTO error_probe VALUES ($1)', [2]);
    doomed.release(new Error('drop this connection'));
    const concurrent = await Promise.all(
      Array.from({ length: POOL_SIZE }, (_, index) =>
        index % 2 === 0
          ? pool.query('INSERT INTO error_probe VALUES ($1)', [1]).then(() => 'inserted', (error: { code?: string }) => error.code)
          : pool.query('SELECT count(*)::int AS count FROM error_probe').then(({ rows }) => rows[0].count as number),
      ),
    );
    expect(concurrent).toEqual(Array.from({ length: POOL_SIZE }, (_, index) => (index % 2 === 0 ? '23505' : 1)));
  }, 60_000);

  it('stops the child process and closes the port, idempotently', async () => {
    await pool.end();
    await Promise.all([server.stop(), server.stop()]);
    await server.stop();
    expect(isProcessAlive(server.pid)).toBe(false);
    expect(() => process.kill(server.pid, 0)).toThrow();
    expect(await isPortOpen(port)).toBe(false);
  }, START_TIMEOUT_MS);

  it('restarts faster on the same data dir and keeps the data', async () => {
    const restart = await timed(() => startEmbeddedPostgres({ dataDir: join(dataDir, 'pgdata'), host: LOOPBACK, port }));
    const restarted = restart.result;
    started.push(restarted);
    expect(restarted.initialized).toBe('existing');
    expect(restart.ms).toBeLessThan(firstStartMs);

    pool = poolFor(restarted);
    const { rows } = await pool.query('SELECT count(*)::int AS count FROM greetings');
    expect(rows[0].count).toBe(3);
  }, START_TIMEOUT_MS);

  it('creates a new data dir from a template instead of running initdb', async () => {
    const template = join(dataDir, 'template.tar');
    const made = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', resolve(__dirname, '../../src/host/embedded-postgres-template.ts'), template],
      { encoding: 'utf8', timeout: START_TIMEOUT_MS },
    );
    expect(made.stdout).toContain(`made ${template}`);
    expect(made.status).toBe(0);

    const fromTemplate = await timed(() => startEmbeddedPostgres({ dataDir: join(dataDir, 'from-template'), host: LOOPBACK, template }));
    started.push(fromTemplate.result);
    expect(fromTemplate.result.initialized).toBe('template');
    expect(fromTemplate.ms).toBeLessThan(firstStartMs);
    const templatePool = poolFor(fromTemplate.result);
    try {
      // A new, independent database: nothing of the first one, and writable.
      const { rows } = await templatePool.query("SELECT to_regclass('greetings') AS greetings");
      expect(rows).toEqual([{ greetings: null }]);
      await templatePool.query('CREATE TABLE fresh (id int)');
      await templatePool.query('INSERT INTO fresh VALUES (1)');
      expect((await templatePool.query('SELECT count(*)::int AS count FROM fresh')).rows).toEqual([{ count: 1 }]);
    } finally {
      await templatePool.end();
    }
  }, START_TIMEOUT_MS);
});
