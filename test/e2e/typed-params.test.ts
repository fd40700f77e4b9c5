import type { App } from '../../src';
import { startedApps } from '../support/apps';
import { call, type HttpAnswer } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

/**
 * Typed parameters (SPEC §8) over real HTTP, on both kinds: a declared path or query-string
 * parameter is read by strict text rules and checked against its rules before any statement
 * runs (400 INVALID_PARAMETER naming the parameter, where it came from and the rule, never the
 * value); what passes is bound with its type, defaults filled in. Undeclared parameters behave
 * as before.
 */

const goodUuid = '123e4567-e89b-12d3-a456-426614174000';

describe.each(kinds)('%s typed parameters', (kind: Kind) => {
  const apps = startedApps();
  const table = uniqueName('sr_typed');
  const things = q(kind, table);
  let app: App;
  /** Statements the resource ran since the last reset: a refused parameter runs none. */
  let statements = 0;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${things} (id INT PRIMARY KEY, name VARCHAR(50), category VARCHAR(20), day DATE, token CHAR(36), active BOOLEAN, score DOUBLE PRECISION)`);
    await rawQuery(
      kind,
      `INSERT INTO ${things} (id, name, category, day, token, active, score) VALUES
        (1, 'apple', 'fruit', '2026-01-15', '${goodUuid}', TRUE, 1.5),
        (2, 'banana', 'fruit', '2026-02-28', '00000000-0000-0000-0000-000000000002', FALSE, 2.5),
        (3, 'carrot', 'vegetable', '2026-02-28', '00000000-0000-0000-0000-000000000003', TRUE, 0.5),
        (4, 'apricot', 'fruit', '2024-02-29', '00000000-0000-0000-0000-000000000004', FALSE, 4)`,
    );
    app = await apps.start({
      resources: { db: resourceConfig(kind) },
      server: {
        endpoints: [
          { path: '/plus', endpoint: 'list', resource: 'db', sql: 'SELECT {{n}} + 1 AS v', params: { n: { type: 'integer' } } },
          {
            path: '/things',
            endpoint: 'list',
            resource: 'db',
            sql: `SELECT id, name FROM ${things} WHERE category = {{category}} AND id >= {{from}} ORDER BY id LIMIT {{size}}`,
            params: {
              category: { type: 'string', enum: ['fruit', 'vegetable'] },
              from: { type: 'integer', default: 2 },
              size: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
            },
          },
          {
            path: '/things/named',
            endpoint: 'list',
            resource: 'db',
            sql: `SELECT id, name FROM ${things} WHERE name LIKE '{{prefix}}%' ORDER BY id`,
            params: { prefix: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' } },
          },
          { path: '/things/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id', params: { id: { type: 'integer', minimum: 1 } } },
          { path: '/things/:id/all', endpoint: 'read', resource: 'db', table, id_field: 'id', params: { id: { type: 'integer' } } },
          { path: '/things/:id', endpoint: 'update', resource: 'db', table, id_field: 'id', params: { id: { type: 'integer' } } },
          { path: '/things/:id', endpoint: 'delete', resource: 'db', table, id_field: 'id', params: { id: { type: 'integer' } } },
          { path: '/days/:day', endpoint: 'read', resource: 'db', sql: `SELECT id FROM ${things} WHERE day = {{day}} ORDER BY id`, params: { day: { type: 'date' } } },
          { path: '/tokens', endpoint: 'readOne', resource: 'db', sql: `SELECT id FROM ${things} WHERE token = {{token}}`, params: { token: { type: 'uuid' } } },
          { path: '/active', endpoint: 'list', resource: 'db', sql: `SELECT id FROM ${things} WHERE active = {{active}} ORDER BY id`, params: { active: { type: 'boolean' } } },
          { path: '/scores', endpoint: 'list', resource: 'db', sql: `SELECT id FROM ${things} WHERE score > {{above}} ORDER BY id`, params: { above: { type: 'number' } } },
          { path: '/at', endpoint: 'list', resource: 'db', sql: 'SELECT {{at}} AS at', params: { at: { type: 'datetime' } } },
          { path: '/mixed', endpoint: 'list', resource: 'db', sql: 'SELECT {{n}} * 2 AS v, {{label}} AS label', params: { n: { type: 'integer' } } },
        ],
      },
    });
    app.resources.get('db').on('query', () => (statements += 1));
  });

  afterAll(async () => {
    await apps.stopAll();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${things}`);
  });

  const get = (path: string): Promise<HttpAnswer> => call(app, 'GET', path);

  /** `send` is answered 400 INVALID_PARAMETER with exactly this message and field, and runs no statement. */
  async function expectRefused(send: () => Promise<HttpAnswer>, field: string, message: string | RegExp): Promise<void> {
    statements = 0;
    const answer = await send();
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { code: 'nok', message: typeof message === 'string' ? message : expect.stringMatching(message), error: 'INVALID_PARAMETER', field } });
    expect(statements).toBe(0);
  }

  /** A GET of `path` refused as `expectRefused` says. */
  const refused = (path: string, field: string, message: string | RegExp): Promise<void> => expectRefused(() => get(path), field, message);

  describe('integer', () => {
    it('binds a declared integer as a number: {{n}} + 1 is arithmetic on both kinds', async () => {
      const answer = await get('/plus?n=41');
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([{ v: 42 }]);
      expect((await get('/plus?n=-7')).body.data).toEqual([{ v: -6 }]);
    });

    it.each([
      ['1.5', '1.5'],
      ['1e3', '1e3'],
      ['a leading space', '%207'],
      ['a trailing space', '7%20'],
      ['a plus sign', '%2B7'],
      ['hex', '0x10'],
      ['an empty value', ''],
      ['letters', 'seven'],
      ['leading zeros', '007'],
      ['minus zero', '-0'],
    ])('refuses %s', async (_what, text) => {
      await refused(`/plus?n=${text}`, 'n', "query parameter 'n' must be an integer (type)");
    });

    it('refuses an integer past ±(2^53−1), saying the range', async () => {
      const message = "query parameter 'n' must be an integer from -9007199254740991 to 9007199254740991 (type)";
      await refused('/plus?n=9007199254740993', 'n', message);
      await refused('/plus?n=-9007199254740992', 'n', message);
    });

    it('refuses a parameter given twice, and a missing required one', async () => {
      await refused('/plus?n=1&n=2', 'n', "query parameter 'n' is given more than once");
      await refused('/plus', 'n', "query parameter 'n' is required");
      await refused('/plus?m=1', 'n', "query parameter 'n' is required");
    });

    it('checks minimum and maximum', async () => {
      await refused('/things?category=fruit&size=0', 'size', "query parameter 'size' must be >= 1 (minimum)");
      await refused('/things?category=fruit&size=101', 'size', "query parameter 'size' must be <= 100 (maximum)");
      const atBounds = await get('/things?category=fruit&from=1&size=1');
      expect(atBounds.body.data).toEqual([{ id: 1, name: 'apple' }]);
    });
  });

  describe('defaults and enum', () => {
    it('binds the defaults of parameters the request leaves out', async () => {
      // from defaults to 2 (apple, id 1, is left out), size to 10.
      const answer = await get('/things?category=fruit');
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([
        { id: 2, name: 'banana' },
        { id: 4, name: 'apricot' },
      ]);
      expect((await get('/things?category=fruit&from=1&size=2')).body.data).toEqual([
        { id: 1, name: 'apple' },
        { id: 2, name: 'banana' },
      ]);
    });

    it('refuses a value outside the enum, listing the allowed ones', async () => {
      await refused('/things?category=meat', 'category', "query parameter 'category' must be one of fruit, vegetable (enum)");
      expect((await get('/things?category=vegetable')).body.data).toEqual([{ id: 3, name: 'carrot' }]);
    });
  });

  describe('string rules', () => {
    it('checks minLength, maxLength and pattern', async () => {
      await refused('/things/named?prefix=a', 'prefix', "query parameter 'prefix' must be at least 2 characters long (minLength)");
      await refused('/things/named?prefix=abcdef', 'prefix', "query parameter 'prefix' must be at most 5 characters long (maxLength)");
      await refused('/things/named?prefix=A%25', 'prefix', "query parameter 'prefix' must match the pattern ^[a-z]+$ (pattern)");
      const answer = await get('/things/named?prefix=ap');
      expect(answer.body.data).toEqual([
        { id: 1, name: 'apple' },
        { id: 4, name: 'apricot' },
      ]);
    });
  });

  describe('a typed path :id on table endpoints', () => {
    it('refuses /things/abc before any statement, on readOne, read, update and delete', async () => {
      const message = "path parameter 'id' must be an integer (type)";
      await refused('/things/abc', 'id', message);
      await refused('/things/1.0/all', 'id', message);
      await expectRefused(() => call(app, 'PUT', '/things/1e0', { name: 'x' }), 'id', message);
      await expectRefused(() => call(app, 'DELETE', '/things/0x1'), 'id', message);
      await refused('/things/0', 'id', "path parameter 'id' must be >= 1 (minimum)");
      const [{ n }] = await rawQuery(kind, `SELECT COUNT(*) AS n FROM ${things}`);
      expect(Number(n)).toBe(4);
    });

    it('serves a valid id, bound as a number', async () => {
      const one = await get('/things/3');
      expect(one.status).toBe(200);
      expect(one.body.data).toMatchObject({ id: 3, name: 'carrot' });
      expect((await get('/things/3/all')).body.data).toMatchObject([{ id: 3, name: 'carrot' }]);
      const updated = await call(app, 'PUT', '/things/4', { name: 'apricots' });
      expect(updated.body.data).toMatchObject({ id: 4, name: 'apricots' });
      await call(app, 'PUT', '/things/4', { name: 'apricot' });
    });
  });

  describe('date, datetime and uuid', () => {
    it('takes a real calendar date and refuses 2026-02-30', async () => {
      expect((await get('/days/2026-02-28')).body.data).toEqual([{ id: 2 }, { id: 3 }]);
      expect((await get('/days/2024-02-29')).body.data).toEqual([{ id: 4 }]);
      const message = "path parameter 'day' must be a calendar date written YYYY-MM-DD (format)";
      await refused('/days/2026-02-30', 'day', message);
      await refused('/days/2025-02-29', 'day', message);
      await refused('/days/2026-1-5', 'day', message);
    });

    it('takes an RFC 3339 date-time with an offset only', async () => {
      expect((await get('/at?at=2026-01-31T09:30:00%2B01:00')).body.data).toEqual([{ at: '2026-01-31T09:30:00+01:00' }]);
      expect((await get('/at?at=2026-01-31T09:30:00.250Z')).body.data).toEqual([{ at: '2026-01-31T09:30:00.250Z' }]);
      const message = "query parameter 'at' must be an RFC 3339 date-time with a UTC offset, such as 2026-01-31T09:30:00Z (format)";
      await refused('/at?at=2026-01-31T09:30:00', 'at', message);
      await refused('/at?at=2026-01-31', 'at', message);
      await refused('/at?at=2026-02-30T09:30:00Z', 'at', message);
    });

    it('takes a 36-character uuid and refuses 37 characters or a urn: prefix', async () => {
      const found = await get(`/tokens?token=${goodUuid}`);
      expect(found.body.data).toEqual({ id: 1 });
      const message = "query parameter 'token' must be a UUID: 36 characters, hex digits grouped 8-4-4-4-12 (format)";
      await refused(`/tokens?token=${goodUuid}0`, 'token', message);
      await refused(`/tokens?token=urn:uuid:${goodUuid}`, 'token', message);
      await refused('/tokens?token=123e4567-e89b-12d3-a456-42661417400g', 'token', message);
    });
  });

  describe('boolean and number', () => {
    it('binds true and false as booleans, and refuses other text', async () => {
      expect((await get('/active?active=true')).body.data).toEqual([{ id: 1 }, { id: 3 }]);
      expect((await get('/active?active=false')).body.data).toEqual([{ id: 2 }, { id: 4 }]);
      for (const text of ['1', 'TRUE', 'yes', '']) await refused(`/active?active=${text}`, 'active', "query parameter 'active' must be true or false (type)");
    });

    it('binds a plain decimal as a number, and refuses other text', async () => {
      expect((await get('/scores?above=1.5')).body.data).toEqual([{ id: 2 }, { id: 4 }]);
      expect((await get('/scores?above=2e0')).body.data).toEqual([{ id: 2 }, { id: 4 }]);
      expect((await get('/scores?above=-1')).body.data).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
      for (const text of ['Infinity', 'NaN', '0x10', '%201', '1.', '.5', '']) await refused(`/scores?above=${text}`, 'above', "query parameter 'above' must be a number (type)");
      await refused('/scores?above=1e999', 'above', "query parameter 'above' must be a number a double can hold (type)");
    });
  });

  describe('undeclared parameters', () => {
    it('behave as before: bound as text, a missing one or one given twice is TEMPLATE_VARIABLE', async () => {
      const answer = await get('/mixed?n=4&label=x');
      expect(answer.body.data).toEqual([{ v: 8, label: 'x' }]);
      expect((await get('/mixed?n=4')).body).toEqual({ code: 'nok', message: "template variable 'label' is missing from the request", error: 'TEMPLATE_VARIABLE', field: 'label' });
      expect((await get('/mixed?n=4&label=a&label=b')).body).toMatchObject({ error: 'TEMPLATE_VARIABLE', field: 'label' });
      expect((await get('/mixed?n=x&label=a')).body).toMatchObject({ error: 'INVALID_PARAMETER', field: 'n' });
    });
  });
});
