import { checkApp } from '../../src';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

const routes: Record<string, string> = { read: 'GET /rows/:id', readOne: 'GET /rows/:id', create: 'POST /rows/:id', update: 'PUT /rows/:id', delete: 'DELETE /rows/:id' };

describe.each(kinds)('%s check: the columns of a scope', (kind: Kind) => {
  const table = uniqueName('sr_check_scope');

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id ${types[kind].serial}, owner_id VARCHAR(40), tenant VARCHAR(10))`);
  });

  afterAll(async () => {
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  const profile = (scope: Record<string, unknown>, endpoint = 'update', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
    // scope needs server.auth; with it, no endpoint is open, so nothing else warns.
    server: { auth: { jwt: { secret: 'check-scope-secret-of-at-least-32-bytes' } }, endpoints: [{ path: '/rows/:id', endpoint, resource: 'db', table, id_field: 'id', scope, ...extra }] },
  });

  const check = async (source: Record<string, unknown>): Promise<{ problems: string[]; warnings: string[] }> => {
    const warnings: string[] = [];
    const problems = await checkApp(source, (warning) => warnings.push(warning));
    return { problems, warnings };
  };

  it.each(Object.keys(routes))('is silent when the %s table has every scope column', async (endpoint) => {
    expect(await check(profile({ owner_id: '{{auth.sub}}', tenant: 'acme' }, endpoint))).toEqual({ problems: [], warnings: [] });
  });

  it.each(Object.keys(routes))('reports a misspelt scope column of a %s endpoint', async (endpoint) => {
    const { problems, warnings } = await check(profile({ ownr_id: '{{auth.sub}}' }, endpoint));
    expect(problems).toEqual([`${routes[endpoint]}: table '${table}' has no column 'ownr_id' (scope)`]);
    expect(warnings).toEqual([]);
  });

  it('reports each missing scope column, beside a missing id_field, and not the ones that are there', async () => {
    const { problems } = await check(profile({ owner_id: '{{auth.sub}}', tenant_: 'acme', group: '{{auth.group}}' }, 'delete', { id_field: 'uuid' }));
    expect(problems).toEqual([
      `DELETE /rows/:id: table '${table}' has no column 'uuid' (id_field)`,
      `DELETE /rows/:id: table '${table}' has no column 'tenant_' (scope)`,
      `DELETE /rows/:id: table '${table}' has no column 'group' (scope)`,
    ]);
  });

  it('reports no scope column when the table itself is missing, only the table', async () => {
    const source = profile({ ownr_id: '{{auth.sub}}' });
    const endpoints = (source.server as { endpoints: Record<string, unknown>[] }).endpoints;
    endpoints[0] = { ...endpoints[0], table: 'sr_no_such_table' };
    expect((await check(source)).problems).toEqual(["PUT /rows/:id: table 'sr_no_such_table' does not exist in resource 'db'"]);
  });

  if (kind === 'mysql') {
    it('matches a scope column without regard to case, as MySQL does', async () => {
      expect(await check(profile({ OWNER_ID: '{{auth.sub}}', Tenant: 'acme' }))).toEqual({ problems: [], warnings: [] });
    });
  } else {
    it('reports a scope column whose case differs, as PostgreSQL compares quoted names exactly', async () => {
      const { problems } = await check(profile({ OWNER_ID: '{{auth.sub}}', Tenant: 'acme' }));
      expect(problems).toEqual([`PUT /rows/:id: table '${table}' has no column 'OWNER_ID' (scope)`, `PUT /rows/:id: table '${table}' has no column 'Tenant' (scope)`]);
    });
  }
});
