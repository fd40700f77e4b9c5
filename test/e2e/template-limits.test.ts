import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

const refusal = (variable: string): string => `template variable '${variable}' must be a non-negative integer (LIMIT/OFFSET)`;

/** Values a LIMIT/OFFSET slot refuses: as written in the URL, and as the server decodes them. */
const refused: readonly (readonly [encoded: string, decoded: string])[] = [
  ['-1', '-1'],
  ['99999999999999999999999', '99999999999999999999999'],
  ['abc', 'abc'],
  ['2.5', '2.5'],
  ['1e1', '1e1'],
  ['%207', ' 7'],
  ['07', '07'],
  ['9007199254740992', '9007199254740992'],
  ['', ''],
];

describe.each(kinds)('%s LIMIT/OFFSET template slots over HTTP', (kind: Kind) => {
  const letters = uniqueName('sr_letters');
  let app: App;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, letters)} (id INT PRIMARY KEY, name VARCHAR(10) NOT NULL)`);
    await rawQuery(kind, `INSERT INTO ${q(kind, letters)} (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
    const table = q(kind, letters);
    app = createApp({
      name: `template-limits-${kind}`,
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: {
        endpoints: [
          { path: '/limit', endpoint: 'list', resource: 'db', sql: `SELECT name FROM ${table} ORDER BY id LIMIT {{n}}` },
          // MySQL has no OFFSET without LIMIT; the same text runs on both kinds
          { path: '/offset', endpoint: 'list', resource: 'db', sql: `SELECT name FROM ${table} ORDER BY id LIMIT 100 OFFSET {{n}}` },
          {
            path: '/page',
            endpoint: 'list',
            resource: 'db',
            sql:
              kind === 'mysql'
                ? `SELECT name FROM ${table} ORDER BY id LIMIT {{o}}, {{n}}`
                : `SELECT name FROM ${table} ORDER BY id OFFSET {{o}} ROWS FETCH FIRST {{n}} ROWS ONLY`,
          },
          {
            path: '/fixed',
            endpoint: 'list',
            resource: 'db',
            n: 1,
            sql: `SELECT name FROM ${table} ORDER BY id LIMIT {{n}}`,
          },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, letters)}`);
  });

  const names = (data: unknown): string[] => (data as { name: string }[]).map((row) => row.name);

  describe.each(['/limit', '/offset'])('%s', (path) => {
    it.each(refused)('answers 400 for ?n=%s, naming the variable and the rule, not the value', async (encoded, decoded) => {
      const answer = await call(app, 'GET', `${path}?n=${encoded}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'nok', message: refusal('n') });
      if (decoded !== '') {
        expect(answer.text).not.toContain(decoded);
        expect(answer.text).not.toContain(encoded);
      }
    });
  });

  it('LIMIT binds a count: 2 rows, 0 rows, and every row for the largest safe integer', async () => {
    const two = await call(app, 'GET', '/limit?n=2');
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ code: 'ok', total: 2 });
    expect(names(two.body.data)).toEqual(['a', 'b']);

    const zero = await call(app, 'GET', '/limit?n=0');
    expect(zero.status).toBe(200);
    expect(zero.body).toMatchObject({ code: 'ok', data: [], total: 0 });

    const largest = await call(app, 'GET', `/limit?n=${Number.MAX_SAFE_INTEGER}`);
    expect(largest.status).toBe(200);
    expect(names(largest.body.data)).toEqual(['a', 'b', 'c']);
  });

  it('OFFSET binds a count of rows to skip', async () => {
    expect(names((await call(app, 'GET', '/offset?n=0')).body.data)).toEqual(['a', 'b', 'c']);
    expect(names((await call(app, 'GET', '/offset?n=2')).body.data)).toEqual(['c']);
    const past = await call(app, 'GET', '/offset?n=3');
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ code: 'ok', data: [], total: 0 });
  });

  it(`checks both slots of ${kind === 'mysql' ? 'LIMIT offset, count' : 'OFFSET … ROWS FETCH FIRST … ROWS ONLY'}`, async () => {
    const page = await call(app, 'GET', '/page?o=1&n=1');
    expect(page.status).toBe(200);
    expect(names(page.body.data)).toEqual(['b']);

    const badOffset = await call(app, 'GET', '/page?o=-1&n=1');
    expect(badOffset.status).toBe(400);
    expect(badOffset.body).toMatchObject({ code: 'nok', message: refusal('o') });

    const badCount = await call(app, 'GET', '/page?o=1&n=abc');
    expect(badCount.status).toBe(400);
    expect(badCount.body).toMatchObject({ code: 'nok', message: refusal('n') });
  });

  it('takes a number from the endpoint configuration, which the query string can not override', async () => {
    const answer = await call(app, 'GET', '/fixed?n=-1');
    expect(answer.status).toBe(200);
    expect(names(answer.body.data)).toEqual(['a']);
  });

  it('still answers 400 for a missing or repeated slot variable', async () => {
    const missing = await call(app, 'GET', '/limit');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("template variable 'n' is missing from the request");
    const repeated = await call(app, 'GET', '/limit?n=1&n=2');
    expect(repeated.status).toBe(400);
    expect(repeated.body.message).toContain("'n' is given more than once");
  });
});
