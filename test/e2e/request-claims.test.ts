import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { createRowLevelSecurity, dropRowLevelSecurity, type RowLevelSecurity } from '../support/row-level-security';
import { rawQuery, resourceConfig, uniqueName } from '../support/servers';

/**
 * `requestClaims` over HTTP (SPEC §7): the host runs each authenticated request's endpoint, and
 * application handlers, with the verified claims, so a real row-level security policy keeps
 * each caller to its tenant's rows. The resource connects as a NOINHERIT login role without
 * privileges on the table (superusers bypass RLS); `roleClaim` switches to one that has them.
 */
const secret = 'request-claims-test-secret-of-32-bytes!';
const sign = createSigner({ key: secret, algorithm: 'HS256', noTimestamp: true });
const table = uniqueName('rls_http');
const login = uniqueName('sr_rls_http_login');
const reader = uniqueName('sr_rls_http_reader');
/** Granted to no role: any statement on it is refused (42501). */
const hidden = uniqueName('rls_http_hidden');
const tenantOf = "(nullif(current_setting('request.jwt.claims', true), '')::json->>'tenant')::int";
const rls: RowLevelSecurity = { table, login, reader, columns: 'tenant_id INT NOT NULL, item TEXT NOT NULL', policy: `tenant_id = ${tenantOf}` };

