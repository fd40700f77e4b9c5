import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { stringify } from 'yaml';
import { createApp, type App } from '../../src';
import { runCli } from '../support/cli';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

/**
 * Access control (SPEC §7) on a multi-tenant table: `{{auth.<claim>}}` in SQL and `scope` on the
 * table endpoints keep each caller to its tenant's rows, the claims come only from a verified
 * credential, and the profile refuses access keys that cannot work.
 */
const secret = 'auth-scope-test-secret-of-at-least-32-bytes';
const sign = createSigner({ key: secret, algorithm: 'HS256', noTimestamp: true });
const signElsewhere = createSigner({ key: 'another-secret-that-is-also-32-bytes-long', algorithm: 'HS256', noTimestamp: true });
const apiKey = 'tenant-two-export-key-0123456789';
const auth = {
  jwt: { secret, algorithms: ['HS256'] },
  apiKeys: [{ name: 'tenant-two-export', sha256: createHash('sha256').update(apiKey).digest('hex'), claims: { tenant: 2 } }],
};

function bearer(claims: Record<string, unknown>, signer = sign): Record<string, string> {
  return { authorization: `Bearer ${signer(claims)}` };
}

/**
 * A token whose payload is the given JSON text, as written: a JavaScript object cannot hold
 * 9007199254740993, which is the point of the tests that use it.
 */
