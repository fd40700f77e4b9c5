import { createApp, MysqlResource, PostgresResource, register, type App } from '../../src';
import { isMysqlClass, isPostgresClass } from '../../src/registry';
import { call } from '../support/http';
import { kinds, q, rawQuery, serverConfig, types, uniqueName, type Kind } from '../support/servers';

/** Classes a user registers for a server that speaks one of the built-in protocols. */
class TidbResource extends MysqlResource {}
class CockroachResource extends PostgresResource {}
register('tidb', TidbResource);
register('cockroach', CockroachResource);
const registeredName: Record<Kind, string> = { mysql: 'tidb', postgres: 'cockroach' };

describe.each(kinds)('a class registered over the %s adapter', (kind: Kind) => {
  const items = uniqueName('sr_registered');
  let app: App;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, items)} (id ${types[kind].serial}, name VARCHAR(50) NOT NULL, city VARCHAR(50))`);
    app = createApp({
      name: `registered-${kind}`,
      resources: { db: { _class: registeredName[kind], server: serverConfig(kind), ...(kind === 'mysql' ? { keepAliveInterval: 0 } : {}) } },
      server: {
        endpoints: [
          // A template with a quoted placeholder: the dialect's scanner must read it.
          { path: '/items', endpoint: 'list', resource: 'db', sql: `SELECT id, name FROM ${q(kind, items)} WHERE city = '{{city}}' ORDER BY id` },
          { path: '/items/:id/all', endpoint: 'read', resource: 'db', table: items, id_field: 'id' },
          { path: '/items/:id', endpoint: 'readOne', resource: 'db', table: items, id_field: 'id' },
          { path: '/items', endpoint: 'create', resource: 'db', table: items, id_field: 'id' },
          { path: '/items/:id', endpoint: 'update', resource: 'db', table: items, id_field: 'id' },
          { path: '/items/:id', endpoint: 'delete', resource: 'db', table: items, id_field: 'id' },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, items)}`);
  });

  it('belongs to its family and carries the family dialect', () => {
    const resource = app.resources.get('db');
    expect(resource).toBeInstanceOf(kind === 'mysql' ? TidbResource : CockroachResource);
    expect(resource.dialect.name).toBe(kind);
    expect([isMysqlClass(registeredName[kind]), isPostgresClass(registeredName[kind])]).toEqual(kind === 'mysql' ? [true, false] : [false, true]);
  });

  it('serves create, list, read, readOne, update and delete through the host', async () => {
    const created = await call(app, 'POST', '/items', { name: 'lamp', city: 'Oslo' });
    expect(created.status).toBe(201);
    const { id } = created.body.data as { id: number };
    expect(created.body.data).toEqual({ id, name: 'lamp', city: 'Oslo' });
    await call(app, 'POST', '/items', { name: 'desk', city: 'Rome' });

    const listed = await call(app, 'GET', '/items?city=Oslo');
    expect([listed.status, listed.body.total, listed.body.data]).toEqual([200, 1, [{ id, name: 'lamp' }]]);

    const read = await call(app, 'GET', `/items/${id}/all`);
    expect([read.status, read.body.data]).toEqual([200, [{ id, name: 'lamp', city: 'Oslo' }]]);

    const updated = await call(app, 'PUT', `/items/${id}`, { name: 'lantern' });
    expect([updated.status, updated.body.data]).toEqual([200, { id, name: 'lantern', city: 'Oslo' }]);
    const one = await call(app, 'GET', `/items/${id}`);
    expect([one.status, one.body.data]).toEqual([200, { id, name: 'lantern', city: 'Oslo' }]);

    const deleted = await call(app, 'DELETE', `/items/${id}`);
    expect([deleted.status, deleted.body.data]).toEqual([200, { id: String(id), affectedRows: 1 }]);
    expect(await rawQuery(kind, `SELECT name FROM ${q(kind, items)} ORDER BY id`)).toEqual([{ name: 'desk' }]);
  });

  it('binds a template value holding quotes as a value', async () => {
    const answer = await call(app, 'GET', `/items?city=${encodeURIComponent("x' OR '1'='1")}`);
    expect([answer.status, answer.body.total]).toEqual([200, 0]);
  });
});
