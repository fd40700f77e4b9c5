import { stringify } from 'yaml';
import { checkApp } from '../../src';
import { runCli } from '../support/cli';
import { profileFiles } from '../support/profile-files';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

interface CheckOutcome {
  problems: string[];
  warnings: string[];
  reports: string[];
}

/** `checkApp` on one resource `db` of `kind` serving `endpoints`, with what each sink heard. */
async function check(kind: Kind, endpoints: Record<string, unknown>[]): Promise<CheckOutcome> {
  const warnings: string[] = [];
  const reports: string[] = [];
  const profile = { resources: { db: resourceConfig(kind) }, server: { endpoints: endpoints.map((endpoint) => ({ resource: 'db', ...endpoint })) } };
  const problems = await checkApp(profile, (warning) => warnings.push(warning), (line) => reports.push(line));
  return { problems, warnings, reports };
}

/** The type names each server gives the fixture's columns. */
const typeNames: Record<Kind, { int: string; varchar: string; decimal: string; text: string }> = {
  mysql: { int: 'int', varchar: 'varchar', decimal: 'decimal', text: 'text' },
  postgres: { int: 'integer', varchar: 'character varying', decimal: 'numeric', text: 'text' },
};

/** The error the test's MariaDB gives a statement that does not parse, from `near` on. */
const mariadbSyntaxError = (near: string): string =>
  `You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '${near}' at line 1 (ER_PARSE_ERROR)`;

const identifierHint = (placeholder: string): string => `; ${placeholder} stands where the database expects a name or a keyword: placeholders bind values, not identifiers`;

const commentWarning = (where: string, placeholder: string): string =>
  `${where}: ${placeholder} is not substituted: it stands in a comment (or other text the template copies as written); ` +
  'placeholders bind values only in the SQL text and in string literals';

