import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Pool } from 'pg';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/host/embedded-postgres';
import { runCli, spawnCli } from '../support/cli';

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

/** The error `kill -0 pid` raises, or undefined when the process exists and may be signalled. */
function signalError(pid: number): unknown {
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (error) {
    return error;
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

describe('embedded PostgreSQL (PGlite over the wire protocol)', () => {
  let dataDir: string;
  let port: number;
  let server: EmbeddedPostgres;
  let pool: Pool;
  const started: EmbeddedPostgres[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sql-resources-embedded-pg-'));
    port = await findFreeLoopbackPort();
    // No template: this first start runs initdb, the path taken when npm install made none.
    // (How long each kind of start takes is measured by the bench's start-up part, not here.)
    server = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pgdata'), host: LOOPBACK, port, template: false });
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
    // No such process (ESRCH), not merely one this test may not signal (EPERM).
    expect(signalError(server.pid)).toMatchObject({ code: 'ESRCH' });
    expect(await isPortOpen(port)).toBe(false);
  }, START_TIMEOUT_MS);

  it('restarts on the same data dir, reopening its database, and keeps the data', async () => {
    const restarted = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pgdata'), host: LOOPBACK, port });
    started.push(restarted);
    expect(restarted.initialized).toBe('existing');

    pool = poolFor(restarted);
    const { rows } = await pool.query('SELECT count(*)::int AS count FROM greetings');
    expect(rows[0].count).toBe(3);
  }, START_TIMEOUT_MS);

  it('creates a new data dir from a template instead of running initdb', async () => {
    const template = join(dataDir, 'template.tar');
    const made = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', resolve(__dirname, '../../src/host/embedded-postgres/template.ts'), template],
      { encoding: 'utf8', timeout: START_TIMEOUT_MS },
    );
    expect(made.stdout).toContain(`made ${template}`);
    expect(made.status).toBe(0);

    const fromTemplate = await startEmbeddedPostgres({ dataDir: join(dataDir, 'from-template'), host: LOOPBACK, template });
    started.push(fromTemplate);
    expect(fromTemplate.initialized).toBe('template');
    const templatePool = poolFor(fromTemplate);
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

describe('embedded PostgreSQL: refusals and failures are catalogue errors', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sql-resources-embedded-pg-errors-'));
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses an out-of-range port before starting anything (CONFIG_INVALID)', async () => {
    await expect(startEmbeddedPostgres({ dataDir: join(dataDir, 'never'), port: 70_000 })).rejects.toMatchObject({
      name: 'SqlResourceError',
      code: 'CONFIG_INVALID',
      message: 'startEmbeddedPostgres: port must be an integer from 0 to 65535, got 70000',
    });
  });

  it('reports a port already taken as DB_UNAVAILABLE, with the reason', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, LOOPBACK, done));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const failure = await startEmbeddedPostgres({ dataDir: join(dataDir, 'taken'), host: LOOPBACK, port: taken }).then(
        (unexpected) => unexpected.stop().then(() => undefined),
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ name: 'SqlResourceError', code: 'DB_UNAVAILABLE', statusCode: 503 });
      expect((failure as Error).message).toMatch(/^Embedded PostgreSQL failed to start: .*EADDRINUSE/);
    } finally {
      await new Promise<void>((done) => blocker.close(() => done()));
    }
  }, START_TIMEOUT_MS);
});

