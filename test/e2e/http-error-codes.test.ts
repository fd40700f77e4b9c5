import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { kinds, mysqlServer, postgresServer, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';
import { forwardTo, type TcpForwarder } from './fixtures/tcp-forwarder';

/**
 * Every nok answer names its catalogue code in `error`, and the request field (`field`) or the
 * columns (`columns`) at fault when the error names them: exact bodies, per status.
 */
describe.each(kinds)('%s nok envelope: catalogue code, field and columns', (kind: Kind) => {
  const parents = uniqueName('sr_codes_parent');
  const children = uniqueName('sr_codes_child');
  const uniqueName_ = `${parents}_uq`;
  const foreignKey = `${children}_fk`;
  let app: App;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, parents)} (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, CONSTRAINT ${q(kind, uniqueName_)} UNIQUE (name))`);
    await rawQuery(
      kind,
      `CREATE TABLE ${q(kind, children)} (id INT PRIMARY KEY, parent_id INT NOT NULL, ` +
        `CONSTRAINT ${q(kind, foreignKey)} FOREIGN KEY (parent_id) REFERENCES ${q(kind, parents)} (id))`,
    );
    await rawQuery(kind, `INSERT INTO ${q(kind, parents)} (id, name) VALUES (1, 'Ada')`);
    app = createApp({
      resources: { db: resourceConfig(kind) },
      server: {
        bodyLimit: 256,
        endpoints: [
          { path: '/parents', endpoint: 'create', resource: 'db', table: parents, id_field: 'id' },
          { path: '/parents', endpoint: 'update', resource: 'db', table: parents, id_field: 'id' },
          { path: '/parents/:id', endpoint: 'readOne', resource: 'db', table: parents, id_field: 'id' },
          { path: '/by-name', endpoint: 'list', resource: 'db', sql: `SELECT id FROM ${q(kind, parents)} WHERE name = {{name}}` },
          { path: '/children', endpoint: 'create', resource: 'db', table: children, id_field: 'id' },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app?.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, children)}`);
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, parents)}`);
  });

  it('answers 400 UNKNOWN_COLUMN with the unknown column in columns', async () => {
    const answer = await call(app, 'POST', '/parents', { id: 2, nme: 'Bea' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'nok', message: `unknown column in ${parents}: nme`, error: 'UNKNOWN_COLUMN', columns: ['nme'] });
  });

  it('lists only identifier-like unknown columns, and no columns when none is', async () => {
    const mixed = await call(app, 'POST', '/parents', { id: 2, nme: 'Bea', 'x; DROP TABLE y': 1, ag: 3 });
    expect(mixed.status).toBe(400);
    expect(mixed.body).toEqual({ code: 'nok', message: `unknown columns in ${parents}: nme, ag, 1 other`, error: 'UNKNOWN_COLUMN', columns: ['nme', 'ag'] });
    const none = await call(app, 'POST', '/parents', { id: 2, '<script>': 1 });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ code: 'nok', message: `unknown column in ${parents}: 1 other`, error: 'UNKNOWN_COLUMN' });
  });

  it('answers 400 INVALID_VALUE with the column whose type refuses the value', async () => {
    const answer = await call(app, 'POST', '/parents', { id: 'two', name: 'Bea' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'nok',
      message: "value for 'id' must be an integer (a JSON integer, or its decimal digits as a string) (integer column)",
      error: 'INVALID_VALUE',
      columns: ['id'],
    });
  });

  it('answers 400 INVALID_VALUE for NULL into NOT NULL, with the column when the driver names it (PostgreSQL)', async () => {
    const answer = await call(app, 'POST', '/parents', { id: 2, name: null });
    expect(answer.status).toBe(400);
    const summary = `insert on ${parents} failed: value not valid for its column (type, length, NOT NULL, CHECK)`;
    expect(answer.body).toEqual(
      kind === 'postgres'
        ? { code: 'nok', message: `${summary} (column name) (23502)`, error: 'INVALID_VALUE', columns: ['name'] }
        : { code: 'nok', message: `${summary} (ER_BAD_NULL_ERROR)`, error: 'INVALID_VALUE' },
    );
  });

  it('answers 400 TEMPLATE_VARIABLE with the missing or repeated variable in field', async () => {
    const missing = await call(app, 'GET', '/by-name');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'nok', message: "template variable 'name' is missing from the request", error: 'TEMPLATE_VARIABLE', field: 'name' });
    const repeated = await call(app, 'GET', '/by-name?name=Ada&name=Bea');
    expect(repeated.status).toBe(400);
    expect(repeated.body).toEqual({ code: 'nok', message: "template variable 'name' is given more than once in the query string", error: 'TEMPLATE_VARIABLE', field: 'name' });
  });

  it('answers 400 MISSING_ID and INVALID_ID with field id', async () => {
    const missing = await call(app, 'PUT', '/parents', { name: 'Bea' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'nok', message: 'missing id: give it as the :id path parameter or as "id" in the JSON body', error: 'MISSING_ID', field: 'id' });
    const invalid = await call(app, 'GET', '/parents/two');
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      code: 'nok',
      message: "the id for 'id' must be an integer (a JSON integer, or its decimal digits as a string) (integer column)",
      error: 'INVALID_ID',
      field: 'id',
    });
  });

  it('answers 404 NOT_FOUND for a readOne of a missing id', async () => {
    const answer = await call(app, 'GET', '/parents/999');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 'nok', message: `readOne ${parents}: no row with this id`, error: 'NOT_FOUND' });
  });

  it('answers 404 ROUTE_NOT_FOUND for an unknown path, and for a method no endpoint of the path takes (there is no 405)', async () => {
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['DELETE', '/parents/1'],
    ]) {
      const answer = await call(app, method, path);
      expect({ method, path, status: answer.status, body: answer.body }).toEqual({
        method,
        path,
        status: 404,
        body: { code: 'nok', message: 'no endpoint at this method and path', error: 'ROUTE_NOT_FOUND' },
      });
    }
  });

  it('answers 409 CONSTRAINT_VIOLATION for a duplicate unique key', async () => {
    const answer = await call(app, 'POST', '/parents', { id: 2, name: 'Ada' });
    expect(answer.status).toBe(409);
    const reason = kind === 'postgres' ? `(constraint ${uniqueName_}) (23505)` : '(ER_DUP_ENTRY)';
    expect(answer.body).toEqual({ code: 'nok', message: `insert on ${parents} failed: unique or foreign-key violation ${reason}`, error: 'CONSTRAINT_VIOLATION' });
  });

  it('answers 409 CONSTRAINT_VIOLATION for a foreign key that names no row', async () => {
    const answer = await call(app, 'POST', '/children', { id: 1, parent_id: 999 });
    expect(answer.status).toBe(409);
    const reason = kind === 'postgres' ? `(constraint ${foreignKey}) (23503)` : '(ER_NO_REFERENCED_ROW_2)';
    expect(answer.body).toEqual({ code: 'nok', message: `insert on ${children} failed: unique or foreign-key violation ${reason}`, error: 'CONSTRAINT_VIOLATION' });
  });

  it('answers 413 BODY_TOO_LARGE for a body over server.bodyLimit', async () => {
    const answer = await call(app, 'POST', '/parents', { id: 2, name: 'B'.repeat(300) });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ code: 'nok', message: 'the request body is larger than the limit (server.bodyLimit, 1 MiB by default)', error: 'BODY_TOO_LARGE' });
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not sent as JSON', async () => {
    const answer = await call(app, 'POST', '/parents', '{"id":2,"name":"Bea"}', { 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual({
      code: 'nok',
      message: 'the request body must be JSON, sent with Content-Type application/json (or application/<type>+json)',
      error: 'UNSUPPORTED_MEDIA_TYPE',
    });
  });
});

describe.each(kinds)('%s nok envelope when the database is unreachable', (kind: Kind) => {
  let forwarder: TcpForwarder;
  let app: App;

  beforeAll(async () => {
    const target = kind === 'mysql' ? mysqlServer : postgresServer;
    forwarder = await forwardTo(target.host, target.port);
    app = createApp({
      resources: { db: resourceConfig(kind, { host: '127.0.0.1', port: forwarder.port, connectTimeout: 2000 }) },
      server: { endpoints: [{ path: '/one', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS one' }] },
    });
    // A pool's connections that die with the server are reported here; the answers tell the rest.
    app.resources.get('db').on('error', () => undefined);
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app?.stop();
    await forwarder?.close();
  });

  it('answers 503 DB_UNAVAILABLE once nothing listens on the port of the resource', async () => {
    expect((await call(app, 'GET', '/one')).body).toEqual({ code: 'ok', message: 'list /one', data: [{ one: 1 }], total: 1 });
    await forwarder.close();
    const answer = await call(app, 'GET', '/one');
    expect(answer.status).toBe(503);
    // The second request of this server: fastify numbers them req-1, req-2, …
    expect(answer.body).toEqual({ code: 'nok', message: 'internal error (request req-2)', error: 'DB_UNAVAILABLE' });
  });
});
