import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { startServer, stopServer } from '../support/server-control';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

describe.each(kinds)('%s endpoints over HTTP', (kind: Kind) => {
  const people = uniqueName('sr_people');
  const codes = uniqueName('sr_codes');
  let app: App;

  const snapshot = (table: string): Promise<Record<string, unknown>[]> => rawQuery(kind, `SELECT * FROM ${q(kind, table)} ORDER BY 1`);

  beforeAll(async () => {
    await rawQuery(
      kind,
      `CREATE TABLE ${q(kind, people)} (id ${types[kind].serial}, name VARCHAR(100) NOT NULL UNIQUE, city VARCHAR(5000), country VARCHAR(10), note ${types[kind].text})`,
    );
    await rawQuery(kind, `CREATE TABLE ${q(kind, codes)} (code VARCHAR(700) PRIMARY KEY, label VARCHAR(100))`);
    app = createApp({
      name: `e2e-${kind}`,
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: {
        endpoints: [
          { path: '/people', endpoint: 'list', resource: 'db', sql: `SELECT id, name, city FROM ${q(kind, people)} ORDER BY id` },
          {
            path: '/by-city',
            endpoint: 'list',
            resource: 'db',
            country: 'FR',
            sql: `SELECT name FROM ${q(kind, people)} WHERE city = "{{city}}" AND country = "{{country}}" ORDER BY name`,
          },
          { path: '/search', endpoint: 'list', resource: 'db', sql: `SELECT name FROM ${q(kind, people)} WHERE name LIKE '%{{q}}%' ORDER BY name` },
          { path: '/broken', endpoint: 'list', resource: 'db', sql: 'SELECT * FROM sr_no_such_table_anywhere' },
          { path: '/people/:id/all', endpoint: 'read', resource: 'db', table: people, id_field: 'id' },
          { path: '/people/:id', endpoint: 'readOne', resource: 'db', table: people, id_field: 'id' },
          { path: '/people', endpoint: 'create', resource: 'db', table: people, id_field: 'id' },
          { path: '/people/:id', endpoint: 'update', resource: 'db', table: people, id_field: 'id' },
          { path: '/people', endpoint: 'update', resource: 'db', table: people, id_field: 'id' },
          { path: '/people/:id', endpoint: 'delete', resource: 'db', table: people, id_field: 'id' },
          { path: '/codes/:id', endpoint: 'readOne', resource: 'db', table: codes, id_field: 'code' },
          { path: '/codes/:id', endpoint: 'delete', resource: 'db', table: codes, id_field: 'code' },
          { path: '/codes/:id', endpoint: 'update', resource: 'db', table: codes, id_field: 'code' },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, people)}`);
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, codes)}`);
  });

  beforeEach(async () => {
    await rawQuery(kind, `DELETE FROM ${q(kind, people)}`);
    await rawQuery(kind, `DELETE FROM ${q(kind, codes)}`);
    for (const [name, city, country] of [
      ['Ada', 'Paris', 'FR'],
      ['Bob', 'Paris', 'US'],
      ['Chloé', 'Lyon', 'FR'],
      ['Dan', 'Paris', 'FR'],
    ]) {
      await rawQuery(kind, `INSERT INTO ${q(kind, people)} (name, city, country) VALUES ('${name}', '${city}', '${country}')`);
    }
    await rawQuery(kind, `INSERT INTO ${q(kind, codes)} (code, label) VALUES ('A1', 'first')`);
  });

  async function idOf(name: string): Promise<number> {
    const [row] = await rawQuery(kind, `SELECT id FROM ${q(kind, people)} WHERE name = '${name}'`);
    return Number(row.id);
  }

  it('list answers the envelope with data and total', async () => {
    const answer = await call(app, 'GET', '/people');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toMatchObject({ code: 'ok', total: 4 });
    expect((answer.body.data as { name: string }[]).map((row) => row.name)).toEqual(['Ada', 'Bob', 'Chloé', 'Dan']);
  });

  it('binds the reference example: query-string and configuration variables, configuration first', async () => {
    const answer = await call(app, 'GET', '/by-city?city=Paris&country=US');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([{ name: 'Ada' }, { name: 'Dan' }]);
    expect(answer.body.total).toBe(2);
  });

  it('binds LIKE patterns and treats hostile values as data', async () => {
    expect((await call(app, 'GET', '/search?q=a')).body.data).toEqual([{ name: 'Ada' }, { name: 'Dan' }]);
    expect((await call(app, 'GET', `/search?q=${encodeURIComponent('é')}`)).body.data).toEqual([{ name: 'Chloé' }]);
    const before = await snapshot(people);
    for (const hostile of [`' OR 1=1 --`, `%' OR '1'='1`, `"; DROP TABLE ${people}; --`, '/* */', '\\', 'x'.repeat(5000)]) {
      const answer = await call(app, 'GET', `/search?q=${encodeURIComponent(hostile)}`);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([]);
      const city = await call(app, 'GET', `/by-city?city=${encodeURIComponent(hostile)}`);
      expect(city.body).toMatchObject({ code: 'ok', data: [], total: 0 });
    }
    expect(await snapshot(people)).toEqual(before);
  });

  it('answers 400 naming a missing or repeated template variable', async () => {
    const missing = await call(app, 'GET', '/by-city');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'nok', message: "template variable 'city' is missing from the request", error: 'TEMPLATE_VARIABLE', field: 'city' });
    const repeated = await call(app, 'GET', '/by-city?city=Paris&city=Lyon');
    expect(repeated.status).toBe(400);
    expect(repeated.body.message).toContain("'city' is given more than once");
  });

  it('read answers an array, readOne an object or 404', async () => {
    const id = await idOf('Bob');
    expect((await call(app, 'GET', `/people/${id}/all`)).body).toMatchObject({ code: 'ok', data: [{ id, name: 'Bob', city: 'Paris' }] });
    expect((await call(app, 'GET', `/people/${id}`)).body).toMatchObject({ code: 'ok', data: { id, name: 'Bob' } });
    expect((await call(app, 'GET', '/people/999999/all')).body.data).toEqual([]);
    const none = await call(app, 'GET', '/people/999999');
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('nok');
  });

  it('create stores the body and answers 201 with the stored row', async () => {
    const answer = await call(app, 'POST', '/people', { name: 'Eve', city: 'Nice', note: { likes: ['sql'] } });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ code: 'ok', data: { name: 'Eve', city: 'Nice', country: null, note: '{"likes":["sql"]}' } });
    expect(typeof (answer.body.data as { id: unknown }).id).toBe('number');
    const [stored] = await rawQuery(kind, `SELECT note FROM ${q(kind, people)} WHERE name = 'Eve'`);
    expect(stored.note).toBe('{"likes":["sql"]}');
  });

  it('update answers the row after the update, or 404; the id may come from the body', async () => {
    const id = await idOf('Ada');
    const answer = await call(app, 'PUT', `/people/${id}`, { city: 'Rome' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id, name: 'Ada', city: 'Rome' });
    const byBody = await call(app, 'PUT', '/people', { id, city: 'Oslo' });
    expect(byBody.body.data).toMatchObject({ id, city: 'Oslo' });
    expect((await call(app, 'PUT', '/people/999999', { city: 'Rome' })).status).toBe(404);
    expect((await call(app, 'PUT', '/people', { city: 'Rome' })).status).toBe(400);
  });

  it('delete removes the row, then answers 404', async () => {
    const id = await idOf('Dan');
    expect((await call(app, 'DELETE', `/people/${id}`, undefined, { 'content-type': 'application/json' })).status).toBe(200);
    expect((await call(app, 'DELETE', `/people/${id}`)).status).toBe(404);
    expect(await rawQuery(kind, `SELECT id FROM ${q(kind, people)} WHERE id = ${id}`)).toEqual([]);
  });

  it('answers 409 for a unique violation', async () => {
    const answer = await call(app, 'POST', '/people', { name: 'Ada' });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('nok');
    expect(answer.body.message).toMatch(/^insert on sr_people\S* failed: /);
  });

  it.each([
    ['an array', '[{"name":"X"}]', 400],
    ['a string', '"name"', 400],
    ['a number', '42', 400],
    ['null', 'null', 400],
    ['an empty object', '{}', 400],
    ['malformed JSON', '{"name": "X",', 400],
    ['a __proto__ key', '{"name":"X","__proto__":{"admin":true}}', 400],
    ['a constructor.prototype key', '{"name":"X","constructor":{"prototype":{"admin":true}}}', 400],
    ['an unknown column', '{"name":"X","password":"p","is_admin":1}', 400],
    ['an empty body', '', 400],
  ])('refuses %s as a create body and changes nothing', async (_label, body, status) => {
    const before = await snapshot(people);
    const answer = await call(app, 'POST', '/people', body);
    expect(answer.status).toBe(status);
    expect(answer.body.code).toBe('nok');
    expect(await snapshot(people)).toEqual(before);
  });

  it('names every unknown column', async () => {
    const answer = await call(app, 'POST', '/people', { name: 'X', password: 'p', is_admin: 1 });
    expect(answer.body.message).toContain('password, is_admin');
  });

  it('answers 413 for a body over 1 MiB, and changes nothing', async () => {
    const before = await snapshot(people);
    const answer = await call(app, 'POST', '/people', { name: 'Big', note: 'x'.repeat(1024 * 1024) });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ code: 'nok', message: 'the request body is larger than the limit (server.bodyLimit, 1 MiB by default)', error: 'BODY_TOO_LARGE' });
    expect(await snapshot(people)).toEqual(before);
  });

  it.each([`' OR 1=1 --`, `A1' OR '1'='1`, `1; DROP TABLE ${'x'}; --`, '/* */', 'A1"', 'été 🎉', 'z'.repeat(5000)])(
    'treats hostile id #%# as a value',
    async (id) => {
      const before = await snapshot(codes);
      const path = `/codes/${encodeURIComponent(id)}`;
      expect((await call(app, 'GET', path)).status).toBe(404);
      expect((await call(app, 'PUT', path, { label: 'hacked' })).status).toBe(404);
      expect((await call(app, 'DELETE', path)).status).toBe(404);
      expect(await snapshot(codes)).toEqual(before);
    },
  );

  it('stores ids holding quotes and unicode exactly', async () => {
    await rawQuery(kind, `INSERT INTO ${q(kind, codes)} (code, label) VALUES ('it''s 🎉', 'quoted')`);
    const answer = await call(app, 'GET', `/codes/${encodeURIComponent("it's 🎉")}`);
    expect(answer.body.data).toEqual({ code: "it's 🎉", label: 'quoted' });
  });

  it('answers 500 with a generic message naming the request, without the database error or the SQL text', async () => {
    const answer = await call(app, 'GET', '/broken');
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ code: 'nok', message: expect.stringMatching(/^internal error \(request \S+\)$/), error: 'DB_ERROR' });
    expect(answer.text).not.toContain('SELECT');
    expect(answer.text).not.toContain('sr_no_such_table_anywhere');
  });

  it('answers 404 in the envelope for an unknown route', async () => {
    const answer = await call(app, 'GET', '/nowhere');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ code: 'nok', message: 'no endpoint at this method and path', error: 'ROUTE_NOT_FOUND' });
  });

  it('answers 503 while the database is down and 200 once it is back', async () => {
    await stopServer(kind);
    try {
      const down = await call(app, 'GET', '/people');
      expect(down.status).toBe(503);
      expect(down.body.code).toBe('nok');
      expect((await call(app, 'GET', '/people/1')).status).toBe(503);
    } finally {
      await startServer(kind);
    }
    let status = 0;
    for (let attempt = 0; attempt < 3 && status !== 200; attempt += 1) status = (await call(app, 'GET', '/people')).status;
    expect(status).toBe(200);
  }, 120_000);
});