/** `_class: postgresql` is the alias of `postgres`: --embedded-postgres must serve it the same. */
describe('sql-resources serve|check --embedded-postgres on a `_class: postgresql` resource', () => {
  let workDir: string;
  let profilePath: string;
  let nowherePort: number;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'sql-resources-embedded-alias-'));
    // Nothing listens there: the profile can only work through the embedded server.
    nowherePort = await findFreeLoopbackPort();
    await writeFile(
      join(workDir, 'seed.sql'),
      'CREATE TABLE IF NOT EXISTS alias_books (id text PRIMARY KEY, title text NOT NULL);\n' +
        "INSERT INTO alias_books VALUES ('sicp', 'SICP'), ('taocp', 'TAOCP') ON CONFLICT (id) DO NOTHING;\n",
    );
    profilePath = join(workDir, 'alias.yml');
    await writeFile(
      profilePath,
      [
        'name: alias-demo',
        'resources:',
        '  books:',
        '    _class: postgresql',
        `    server: { host: ${LOOPBACK}, port: ${nowherePort}, user: nobody, password: nothing, database: nowhere }`,
        'server:',
        '  endpoints:',
        "    - { path: /books, endpoint: list, resource: books, sql: 'SELECT id, title FROM alias_books ORDER BY id' }",
        '    - { path: /books/:id, endpoint: readOne, resource: books, table: alias_books, id_field: id }',
        '    - { path: /books, endpoint: create, resource: books, table: alias_books, id_field: id }',
        'embeddedPostgres:',
        '  seed: seed.sql',
        '  try:',
        '    - { method: GET, path: /books/sicp }',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('serve: points the postgresql resource at the embedded server, seeds it, answers over HTTP, stops on SIGTERM', async () => {
    const child = spawnCli(['serve', profilePath, '--port', '0', '--host', LOOPBACK, '--embedded-postgres', '--embedded-postgres-dir', join(workDir, 'pglite')]);
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    // The last line serve prints once it listens and has printed the try lines.
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`not listening in time; output: ${output}`)), START_TIMEOUT_MS);
      child.stdout?.on('data', () => {
        if (!output.includes('Ctrl-C stops the API')) return;
        clearTimeout(timer);
        done();
      });
      void exited.then((code) => fail(new Error(`exited with ${code} before listening; output: ${output}`)));
    });
    const listening = /alias-demo listening on http:\/\/([\d.]+):(\d+)/.exec(output);
    expect(listening).not.toBeNull();
    const base = `http://${listening?.[1]}:${listening?.[2]}`;
    expect(output).toContain('DEVELOPMENT ONLY, not for production');
    expect(output).toContain('serving resource books; seed');
    // What the user is told to connect to: the ready line's address and the psql line agree,
    // and that address answers with the seeded database (not the profile's unreachable port).
    const ready = /ready in [\d.]+ s on ([\d.]+):(\d+) \(pid (\d+), new database/.exec(output);
    expect(ready).not.toBeNull();
    const [, embeddedHost, embeddedPort, pid] = ready ?? [];
    const embeddedPid = Number(pid);
    expect(output).toContain(`  psql postgres://postgres:postgres@${embeddedHost}:${embeddedPort}/postgres\n`);
    expect(isProcessAlive(embeddedPid)).toBe(true);
    const direct = new Client(`postgres://postgres:postgres@${embeddedHost}:${embeddedPort}/postgres`);
    await direct.connect();
    try {
      expect((await direct.query('SELECT id, title FROM alias_books ORDER BY id')).rows).toEqual([
        { id: 'sicp', title: 'SICP' },
        { id: 'taocp', title: 'TAOCP' },
      ]);
    } finally {
      await direct.end();
    }
    // The try line of the profile, with the real port.
    expect(output).toContain(`curl -s ${base}/books/sicp`);

    const list = await fetch(`${base}/books`);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown }).data).toEqual([
      { id: 'sicp', title: 'SICP' },
      { id: 'taocp', title: 'TAOCP' },
    ]);
    const created = await fetch(`${base}/books`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'ddia', title: 'DDIA' }),
    });
    expect(created.status).toBe(201);
    const one = await fetch(`${base}/books/ddia`);
    expect(one.status).toBe(200);
    expect(((await one.json()) as { data: unknown }).data).toEqual({ id: 'ddia', title: 'DDIA' });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('Embedded PostgreSQL stopped.');
    expect(isProcessAlive(embeddedPid)).toBe(false);
    expect(await isPortOpen(Number(embeddedPort))).toBe(false);
  }, START_TIMEOUT_MS);

  it('check: validates the postgresql resource against the same, reopened, embedded database', async () => {
    const result = await runCli(['check', profilePath, '--embedded-postgres', '--embedded-postgres-dir', join(workDir, 'pglite')], START_TIMEOUT_MS);
    expect(result.stdout).toContain('existing database');
    expect(result.stdout).toContain('serving resource books');
    expect(result.stdout).toContain(`${profilePath}: ok`);
    expect(result.code).toBe(0);
  }, START_TIMEOUT_MS);

  it('refuses, before starting anything, a profile with only mysql/mariadb resources', async () => {
    const mariadbOnly = join(workDir, 'mariadb-only.yml');
    await writeFile(mariadbOnly, `resources:\n  db:\n    _class: mariadb\n    server: { host: ${LOOPBACK}, port: ${nowherePort}, database: nowhere }\n`);
    const result = await runCli(['serve', mariadbOnly, '--embedded-postgres', '--embedded-postgres-dir', join(workDir, 'unused')]);
    expect(result.stderr).toContain(`--embedded-postgres: ${mariadbOnly} declares no postgres resource`);
    expect(result.code).toBe(1);
    expect(existsSync(join(workDir, 'unused'))).toBe(false);
  }, START_TIMEOUT_MS);
});