describe.each(kinds)('%s check: every sql endpoint is prepared on its server, never run', (kind: Kind) => {
  const table = uniqueName('sr_check_sql');
  const missing = uniqueName('sr_check_missing');
  const types = typeNames[kind];
  const rowsOf = async (): Promise<Record<string, unknown>[]> => rawQuery(kind, `SELECT id, name FROM ${q(kind, table)} ORDER BY id`);
  const fixtureRows = [
    { id: 1, name: 'ada' },
    { id: 2, name: 'grace' },
    { id: 3, name: 'edsger' },
  ];

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id INT PRIMARY KEY, name VARCHAR(50), price DECIMAL(10,2), note TEXT)`);
    await rawQuery(kind, `INSERT INTO ${q(kind, table)} (id, name) VALUES (1, 'ada'), (2, 'grace'), (3, 'edsger')`);
  });

  afterAll(async () => {
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  it('reports the result columns of list, read and readOne sql, and runs none of it (a DELETE leaves every row)', async () => {
    const outcome = await check(kind, [
      { path: '/products', endpoint: 'list', sql: `SELECT id, name, price, note FROM ${table} WHERE id > {{min}} ORDER BY id LIMIT {{n}}` },
      { path: '/products/:id', endpoint: 'readOne', sql: `SELECT name FROM ${table} WHERE id = {{id}}` },
      { path: '/named/:name', endpoint: 'read', sql: `SELECT id, name FROM ${table} WHERE name LIKE '%{{name}}%'` },
      { path: '/purge', endpoint: 'list', sql: `DELETE FROM ${table}` },
      { path: '/rows/:id', endpoint: 'read', table, id_field: 'id' },
    ]);
    expect(outcome).toEqual({
      problems: [],
      warnings: [],
      reports: [
        `GET /products: columns id ${types.int}, name ${types.varchar}, price ${types.decimal}, note ${types.text}`,
        `GET /products/:id: columns name ${types.varchar}`,
        `GET /named/:name: columns id ${types.int}, name ${types.varchar}`,
        'GET /purge: no result columns',
      ],
    });
    expect(await rowsOf()).toEqual(fixtureRows);
  });

  it('reports a missing table with the database message, naming the endpoint', async () => {
    const outcome = await check(kind, [{ path: '/gone', endpoint: 'list', sql: `SELECT id FROM ${missing}` }]);
    const message = kind === 'mysql' ? `Table 'test.${missing}' doesn't exist (ER_NO_SUCH_TABLE)` : `relation "${missing}" does not exist (42P01)`;
    expect(outcome).toEqual({ problems: [`GET /gone: sql: describe failed: ${message}`], warnings: [], reports: [] });
  });

  it('reports a missing column, and still reports the endpoints that prepare', async () => {
    const outcome = await check(kind, [
      { path: '/colours', endpoint: 'list', sql: `SELECT id, colour FROM ${table} WHERE id = {{id}}` },
      { path: '/names', endpoint: 'list', sql: `SELECT name FROM ${table}` },
    ]);
    const message = kind === 'mysql' ? "Unknown column 'colour' in 'SELECT' (ER_BAD_FIELD_ERROR)" : 'column "colour" does not exist (42703)';
    expect(outcome).toEqual({ problems: [`GET /colours: sql: describe failed: ${message}`], warnings: [], reports: [`GET /names: columns name ${types.varchar}`] });
  });

  it('reports a syntax error, without the identifier hint when no placeholder is at fault', async () => {
    const outcome = await check(kind, [{ path: '/typo', endpoint: 'list', sql: `SELEC id FROM ${table} WHERE id = {{id}}` }]);
    const message = kind === 'mysql' ? mariadbSyntaxError(`SELEC id FROM ${table} WHERE id = ?`) : 'syntax error at or near "SELEC" (42601)';
    expect(outcome).toEqual({ problems: [`GET /typo: sql: describe failed: ${message}`], warnings: [], reports: [] });
  });

  it('reports a placeholder written where a name belongs, naming it: placeholders bind values, not identifiers', async () => {
    const outcome = await check(kind, [
      { path: '/by-table', endpoint: 'list', table, sql: 'SELECT * FROM {{table}}' },
      { path: '/sorted', endpoint: 'list', sql: `SELECT id FROM ${table} WHERE id > {{min}} ORDER BY {{column}} {{direction}}` },
      // MySQL marks every parameter `?`: with one in a literal too, the rank of the one at fault does not name it.
      { path: '/marked', endpoint: 'list', sql: "SELECT '?' AS mark, {{v}} AS v FROM {{source}}" },
    ]);
    const near = (marker: string): string => (kind === 'mysql' ? mariadbSyntaxError('?') : `syntax error at or near "${marker}" (42601)`);
    expect(outcome).toEqual({
      problems: [
        `GET /by-table: sql: describe failed: ${near('$1')}${identifierHint('{{table}}')}`,
        `GET /sorted: sql: describe failed: ${near('$3')}${identifierHint('{{direction}}')}`,
        `GET /marked: sql: describe failed: ${near('$2')}${identifierHint(kind === 'mysql' ? 'a placeholder' : '{{source}}')}`,
      ],
      warnings: [],
      reports: [],
    });
  });

  it('passes a {{name}} inside a comment, which is copied and not substituted, with a warning', async () => {
    const outcome = await check(kind, [
      { path: '/commented', endpoint: 'list', sql: `SELECT id /* {{label}} */ FROM ${table} WHERE id > {{min}} -- {{owner}}` },
    ]);
    expect(outcome).toEqual({
      problems: [],
      warnings: [commentWarning('GET /commented', '{{label}}'), commentWarning('GET /commented', '{{owner}}')],
      reports: [`GET /commented: columns id ${types.int}`],
    });
  });
});

describe('sql-resources check prints the sql endpoints it prepared', () => {
  const files = profileFiles('sr-check-sql-');
  const table = uniqueName('sr_check_cli');

  beforeAll(async () => {
    await rawQuery('postgres', `CREATE TABLE ${table} (id INT PRIMARY KEY, name TEXT)`);
    await rawQuery('postgres', `INSERT INTO ${table} (id, name) VALUES (1, 'ada')`);
  });

  afterAll(async () => {
    await rawQuery('postgres', `DROP TABLE IF EXISTS ${table}`);
  });

  it('prints one columns line per sql endpoint, the warnings and the problems, and exits 1 on a problem', async () => {
    const profile = files.write(
      stringify({
        resources: { db: resourceConfig('postgres') },
        server: {
          endpoints: [
            { path: '/people', endpoint: 'list', resource: 'db', sql: `SELECT id, name FROM ${table} -- {{owner}}` },
            { path: '/purge', endpoint: 'list', resource: 'db', sql: `DELETE FROM ${table}` },
            { path: '/typo', endpoint: 'list', resource: 'db', sql: `SELECT nam FROM ${table}` },
          ],
        },
      }),
    );
    const result = await runCli(['check', profile]);
    expect(result.stdout).toBe('GET /people: columns id integer, name text\nGET /purge: no result columns\n');
    expect(result.stderr).toBe(
      `warning: ${commentWarning('GET /people', '{{owner}}')}\n${profile} has 1 problem:\n- GET /typo: sql: describe failed: column "nam" does not exist (42703)\n`,
    );
    expect(result.code).toBe(1);
    expect(await rawQuery('postgres', `SELECT id, name FROM ${table}`)).toEqual([{ id: 1, name: 'ada' }]);
  });
});
