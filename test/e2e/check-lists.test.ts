import { checkApp } from '../../src';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

describe.each(kinds)('%s check: lists', (kind: Kind) => {
  const table = uniqueName('sr_check_list');

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id ${types[kind].serial}, status VARCHAR(10) NOT NULL, price INT NOT NULL)`);
  });

  afterAll(async () => {
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  const check = async (endpoint: Record<string, unknown>): Promise<{ problems: string[]; warnings: string[] }> => {
    const warnings: string[] = [];
    const source = { resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) }, server: { endpoints: [{ path: '/rows', endpoint: 'list', resource: 'db', ...endpoint }] } };
    const problems = await checkApp(source, (warning) => warnings.push(warning));
    return { problems, warnings };
  };

  it('is silent when the table has every column a table list names', async () => {
    expect(await check({ table, filters: ['status', 'price'], sort: ['price'], select: ['id', 'status'], page: true, count: 'exact' })).toEqual({ problems: [], warnings: [] });
  });

  it('reports each column of filters, sort and select the table lacks', async () => {
    const { problems } = await check({ table, filters: ['status', 'stauts'], sort: ['cost'], select: ['id', 'secret'] });
    expect(problems).toEqual([
      `GET /rows: table '${table}' has no column 'stauts' (filters)`,
      `GET /rows: table '${table}' has no column 'cost' (sort)`,
      `GET /rows: table '${table}' has no column 'secret' (select)`,
    ]);
  });

  it('prepares a paged sql list in the form its pages run', async () => {
    expect((await check({ sql: `SELECT id FROM ${table} ORDER BY price DESC`, page: { defaultLimit: 10 } })).problems).toEqual([]);
  });

  // MySQL pages a template by giving it a LIMIT of its own (so its ORDER BY survives): one already there cannot be paged.
  it(`${kind === 'mysql' ? 'reports' : 'accepts'} a paged sql list whose template has a LIMIT of its own`, async () => {
    const { problems } = await check({ sql: `SELECT id FROM ${table} ORDER BY id LIMIT 5`, page: true });
    if (kind === 'mysql') {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^GET \/rows: sql, paged \(page:\): .*; a paged template has no LIMIT of its own$/);
    } else {
      expect(problems).toEqual([]);
    }
  });
});
