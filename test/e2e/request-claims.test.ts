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
const tenantOf = "(nullif(current_setting('request.jwt.claims', true), '')::json->>'tenant')::int";
const rls: RowLevelSecurity = { table, login, reader, columns: 'tenant_id INT NOT NULL, item TEXT NOT NULL', policy: `tenant_id = ${tenantOf}` };

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
    app = createApp({
      resources: { db: resourceConfig('postgres', { user: login }, { requestClaims: true, roleClaim: 'db_role', streamBatchSize: 2 }) },
      server: {
        auth: { jwt: { secret, algorithms: ['HS256'] } },
        lib: join(workDir, 'handlers.js'),
        endpoints: [
          { path: '/items', endpoint: 'list', resource: 'db', sql: `SELECT id, tenant_id, item FROM "${table}" ORDER BY id` },
          { path: '/items/public', endpoint: 'list', resource: 'db', public: true, sql: `SELECT id FROM "${table}"` },
          { path: '/items/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
          { path: '/items', endpoint: 'create', resource: 'db', table, id_field: 'id' },
          { path: '/items/:id', endpoint: 'update', resource: 'db', table, id_field: 'id' },
          { path: '/items/:id', endpoint: 'delete', resource: 'db', table, id_field: 'id' },
          { path: '/session', handler: 'session' },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app?.stop();
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
    // No credential, no claims: the login role alone has no privilege on the table.
    const anonymous = await call(app, 'GET', '/items/public');
    expect({ status: anonymous.status, error: anonymous.body.error }).toEqual({ status: 403, error: 'FORBIDDEN' });
  });
});
