import { format } from 'node:util';
import createDebug from 'debug';
import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, serverConfig, types, uniqueName, type Kind } from '../support/servers';

/**
 * Issue 9 item 5: the redaction that hid the password in messages also hid it inside echoed
 * request values, so one request confirmed a guess. Clients now never see a request value
 * echoed, and the password as a value answers exactly what any other bad value answers.
 */
const password = 'Hunter2-oracle-Secret';
const mysqlUser = 'sr_oracle_user';

/** A resource whose configuration holds `password` (MariaDB: a user with it; PostgreSQL trusts loopback). */
function resourceWithPassword(kind: Kind): Record<string, unknown> {
  if (kind === 'postgres') return resourceConfig(kind, { password }, { keepAliveInterval: 0 });
  return { _class: 'mysql', keepAliveInterval: 0, server: { ...serverConfig('mysql'), user: mysqlUser, password } };
}

describe.each(kinds)('%s: no oracle for the password', (kind: Kind) => {
  const table = uniqueName('sr_oracle');
  let app: App;

  beforeAll(async () => {
    if (kind === 'mysql') {
      for (const host of ['%', 'localhost', '127.0.0.1']) {
        await rawQuery(kind, `CREATE USER IF NOT EXISTS '${mysqlUser}'@'${host}' IDENTIFIED BY '${password}'`);
        await rawQuery(kind, `GRANT ALL PRIVILEGES ON test.* TO '${mysqlUser}'@'${host}'`);
      }
    }
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id ${types[kind].serial}, big INT, d DATE)`);
    app = createApp({
      resources: { db: resourceWithPassword(kind) },
      server: {
        endpoints: [
          { path: '/rows', endpoint: 'create', resource: 'db', table, id_field: 'id' },
          { path: '/rows/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
          // A template whose statement the database refuses for the value (strict mode: a bad DATE).
          { path: '/templated', endpoint: 'read', resource: 'db', sql: `INSERT INTO ${q(kind, table)} (d) VALUES ({{v}})` },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
    if (kind === 'mysql') for (const host of ['%', 'localhost', '127.0.0.1']) await rawQuery(kind, `DROP USER IF EXISTS '${mysqlUser}'@'${host}'`);
  });

  const guesses = [password, `abc${password}def`, `${password.slice(0, -1)}x`, 'not-a-guess'];
  const withoutRequestId = (text: string): string => text.replace(/request [^)\s]+/g, 'request <id>');

  it.each([
    ['an integer column (refused before the statement)', (value: string) => ({ big: value })],
    ['a DATE column (refused by the database)', (value: string) => ({ d: value })],
  ])('create: the password in %s answers like any other bad value', async (_what, bodyOf) => {
    const answers = [];
    for (const guess of guesses) answers.push(await call(app, 'POST', '/rows', bodyOf(guess)));
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('nok');
      expect(answer.text).not.toContain(password.slice(0, 8));
      expect(answer.text).not.toContain('***');
      expect(answer.text).not.toContain('not-a-guess');
    }
    const bodies = answers.map((answer) => withoutRequestId(answer.text));
    expect(new Set(bodies).size).toBe(1);
  });

  it('a template value the database refuses answers the same for the password and for any other value', async () => {
    const answers = [];
    for (const guess of guesses) answers.push(await call(app, 'GET', `/templated?v=${encodeURIComponent(guess)}`));
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'INVALID_VALUE' });
      expect(answer.text).not.toContain(password.slice(0, 8));
      expect(answer.text).not.toContain('***');
      expect(answer.text).not.toContain('not-a-guess');
    }
    expect(new Set(answers.map((answer) => withoutRequestId(answer.text))).size).toBe(1);
  });

  it('an id the key cannot take is refused without echoing it', async () => {
    const answers = [];
    for (const guess of guesses) answers.push(await call(app, 'GET', `/rows/${encodeURIComponent(guess)}`));
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'INVALID_ID' });
      expect(answer.text).not.toContain(password.slice(0, 8));
    }
    expect(new Set(answers.map((answer) => withoutRequestId(answer.text))).size).toBe(1);
  });

  it('never writes the password to a debug line or a query event, whatever the requests send', async () => {
    const captured: string[] = [];
    const savedLog = createDebug.log;
    const savedNamespaces = createDebug.disable();
    createDebug.enable('sql-resources:*');
    createDebug.log = (...args: unknown[]) => void captured.push(format(...args));
    const listener = (event: unknown): void => void captured.push(format('%o', event));
    app.resources.get('db').on('query', listener);
    try {
      for (const guess of guesses) {
        await call(app, 'POST', '/rows', { d: guess });
        await call(app, 'POST', '/rows', { big: guess });
        await call(app, 'GET', `/templated?v=${encodeURIComponent(guess)}`);
      }
    } finally {
      app.resources.get('db').off('query', listener);
      createDebug.log = savedLog;
      createDebug.disable();
      if (savedNamespaces) createDebug.enable(savedNamespaces);
    }
    // The statements and their parameters were logged: the capture is not empty by accident.
    // (toContainEqual prints what was captured when nothing matches.)
    expect(captured).toContainEqual(expect.stringContaining('INSERT INTO'));
    expect(captured).toContainEqual(expect.stringContaining('not-a-guess'));
    for (const line of captured) expect(line).not.toContain(password);
  });
});
