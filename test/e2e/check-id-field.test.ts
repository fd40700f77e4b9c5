import { checkApp } from '../../src';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

describe.each(kinds)('%s check: an id_field that is not unique', (kind: Kind) => {
  const table = uniqueName('sr_check_keys');

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id ${types[kind].serial}, code VARCHAR(10) UNIQUE, grp VARCHAR(10))`);
  });

  afterAll(async () => {
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  const profile = (idField: string, endpoint = 'update'): Record<string, unknown> => ({
    resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
    // With server.auth, so that the only warnings are about the id_field (no open write endpoints).
    server: { auth: { jwt: { secret: 'check-id-field-secret-of-at-least-32-bytes' } }, endpoints: [{ path: '/rows/:id', endpoint, resource: 'db', table, id_field: idField }] },
  });

  it.each(['id', 'code'])('is silent for a unique id_field (%s)', async (idField) => {
    const warnings: string[] = [];
    expect(await checkApp(profile(idField), (warning) => warnings.push(warning))).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it.each(['update', 'delete', 'readOne'])('warns, without failing, for a %s endpoint on a non-unique column', async (endpoint) => {
    const warnings: string[] = [];
    expect(await checkApp(profile('grp', endpoint), (warning) => warnings.push(warning))).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`id_field 'grp' of table '${table}' is not unique`));
    expect(warnings[0]).toMatch(/409/);
  });
});