function bearerOfPayloadText(payload: string): Record<string, string> {
  const signed = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(payload).toString('base64url')}`;
  return { authorization: `Bearer ${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}` };
}

const tenantOne = bearer({ sub: 'ada', tenant: 1, roles: ['reader'] });
const seedRows = [
  { id: 1, tenant_id: 1, item: 'apple' },
  { id: 2, tenant_id: 1, item: 'banana' },
  { id: 3, tenant_id: 2, item: 'cherry' },
  { id: 4, tenant_id: 2, item: 'damson' },
];

const handlerLib = `'use strict';
// server.lib for the access control tests: answers the verified identity it was given.
exports.whoami = () => async (req) => ({ code: 'ok', message: 'who', data: req.auth });
`;

describe.each(kinds)('%s access control: tenant scope from verified claims', (kind: Kind) => {
  const table = uniqueName('sr_auth_orders');
  const orders = q(kind, table);
  const forbidden = (claim: string): unknown => ({ code: 'nok', message: `the caller's credential has no claim '${claim}' that this endpoint needs`, error: 'FORBIDDEN', field: `auth.${claim}` });
  const outsideScope = { code: 'nok', message: "the body sets 'tenant_id' outside the caller's scope", error: 'FORBIDDEN', columns: ['tenant_id'] };
  const notFound = (kindName: string): unknown => ({ code: 'nok', message: `${kindName} ${table}: no row with this id`, error: 'NOT_FOUND' });
  const scope = { tenant_id: '{{auth.tenant}}' };
  let workDir: string;
  let app: App;

  async function stored(): Promise<{ id: number; tenant_id: number; item: string }[]> {
    const rows = await rawQuery(kind, `SELECT id, tenant_id, item FROM ${orders} ORDER BY id`);
    return rows.map((row) => ({ id: Number(row.id), tenant_id: Number(row.tenant_id), item: String(row.item) }));
  }

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'sr-auth-scope-'));
    writeFileSync(join(workDir, 'handlers.js'), handlerLib);
    await rawQuery(kind, `CREATE TABLE ${orders} (id INT PRIMARY KEY, tenant_id INT NOT NULL, item VARCHAR(100))`);
    app = createApp({
      name: 'orders-api',
      resources: { db: resourceConfig(kind) },
      server: {
        auth,
        lib: join(workDir, 'handlers.js'),
        endpoints: [
          { path: '/orders', endpoint: 'list', resource: 'db', sql: `SELECT id, tenant_id, item FROM ${orders} WHERE tenant_id = {{auth.tenant}} ORDER BY id` },
          { path: '/orders/by-item', endpoint: 'list', resource: 'db', sql: `SELECT id FROM ${orders} WHERE item = {{auth.item}} ORDER BY id` },
          { path: '/orders/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id', scope },
          { path: '/orders/:id/all', endpoint: 'read', resource: 'db', table, id_field: 'id', scope },
          { path: '/orders', endpoint: 'create', resource: 'db', table, id_field: 'id', scope },
          { path: '/orders/:id', endpoint: 'update', resource: 'db', table, id_field: 'id', scope },
          { path: '/orders/:id', endpoint: 'delete', resource: 'db', table, id_field: 'id', scope },
          { path: '/writers', endpoint: 'list', resource: 'db', roles: ['writer'], sql: `SELECT id FROM ${orders} WHERE tenant_id = {{auth.tenant}} ORDER BY id` },
          { path: '/status', endpoint: 'list', resource: 'db', public: true, sql: 'SELECT 1 AS up' },
          { path: '/whoami', handler: 'whoami' },
          { path: '/whoami/public', handler: 'whoami', public: true },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  beforeEach(async () => {
    await rawQuery(kind, `DELETE FROM ${orders}`);
    await rawQuery(kind, `INSERT INTO ${orders} (id, tenant_id, item) VALUES (1, 1, 'apple'), (2, 1, 'banana'), (3, 2, 'cherry'), (4, 2, 'damson')`);
  });

  afterAll(async () => {
    await app?.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${orders}`);
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  describe('{{auth.<claim>}} in a list template', () => {
    it("answers only the caller's tenant's rows", async () => {
      const one = await call(app, 'GET', '/orders', undefined, tenantOne);
      expect(one.status).toBe(200);
      expect(one.body.data).toEqual(seedRows.slice(0, 2));
      expect(one.body.total).toBe(2);
      const two = await call(app, 'GET', '/orders', undefined, bearer({ sub: 'bea', tenant: 2 }));
      expect(two.body.data).toEqual(seedRows.slice(2));
    });

    it('binds a claim holding SQL as one value: never more than one tenant, never a 500, and no row is touched', async () => {
      // The statement a concatenation would run names this test's table: the check below would see it.
      for (const tenant of ['1 OR 1=1', `1'; DROP TABLE ${table}; --`, `1; DROP TABLE ${table}; --`]) {
        const answer = await call(app, 'GET', '/orders', undefined, bearer({ sub: 'mallory', tenant }));
        // MySQL compares a text value with an integer column as a number, read from its leading
        // digits: the claim is bound, yet "1 …" names tenant 1. PostgreSQL refuses the text (22P02).
        const expected =
          kind === 'mysql'
            ? { status: 200, body: { code: 'ok', message: 'list /orders', data: seedRows.slice(0, 2), total: 2 } }
            : { status: 400, body: { code: 'nok', message: 'query failed: value not valid for its column (type, length, NOT NULL, CHECK) (22P02)', error: 'INVALID_VALUE' } };
        expect({ tenant, status: answer.status, body: answer.body }).toEqual({ tenant, ...expected });
      }
      expect(await stored()).toEqual(seedRows);
    });

    it('binds a text claim holding SQL against a text column: it matches nothing', async () => {
      const control = await call(app, 'GET', '/orders/by-item', undefined, bearer({ sub: 'ada', item: 'cherry' }));
      expect(control.body.data).toEqual([{ id: 3 }]);
      for (const item of ["cherry' OR '1'='1", `x'; DROP TABLE ${table}; --`, 'cherry" OR "1"="1', 'cherry\\\' OR 1=1 -- ']) {
        const answer = await call(app, 'GET', '/orders/by-item', undefined, bearer({ sub: 'mallory', item }));
        expect({ item, status: answer.status, data: answer.body.data }).toEqual({ item, status: 200, data: [] });
      }
      expect(await stored()).toEqual(seedRows);
    });

    it('answers 403 naming the claim when the token lacks one the template reads', async () => {
      const answer = await call(app, 'GET', '/orders', undefined, bearer({ sub: 'ada', roles: ['reader'] }));
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual(forbidden('tenant'));
    });

    it('refuses a claim integer past 2^53 (403), which JSON.parse would round to a neighbour, and an empty claim', async () => {
      const huge = bearerOfPayloadText('{"sub":"big","tenant":9007199254740993,"roles":["reader"]}');
      const past = { code: 'nok', message: "the caller's claim 'tenant' is an integer past 2^53, which a JSON number cannot hold exactly: issue it as a string", error: 'FORBIDDEN', field: 'auth.tenant' };
      for (const path of ['/orders', '/orders/3']) {
        const answer = await call(app, 'GET', path, undefined, huge);
        expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 403, body: past });
      }
      const empty = await call(app, 'GET', '/orders', undefined, bearer({ sub: 'ada', tenant: '', roles: ['reader'] }));
      expect([empty.status, empty.body]).toEqual([403, forbidden('tenant')]);
    });

    it('never takes auth.<claim> from the request: the query string changes nothing, and without a token it is 401', async () => {
      const answer = await call(app, 'GET', '/orders?auth.tenant=2', undefined, tenantOne);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual(seedRows.slice(0, 2));
      const missing = await call(app, 'GET', '/orders?auth.tenant=2', undefined, bearer({ sub: 'ada' }));
      expect(missing.status).toBe(403);
      expect(missing.body).toEqual(forbidden('tenant'));
      const anonymous = await call(app, 'GET', '/orders?auth.tenant=2');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ code: 'nok', message: 'this endpoint needs a credential: a bearer token or an API key', error: 'UNAUTHORIZED' });
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="orders-api"');
    });
  });

  describe('scope on the table endpoints', () => {
    it("answers 404 for another tenant's row on readOne, update and delete, [] on read, and leaves it as it was", async () => {
      const readOne = await call(app, 'GET', '/orders/3', undefined, tenantOne);
      expect([readOne.status, readOne.body]).toEqual([404, notFound('readOne')]);
      const read = await call(app, 'GET', '/orders/3/all', undefined, tenantOne);
      expect([read.status, read.body.data]).toEqual([200, []]);
      const update = await call(app, 'PUT', '/orders/3', { item: 'stolen' }, tenantOne);
      expect([update.status, update.body]).toEqual([404, notFound('update')]);
      const removed = await call(app, 'DELETE', '/orders/3', undefined, tenantOne);
      expect([removed.status, removed.body]).toEqual([404, notFound('delete')]);
      expect(await stored()).toEqual(seedRows);
    });

    it("serves the caller's own row on readOne, read, update and delete", async () => {
      const readOne = await call(app, 'GET', '/orders/1', undefined, tenantOne);
      expect([readOne.status, readOne.body.data]).toEqual([200, seedRows[0]]);
      const read = await call(app, 'GET', '/orders/1/all', undefined, tenantOne);
      expect([read.status, read.body.data]).toEqual([200, [seedRows[0]]]);
      const update = await call(app, 'PUT', '/orders/1', { item: 'apricot' }, tenantOne);
      expect([update.status, update.body.data]).toEqual([200, { id: 1, tenant_id: 1, item: 'apricot' }]);
      const removed = await call(app, 'DELETE', '/orders/2', undefined, tenantOne);
      expect([removed.status, removed.body.data]).toEqual([200, { id: '2', affectedRows: 1 }]);
      expect(await stored()).toEqual([{ id: 1, tenant_id: 1, item: 'apricot' }, ...seedRows.slice(2)]);
    });

    it('refuses with 403 a create whose body puts the row in another tenant, and inserts nothing', async () => {
      const answer = await call(app, 'POST', '/orders', { id: 10, tenant_id: 2, item: 'planted' }, tenantOne);
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual(outsideScope);
      expect(await stored()).toEqual(seedRows);
    });

    it('refuses with 403 an update whose body moves the row to another tenant, and leaves it unchanged', async () => {
      const answer = await call(app, 'PUT', '/orders/1', { tenant_id: 2, item: 'moved' }, tenantOne);
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual(outsideScope);
      expect(await stored()).toEqual(seedRows);
    });

    it("accepts a body tenant_id equal to the caller's, and sets it on a create that leaves it out", async () => {
      const same = await call(app, 'POST', '/orders', { id: 10, tenant_id: 1, item: 'fig' }, tenantOne);
      expect([same.status, same.body.data]).toEqual([201, { id: 10, tenant_id: 1, item: 'fig' }]);
      const sameAsText = await call(app, 'PUT', '/orders/1', { tenant_id: '1', item: 'apricot' }, tenantOne);
      expect([sameAsText.status, sameAsText.body.data]).toEqual([200, { id: 1, tenant_id: 1, item: 'apricot' }]);
      const absent = await call(app, 'POST', '/orders', { id: 11, item: 'grape' }, bearer({ sub: 'bea', tenant: 2 }));
      expect([absent.status, absent.body.data]).toEqual([201, { id: 11, tenant_id: 2, item: 'grape' }]);
      expect(await stored()).toEqual([{ id: 1, tenant_id: 1, item: 'apricot' }, ...seedRows.slice(1), { id: 10, tenant_id: 1, item: 'fig' }, { id: 11, tenant_id: 2, item: 'grape' }]);
    });

    it('answers 403 naming the claim when the token lacks the scope claim, and writes nothing', async () => {
      const noTenant = bearer({ sub: 'ada', roles: ['reader'] });
      for (const [method, path, body] of [
        ['GET', '/orders/1', undefined],
        ['GET', '/orders/1/all', undefined],
        ['POST', '/orders', { id: 10, item: 'fig' }],
        ['PUT', '/orders/1', { item: 'apricot' }],
        ['DELETE', '/orders/1', undefined],
      ] as const) {
        const answer = await call(app, method, path, body, noTenant);
        expect({ method, path, status: answer.status, body: answer.body }).toEqual({ method, path, status: 403, body: forbidden('tenant') });
      }
      expect(await stored()).toEqual(seedRows);
    });

    it('binds a scope claim holding SQL as one value, typed by its column: refused, never a 500, and no row is touched', async () => {
      const mallory = bearer({ sub: 'mallory', tenant: '1 OR 1=1' });
      const doesNotFit = { status: 403, body: { code: 'nok', message: "a value of the caller's scope does not fit its column", error: 'FORBIDDEN', columns: ['tenant_id'] } };
      for (const [method, path, body, expected] of [
        ['GET', '/orders/1', undefined, doesNotFit],
        ['GET', '/orders/1/all', undefined, doesNotFit],
        ['POST', '/orders', { id: 10, item: 'fig' }, doesNotFit],
        ['PUT', '/orders/1', { item: 'apricot' }, doesNotFit],
        ['DELETE', '/orders/1', undefined, doesNotFit],
      ] as const) {
        const answer = await call(app, method, path, body, mallory);
        expect({ method, path, status: answer.status, body: answer.body }).toEqual({ method, path, ...expected });
      }
      expect(await stored()).toEqual(seedRows);
    });

    it('never takes the scope from the request: a query parameter or a body key auth.tenant changes nothing', async () => {
      const readOne = await call(app, 'GET', '/orders/3?auth.tenant=2', undefined, tenantOne);
      expect([readOne.status, readOne.body]).toEqual([404, notFound('readOne')]);
      const read = await call(app, 'GET', '/orders/3/all?auth.tenant=2&tenant_id=2', undefined, tenantOne);
      expect([read.status, read.body.data]).toEqual([200, []]);
      const update = await call(app, 'PUT', '/orders/3?auth.tenant=2', { item: 'stolen', 'auth.tenant': 2 }, tenantOne);
      expect([update.status, update.body]).toEqual([400, { code: 'nok', message: `unknown column in ${table}: 1 other`, error: 'UNKNOWN_COLUMN' }]);
      const removed = await call(app, 'DELETE', '/orders/3?auth.tenant=2', undefined, tenantOne);
      expect([removed.status, removed.body]).toEqual([404, notFound('delete')]);
      const anonymous = await call(app, 'GET', '/orders/3?auth.tenant=2');
      expect(anonymous.status).toBe(401);
      expect(await stored()).toEqual(seedRows);
    });

    it("scopes an API key's caller by the key's claims", async () => {
      const headers = { 'x-api-key': apiKey };
      const list = await call(app, 'GET', '/orders', undefined, headers);
      expect([list.status, list.body.data]).toEqual([200, seedRows.slice(2)]);
      const own = await call(app, 'GET', '/orders/3', undefined, headers);
      expect([own.status, own.body.data]).toEqual([200, seedRows[2]]);
      const other = await call(app, 'GET', '/orders/1', undefined, headers);
      expect([other.status, other.body]).toEqual([404, notFound('readOne')]);
      const planted = await call(app, 'POST', '/orders', { id: 10, tenant_id: 1, item: 'planted' }, headers);
      expect([planted.status, planted.body]).toEqual([403, outsideScope]);
      const wrongKey = await call(app, 'GET', '/orders', undefined, { 'x-api-key': `${apiKey}x` });
      expect([wrongKey.status, wrongKey.body]).toEqual([401, { code: 'nok', message: 'invalid API key', error: 'UNAUTHORIZED' }]);
      expect(await stored()).toEqual(seedRows);
    });
  });

  describe('public and roles', () => {
    it('answers 403 to a caller without one of the roles, and 200 to one with it', async () => {
      const reader = await call(app, 'GET', '/writers', undefined, tenantOne);
      expect(reader.status).toBe(403);
      expect(reader.body).toEqual({ code: 'nok', message: 'the caller has none of the roles this endpoint needs', error: 'FORBIDDEN' });
      const writer = await call(app, 'GET', '/writers', undefined, bearer({ sub: 'ada', tenant: 1, roles: ['reader', 'writer'] }));
      expect([writer.status, writer.body.data]).toEqual([200, [{ id: 1 }, { id: 2 }]]);
    });

    it('serves a public endpoint without a credential, but checks one that is sent', async () => {
      const open = await call(app, 'GET', '/status');
      expect([open.status, open.body.data]).toEqual([200, [{ up: 1 }]]);
      const forged = await call(app, 'GET', '/status', undefined, bearer({ sub: 'ada', tenant: 1 }, signElsewhere));
      expect(forged.status).toBe(401);
      expect(forged.body).toEqual({ code: 'nok', message: 'invalid token: the token signature is not valid', error: 'UNAUTHORIZED' });
      expect(forged.headers.get('www-authenticate')).toBe('Bearer realm="orders-api", error="invalid_token"');
    });
  });

  describe('server.lib handlers', () => {
    it("give the handler req.auth with the token's subject, roles and claims", async () => {
      const claims = { sub: 'ada', tenant: 1, roles: ['reader', 'writer'] };
      const answer = await call(app, 'GET', '/whoami', undefined, bearer(claims));
      expect([answer.status, answer.body.data]).toEqual([200, { subject: 'ada', roles: ['reader', 'writer'], claims, via: 'jwt' }]);
      const viaKey = await call(app, 'GET', '/whoami', undefined, { 'x-api-key': apiKey });
      expect(viaKey.body.data).toEqual({ subject: 'tenant-two-export', roles: [], claims: { sub: 'tenant-two-export', tenant: 2 }, via: 'apiKey' });
    });

    it('answer 401 without a credential, unless public: then req.auth is null', async () => {
      const closed = await call(app, 'GET', '/whoami');
      expect(closed.status).toBe(401);
      expect(closed.body.error).toBe('UNAUTHORIZED');
      const open = await call(app, 'GET', '/whoami/public');
      expect([open.status, open.body]).toEqual([200, { code: 'ok', message: 'who', data: null }]);
      const identified = await call(app, 'GET', '/whoami/public', undefined, bearer({ sub: 'bea' }));
      expect(identified.body.data).toEqual({ subject: 'bea', roles: [], claims: { sub: 'bea' }, via: 'jwt' });
    });
  });

  describe('profile rules', () => {
    const endpoint = (extra: Record<string, unknown>): Record<string, unknown> => ({ path: '/orders', resource: 'db', ...extra });
    const problems = (server: Record<string, unknown>): string => {
      try {
        createApp({ resources: { db: resourceConfig(kind) }, server });
      } catch (error) {
        expect((error as { code?: string }).code).toBe('CONFIG_INVALID');
        return (error as Error).message;
      }
      throw new Error('createApp accepted the profile');
    };
    const listSql = `SELECT id FROM ${orders} WHERE tenant_id = {{auth.tenant}}`;

    const needsAuth = (what: string): string => `${what} needs server.auth (who the caller is comes from a verified credential)`;
    const sqlScope = 'scope applies to table endpoints: in an sql template, write the condition with {{auth.<claim>}}';

    it.each([
      ['roles without server.auth', {}, { endpoint: 'list', sql: 'SELECT 1 AS up', roles: ['writer'] }, [needsAuth('roles')]],
      ['{{auth.tenant}} without server.auth', {}, { endpoint: 'list', sql: listSql }, [needsAuth('{{auth.tenant}}')]],
      ['scope without server.auth', {}, { endpoint: 'readOne', path: '/orders/:id', table, id_field: 'id', scope }, [needsAuth('scope.tenant_id')]],
      ['public with roles', { auth }, { endpoint: 'list', sql: 'SELECT 1 AS up', public: true, roles: ['writer'] }, ['a public endpoint takes no roles: remove public: true or roles']],
      ['scope on a list', { auth }, { endpoint: 'list', sql: listSql, scope }, [sqlScope]],
      ['scope on a readOne with sql', { auth }, { endpoint: 'readOne', path: '/orders/:id', sql: `SELECT id FROM ${orders} WHERE id = {{id}}`, scope }, [sqlScope]],
      ['a scope value that is not an auth variable', { auth }, { endpoint: 'delete', path: '/orders/:id', table, id_field: 'id', scope: { tenant_id: '{{tenant}}' } }, ['scope.tenant_id must be a value or exactly {{auth.<claim>}}']],
      ['scope on the id_field', { auth }, { endpoint: 'update', path: '/orders/:id', table, id_field: 'id', scope: { id: '{{auth.order}}' } }, ["scope cannot restrict the id_field 'id' itself"]],
      ['an endpoint key auth.tenant', { auth }, { endpoint: 'list', sql: listSql, 'auth.tenant': 3 }, ["'auth.tenant' cannot be set: {{auth.<claim>}} comes only from the caller's verified claims"]],
      ['a public endpoint reading {{auth.tenant}}', { auth }, { endpoint: 'list', sql: listSql, public: true }, ["{{auth.tenant}} needs the caller's claims: a public endpoint cannot use it (remove public: true)"]],
      ['a public endpoint with a scope', { auth }, { endpoint: 'readOne', path: '/orders/:id', table, id_field: 'id', scope, public: true }, ["scope.tenant_id needs the caller's claims: a public endpoint cannot use it (remove public: true)"]],
    ])('refuses %s, naming the endpoint', (_name, server, entry, messages) => {
      const route = (entry as { path?: string }).path ?? '/orders';
      const lines = messages.map((message) => `\n- server.endpoints[0] (${route}): ${message}`).join('');
      expect(problems({ ...server, endpoints: [endpoint(entry)] })).toBe(`profile has ${messages.length} problem${messages.length === 1 ? '' : 's'}:${lines}`);
    });
  });

  describe('warnings for open write endpoints', () => {
    const writeEndpoints = [
      { path: '/orders', endpoint: 'list', resource: 'db', sql: `SELECT id FROM ${orders} ORDER BY id` },
      { path: '/orders/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
      { path: '/orders', endpoint: 'create', resource: 'db', table, id_field: 'id' },
      { path: '/orders/:id', endpoint: 'update', resource: 'db', table, id_field: 'id' },
      { path: '/orders/:id', endpoint: 'delete', resource: 'db', table, id_field: 'id' },
      { path: '/orders/search', endpoint: 'list', method: 'POST', resource: 'db', sql: `SELECT id FROM ${orders} ORDER BY id` },
      // A write kind answering GET changes data all the same.
      { path: '/orders/:id/remove', endpoint: 'delete', method: 'GET', resource: 'db', table, id_field: 'id' },
    ];
    const expected = [
      'endpoint POST /orders (create) is open to anyone who reaches the port: set server.auth to require a credential',
      'endpoint PUT /orders/:id (update) is open to anyone who reaches the port: set server.auth to require a credential',
      'endpoint DELETE /orders/:id (delete) is open to anyone who reaches the port: set server.auth to require a credential',
      'endpoint POST /orders/search (list) is open to anyone who reaches the port: set server.auth to require a credential',
      'endpoint GET /orders/:id/remove (delete) is open to anyone who reaches the port: set server.auth to require a credential',
    ];

    it('lists each endpoint that can change data (a write kind, or a method other than GET) when server.auth is absent, and none once it is set', () => {
      const open = createApp({ resources: { db: resourceConfig(kind) }, server: { endpoints: writeEndpoints } });
      expect(open.warnings).toEqual(expected);
      const reading = createApp({ resources: { db: resourceConfig(kind) }, server: { endpoints: writeEndpoints.slice(0, 2) } });
      expect(reading.warnings).toEqual([]);
      const guarded = createApp({ resources: { db: resourceConfig(kind) }, server: { auth, endpoints: writeEndpoints } });
      expect(guarded.warnings).toEqual([]);
    });

    it('are printed by check on stderr, with exit code 0', async () => {
      const profile = join(workDir, `open-${kind}.yml`);
      writeFileSync(profile, stringify({ resources: { db: resourceConfig(kind) }, server: { endpoints: writeEndpoints } }));
      const result = await runCli(['check', profile]);
      expect(result.stderr.split('\n').filter(Boolean)).toEqual(expected.map((warning) => `warning: ${warning}`));
      expect(result.stdout).toContain(`${profile}: ok`);
      expect(result.code).toBe(0);
    });
  });
});
