import { createApp } from '../../src';

/**
 * A list's keys of SPEC §8 (filters, sort, select, page, count) checked when the profile is read,
 * through the same entry point as test/unit/profile-validation.test.ts: each mistake is one line
 * naming the endpoint, and nothing reaches a database.
 */
const resources = {
  db: { _class: 'mysql', server: { host: '127.0.0.1', database: 'test' } },
  pg: { _class: 'postgres', server: { host: '127.0.0.1', database: 'test' } },
};

function problemsOf(endpoint: Record<string, unknown>): string {
  try {
    createApp({ resources, server: { endpoints: [endpoint] } });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the profile to be refused');
}

const oneProblem = (message: string): string => `profile has 1 problem:\n- server.endpoints[0] (/items): ${message}`;
const tableList = { path: '/items', endpoint: 'list', resource: 'db', table: 'items' };
const sqlList = { path: '/items', endpoint: 'list', resource: 'pg', sql: 'SELECT id FROM items ORDER BY id' };

describe('list settings refused when the profile is read', () => {
  it.each(['filters', 'sort', 'select'])('refuses %s on an sql list: the client can only name columns of a table list', (key) => {
    expect(problemsOf({ ...sqlList, [key]: ['id'] })).toBe(oneProblem(`${key} applies to table lists (endpoint: list with table, no sql)`));
  });

  it.each(['exact', 'estimated'])('refuses count: %s without page', (count) => {
    expect(problemsOf({ ...tableList, count })).toBe(oneProblem('count needs page: a list without pages answers every row, and total says how many'));
    expect(problemsOf({ ...sqlList, count })).toBe(oneProblem('count needs page: a list without pages answers every row, and total says how many'));
  });

  it('refuses page.defaultLimit larger than page.maxLimit', () => {
    expect(problemsOf({ ...tableList, page: { defaultLimit: 50, maxLimit: 10 } })).toBe(oneProblem('page.defaultLimit cannot be larger than page.maxLimit'));
  });

  it('refuses an unknown page key', () => {
    expect(problemsOf({ ...tableList, page: { size: 10 } })).toBe(oneProblem("page unknown key 'size'"));
  });

  it.each([0, -1, 1.5, '10'])('refuses page.defaultLimit %p', (defaultLimit) => {
    expect(problemsOf({ ...tableList, page: { defaultLimit } })).toMatch(/^profile has 1 problem:\n- server\.endpoints\[0\] \(\/items\): page.*defaultLimit/);
  });

  it.each(['limit', 'offset', 'after'])('refuses {{%s}} in the template of a paged sql list: the page parameters are the list’s own', (name) => {
    const sql = `SELECT id FROM items WHERE id > {{${name}}} ORDER BY id`;
    expect(problemsOf({ ...sqlList, sql, page: true })).toBe(oneProblem(`{{${name}}} is a page parameter of a paged list: rename the template variable`));
  });

  it('refuses a list with both sql and table', () => {
    expect(problemsOf({ ...sqlList, table: 'items' })).toBe(oneProblem('a list endpoint takes sql or table, not both'));
  });

  it('refuses a list with neither sql nor table', () => {
    expect(problemsOf({ path: '/items', endpoint: 'list', resource: 'db' })).toBe(oneProblem('a list endpoint needs sql or table'));
  });

  it('refuses a count mode that does not exist', () => {
    expect(problemsOf({ ...tableList, page: true, count: 'some' })).toBe(oneProblem("count 'some' is not one of none, estimated, exact (did you mean 'none'?)"));
  });

  it('reports every list problem of one endpoint at once', () => {
    const message = problemsOf({ ...sqlList, filters: ['id'], sort: ['id'], count: 'exact', page: { defaultLimit: 5, maxLimit: 2 } });
    expect(message.split('\n')).toEqual([
      'profile has 3 problems:',
      '- server.endpoints[0] (/items): filters applies to table lists (endpoint: list with table, no sql)',
      '- server.endpoints[0] (/items): sort applies to table lists (endpoint: list with table, no sql)',
      '- server.endpoints[0] (/items): page.defaultLimit cannot be larger than page.maxLimit',
    ]);
  });

  it('accepts every list key where it applies, and {{limit}} on an sql list without page', () => {
    const app = createApp({
      resources,
      server: {
        endpoints: [
          { ...tableList, filters: ['status'], sort: ['price'], select: ['id', 'status'], page: { defaultLimit: 10, maxLimit: 50 }, count: 'exact' },
          { ...tableList, path: '/items/estimated', page: true, count: 'estimated' },
          { ...tableList, path: '/items/all', resource: 'pg', count: 'none' },
          { ...sqlList, path: '/items/sql', page: { defaultLimit: 5 }, count: 'exact' },
          { ...sqlList, path: '/items/top', sql: 'SELECT id FROM items ORDER BY id LIMIT {{limit}}' },
        ],
      },
    });
    expect(app.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`)).toEqual(['GET /items', 'GET /items/estimated', 'GET /items/all', 'GET /items/sql', 'GET /items/top']);
  });
});