/** An HS256 token over `payload` as it is written: digits JSON.stringify could not keep. */
function rawToken(payload: string): string {
  const part = (text: string): string => Buffer.from(text).toString('base64url');
  const unsigned = `${part('{"alg":"HS256","typ":"JWT"}')}.${part(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

const keyOf = (holder: string): string => `request-claims-key-of-${holder}-0123456789`;
const apiKey = (holder: string, claims: Record<string, unknown>): Record<string, unknown> => ({
  name: holder,
  sha256: createHash('sha256').update(keyOf(holder)).digest('hex'),
  claims,
});

const handlerLib = `'use strict';
// server.lib: what a handler's own statement sees of the request's claims.
exports.session = () => async () => {
  const [row] = await $app.resources.get('db').query("SELECT current_setting('request.jwt.claims', true)::json->>'sub' AS sub, current_user AS role");
  return { code: 'ok', message: 'session', data: row };
};
`;

describe('postgres: an authenticated request runs under the row-level security of its claims', () => {
  let workDir: string;
  let app: App;
  const bearer = (tenant: number, extra: Record<string, unknown> = {}): Record<string, string> => ({
    authorization: `Bearer ${sign({ sub: `user-${tenant}`, tenant, db_role: reader, ...extra })}`,
  });

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'sr-request-claims-'));
    writeFileSync(join(workDir, 'handlers.js'), handlerLib);
    await createRowLevelSecurity(rls);
    await rawQuery('postgres', `INSERT INTO "${table}" (tenant_id, item) SELECT 2 - n % 2, 'item-' || n FROM generate_series(1, 12) AS n`);
    await rawQuery('postgres', `CREATE TABLE "${hidden}" (id SERIAL PRIMARY KEY, item TEXT NOT NULL)`);
    app = createApp({
      resources: {
        db: resourceConfig('postgres', { user: login }, { requestClaims: true, roleClaim: 'db_role', streamBatchSize: 2 }),
        // The same login role without requestClaims.
        plain: resourceConfig('postgres', { user: login }),
      },
      server: {
        auth: {
          jwt: { secret, algorithms: ['HS256'] },
          apiKeys: [apiKey('with-role', { tenant: 2, db_role: reader }), apiKey('without-role', { tenant: 2 })],
        },
        lib: join(workDir, 'handlers.js'),
        endpoints: [
          { path: '/items', endpoint: 'list', resource: 'db', sql: `SELECT id, tenant_id, item FROM "${table}" ORDER BY id` },
          { path: '/items/public', endpoint: 'list', resource: 'db', public: true, sql: `SELECT id FROM "${table}"` },
          { path: '/items/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
          { path: '/items', endpoint: 'create', resource: 'db', table, id_field: 'id' },
          { path: '/items/:id', endpoint: 'update', resource: 'db', table, id_field: 'id' },
          { path: '/items/:id', endpoint: 'delete', resource: 'db', table, id_field: 'id' },
          { path: '/session', handler: 'session' },
          { path: '/hidden', endpoint: 'list', resource: 'db', sql: `SELECT id FROM "${hidden}"` },
          { path: '/plain/items', endpoint: 'list', resource: 'plain', sql: `SELECT id FROM "${table}"` },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app?.stop();
    await rawQuery('postgres', `DROP TABLE IF EXISTS "${hidden}"`);
    await dropRowLevelSecurity(rls);
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("lists only the caller's tenant's rows, streamed past the first batches", async () => {
    const one = await call(app, 'GET', '/items', undefined, bearer(1));
    expect(one.status).toBe(200);
    expect((one.body.data as { tenant_id: number }[]).map((row) => row.tenant_id)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(one.body.total).toBe(6);
    const two = await call(app, 'GET', '/items', undefined, bearer(2));
    expect((two.body.data as { item: string }[]).map((row) => row.item)).toEqual(['item-2', 'item-4', 'item-6', 'item-8', 'item-10', 'item-12']);
  });

  it("reads, updates and deletes only the caller's rows; another tenant's are not found", async () => {
    const [mine, theirs] = await rawQuery('postgres', `SELECT id FROM "${table}" WHERE item IN ('item-1', 'item-2') ORDER BY id`);
    expect((await call(app, 'GET', `/items/${String(theirs.id)}`, undefined, bearer(1))).status).toBe(404);
    expect((await call(app, 'GET', `/items/${String(mine.id)}`, undefined, bearer(1))).body.data).toMatchObject({ tenant_id: 1, item: 'item-1' });
    expect((await call(app, 'PUT', `/items/${String(theirs.id)}`, { item: 'taken' }, bearer(1))).status).toBe(404);
    expect((await call(app, 'DELETE', `/items/${String(theirs.id)}`, undefined, bearer(1))).status).toBe(404);
    expect((await call(app, 'PUT', `/items/${String(mine.id)}`, { item: 'item-1b' }, bearer(1))).body.data).toMatchObject({ item: 'item-1b' });
    expect(await rawQuery('postgres', `SELECT item FROM "${table}" WHERE id IN ($1, $2) ORDER BY id`, [mine.id, theirs.id])).toEqual([{ item: 'item-1b' }, { item: 'item-2' }]);
  });

  it("creates rows in the caller's tenant only: another tenant's row is 403", async () => {
    const created = await call(app, 'POST', '/items', { tenant_id: 1, item: 'new' }, bearer(1));
    expect(created.status).toBe(201);
    const smuggled = await call(app, 'POST', '/items', { tenant_id: 2, item: 'smuggled' }, bearer(1));
    expect({ status: smuggled.status, error: smuggled.body.error }).toEqual({ status: 403, error: 'FORBIDDEN' });
    expect(await rawQuery('postgres', `SELECT count(*)::int AS n FROM "${table}" WHERE item = 'smuggled'`)).toEqual([{ n: 0 }]);
  });

  it('gives application handlers the same session, and public requests none', async () => {
    const session = await call(app, 'GET', '/session', undefined, bearer(2));
    expect(session.body.data).toEqual({ sub: 'user-2', role: reader });
    // No credential, no claims: the login role alone has no privilege on the table, a grant the server lacks.
    const anonymous = await call(app, 'GET', '/items/public');
    expect({ status: anonymous.status, error: anonymous.body.error }).toEqual({ status: 500, error: 'DB_ERROR' });
  });

  it('fails closed without a role claim: a token or an API key without it, or naming none or default, is 403', async () => {
    const absent = { code: 'nok', message: "the caller's credential has no role claim 'db_role', which this resource needs (roleClaim)", error: 'FORBIDDEN' };
    const reset = { code: 'nok', message: "the role claim 'db_role' may not reset the role to the connection user's (none, default)", error: 'FORBIDDEN' };
    const answers = await Promise.all([
      call(app, 'GET', '/items', undefined, { authorization: `Bearer ${sign({ sub: 'user-1', tenant: 1 })}` }),
      call(app, 'GET', '/items', undefined, { 'x-api-key': keyOf('without-role') }),
      call(app, 'GET', '/session', undefined, { 'x-api-key': keyOf('without-role') }),
      call(app, 'GET', '/items', undefined, bearer(1, { db_role: 'none' })),
      call(app, 'GET', '/items', undefined, bearer(1, { db_role: 'Default' })),
    ]);
    expect(answers.map(({ status, body }) => ({ status, body }))).toEqual([
      { status: 403, body: absent },
      { status: 403, body: absent },
      { status: 403, body: absent },
      { status: 403, body: reset },
      { status: 403, body: reset },
    ]);
    // An API key whose claims carry the role runs as it.
    const withRole = await call(app, 'GET', '/items', undefined, { 'x-api-key': keyOf('with-role') });
    expect({ status: withRole.status, tenants: [...new Set((withRole.body.data as { tenant_id: number }[]).map((row) => row.tenant_id))] }).toEqual({ status: 200, tenants: [2] });
  });

  it('refuses a token whose claims hold an integer past 2^53 (403): JSON.parse rounds it to another id', async () => {
    const token = rawToken(`{"sub":"user-1","tenant":1,"org":9007199254740993,"db_role":"${reader}"}`);
    const answer = await call(app, 'GET', '/items', undefined, { authorization: `Bearer ${token}` });
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 403,
      body: { code: 'nok', message: "the caller's claim 'org' is an integer past 2^53, which a JSON number cannot hold exactly: issue it as a string", error: 'FORBIDDEN' },
    });
    const asString = rawToken(`{"sub":"user-1","tenant":1,"org":"9007199254740993","db_role":"${reader}"}`);
    expect((await call(app, 'GET', '/items', undefined, { authorization: `Bearer ${asString}` })).status).toBe(200);
  });

  it('answers a missing privilege with 403 under the claims of a request, and with 500 on a resource without requestClaims', async () => {
    const denied = await call(app, 'GET', '/hidden', undefined, bearer(1));
    expect({ status: denied.status, body: denied.body }).toEqual({
      status: 403,
      body: { code: 'nok', message: 'running the statement under the claims of the request failed: the caller may not do this (role, claim or row-level policy) (42501)', error: 'FORBIDDEN' },
    });
    const misconfigured = await call(app, 'GET', '/plain/items', undefined, bearer(1));
    expect({ status: misconfigured.status, error: misconfigured.body.error }).toEqual({ status: 500, error: 'DB_ERROR' });
    expect(misconfigured.text).not.toContain('permission denied');
  });
});
