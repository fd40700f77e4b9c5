import { createSigner } from 'fast-jwt';
import { type App } from '../../src';
import { startedApps } from '../support/apps';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

/**
 * Lists that filter, sort, pick, page and count (SPEC §8), over real HTTP on both kinds: what a
 * client sees (status, rows, `page`, `count`, `total`, `Content-Range`), every hostile query
 * string refused with a 400 naming the parameter, and page walks compared with the rows SQL reads.
 */

const secret = 'lists-test-jwt-secret-of-at-least-32-bytes';
const sign = createSigner({ key: secret, algorithm: 'HS256', noTimestamp: true });
const bearer = (claims: Record<string, unknown>): Record<string, string> => ({ authorization: `Bearer ${sign(claims)}` });

const statuses = ['open', 'closed', 'pending', 'hold,urgent'];
const names = ['café ☕', '日本語', '🚀 launch', 'naïve', '50% off', '50x off', 'snake_case', 'snakeXcase', 'plain', 'Ünïcödé', 'CAFÉ au lait'];

interface Item {
  id: number;
  status: string;
  price: number;
  note: string | null;
  created: string;
  name: string;
  tenant_id: number;
  secret: string;
}

/** 47 rows: ties on price, status, note and created so that the primary key has to break them; every fifth note NULL. */
const seed: Item[] = Array.from({ length: 47 }, (_, index) => {
  const id = index + 1;
  return {
    id,
    status: statuses[id % statuses.length],
    price: ((id * 7) % 13) + 1,
    note: id % 5 === 0 ? null : `note ${id % 7}`,
    created: `2026-01-01 ${String(Math.floor(id / 3)).padStart(2, '0')}:00:00.${id % 3 === 0 ? '123' : '000'}`,
    name: names[id % names.length],
    tenant_id: id % 3 === 0 ? 2 : 1,
    secret: `secret-${id}`,
  };
});
const allIds = seed.map((item) => item.id);
const idsWhere = (keep: (item: Item) => boolean): number[] => seed.filter(keep).map((item) => item.id);
const projection = ['id', 'status', 'price', 'note', 'created', 'name', 'tenant_id'];

interface ListPage {
  limit: number;
  offset?: number;
  next?: string;
}

interface ListAnswer {
  status: number;
  text: string;
  range: string | null;
  headers: Headers;
  body: {
    code: string;
    message: string;
    data?: Record<string, unknown>[];
    total?: number;
    page?: ListPage;
    count?: number;
    error?: string;
    field?: string;
    columns?: string[];
  };
}

const enc = encodeURIComponent;

describe.each(kinds)('%s lists: filters, order, select, pages and counts over HTTP', (kind: Kind) => {
  const apps = startedApps();
  const table = uniqueName('sr_list_items');
  const quoted = q(kind, table);
  let app: App;

  async function get(path: string, headers: Record<string, string> = {}): Promise<ListAnswer> {
    const answer = await call(app, 'GET', path, undefined, headers);
    return { status: answer.status, text: answer.text, range: answer.headers.get('content-range'), headers: answer.headers, body: answer.body as ListAnswer['body'] };
  }

  const idsOf = (answer: ListAnswer): number[] => (answer.body.data ?? []).map((row) => Number(row.id));

  /** The ids SQL itself reads, in the database's own order (its collation, its NULL placement). */
  async function sqlIds(orderBy: string, where = ''): Promise<number[]> {
    const rows = await rawQuery(kind, `SELECT id FROM ${quoted} ${where} ORDER BY ${orderBy}`);
    return rows.map((row) => Number(row.id));
  }

  /** Follows `page.next` from `first` to the end: every page a 200, at most one more page than the rows could fill. */
  async function walk(first: string, headers: Record<string, string> = {}): Promise<ListAnswer[]> {
    const pages: ListAnswer[] = [];
    let path: string | undefined = first;
    while (path !== undefined) {
      if (pages.length > seed.length) throw new Error(`more pages than rows from ${first}`);
      const answer = await get(path, headers);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
      pages.push(answer);
      path = answer.body.page?.next;
      if (path !== undefined) expect(path.startsWith('/')).toBe(true);
    }
    return pages;
  }

  /** The cursor of a `next` URL. */
  function cursorOf(next: string | undefined): string {
    const cursor = new URLSearchParams((next ?? '').split('?')[1] ?? '').get('after');
    if (cursor === null) throw new Error(`no after= in ${String(next)}`);
    return cursor;
  }

  async function expectTableIntact(): Promise<void> {
    expect(await sqlIds('id')).toEqual(allIds);
  }

  beforeAll(async () => {
    const created = kind === 'mysql' ? 'DATETIME(3)' : 'TIMESTAMP(3)';
    const charset = kind === 'mysql' ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_bin' : '';
    await rawQuery(
      kind,
      `CREATE TABLE ${quoted} (id INT PRIMARY KEY, status VARCHAR(30) NOT NULL, price INT NOT NULL, note VARCHAR(50) NULL, ` +
        `created ${created} NOT NULL, name VARCHAR(50) NOT NULL, tenant_id INT NOT NULL, secret VARCHAR(50) NOT NULL)${charset}`,
    );
    const columns = ['id', 'status', 'price', 'note', 'created', 'name', 'tenant_id', 'secret'] as const;
    const marker = (index: number): string => (kind === 'mysql' ? '?' : `$${index + 1}`);
    const rows = seed.map((_, row) => `(${columns.map((__, column) => marker(row * columns.length + column)).join(', ')})`);
    await rawQuery(kind, `INSERT INTO ${quoted} (${columns.join(', ')}) VALUES ${rows.join(', ')}`, seed.flatMap((item) => columns.map((column) => item[column])));
    // Planner statistics, so that an estimated count of this small table is below the threshold where it counts.
    await rawQuery(kind, kind === 'mysql' ? `ANALYZE TABLE ${quoted}` : `ANALYZE ${quoted}`);
    const list = { endpoint: 'list', resource: 'db', table, public: true };
    app = await apps.start({
      name: 'lists-test',
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }), batches: resourceConfig(kind, {}, { keepAliveInterval: 0, streamBatchSize: 10 }) },
      server: {
        auth: { jwt: { secret, algorithms: ['HS256'] } },
        endpoints: [
          {
            ...list,
            path: '/items',
            filters: projection,
            sort: ['id', 'status', 'price', 'note', 'created', 'name'],
            select: projection,
            page: { defaultLimit: 10, maxLimit: 20 },
            count: 'exact',
          },
          { ...list, path: '/items-b', filters: ['status'], sort: ['price', 'id'], select: projection, page: true, count: 'estimated' },
          { ...list, path: '/items-all', resource: 'batches', filters: ['status'], sort: ['price', 'id'] },
          {
            path: '/sql-paged',
            endpoint: 'list',
            resource: 'db',
            public: true,
            sql: `SELECT id, price FROM ${quoted} ORDER BY price DESC, id DESC`,
            page: { defaultLimit: 10, maxLimit: 20 },
            count: 'exact',
          },
          {
            path: '/sql-by-status',
            endpoint: 'list',
            resource: 'db',
            public: true,
            sql: `SELECT id, price FROM ${quoted} WHERE status = {{status}} ORDER BY price, id DESC`,
            page: { defaultLimit: 4 },
            count: 'exact',
          },
          { path: '/sql-all', endpoint: 'list', resource: 'batches', public: true, sql: `SELECT id FROM ${quoted} ORDER BY id DESC` },
          { path: '/sql-upto', endpoint: 'list', resource: 'db', public: true, sql: `SELECT id FROM ${quoted} WHERE id <= {{limit}} ORDER BY id` },
          {
            ...list,
            path: '/scoped',
            public: false,
            filters: ['tenant_id', 'status'],
            sort: ['price'],
            page: { defaultLimit: 5 },
            count: 'exact',
            scope: { tenant_id: '{{auth.tenant}}' },
          },
        ],
      },
    });
  });

  afterAll(async () => {
    await apps.stopAll();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${quoted}`);
  });

  describe('a table list', () => {
    it('answers the first page in the primary key order with the default projection, page, count and Content-Range', async () => {
      const answer = await get('/items');
      expect(answer.status).toBe(200);
      expect(idsOf(answer)).toEqual(allIds.slice(0, 10));
      expect(answer.body).toMatchObject({ code: 'ok', message: `list ${table}`, total: 10, count: 47 });
      expect(answer.body.page).toEqual({ limit: 10, offset: 0, next: expect.stringMatching(/^\/items\?limit=10&after=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/) });
      expect(answer.range).toBe('0-9/47');
      const first = answer.body.data?.[0];
      expect(Object.keys(first ?? {}).sort()).toEqual([...projection].sort());
      expect(first).toMatchObject({ id: 1, status: seed[0].status, price: seed[0].price, note: seed[0].note, name: seed[0].name, tenant_id: 1 });
      expect(answer.text).not.toContain('secret-');
    });

    it('picks columns with select, and * is the default projection', async () => {
      const picked = await get('/items?select=id,name&limit=3');
      expect(picked.body.data).toEqual(seed.slice(0, 3).map(({ id, name }) => ({ id, name })));
      const star = await get('/items?select=*&limit=1');
      expect(Object.keys(star.body.data?.[0] ?? {}).sort()).toEqual([...projection].sort());
    });

    it('filters with every operator, typed by the catalogue', async () => {
      const cases: [string, number[]][] = [
        ['status=eq.open', idsWhere((item) => item.status === 'open')],
        ['status=neq.open', idsWhere((item) => item.status !== 'open')],
        ['price=lt.3', idsWhere((item) => item.price < 3)],
        ['price=lte.3', idsWhere((item) => item.price <= 3)],
        ['price=gt.11', idsWhere((item) => item.price > 11)],
        ['price=gte.11', idsWhere((item) => item.price >= 11)],
        ['price=gte.2&price=lt.5', idsWhere((item) => item.price >= 2 && item.price < 5)],
        ['id=in.(3,1,40)', [1, 3, 40]],
        ['note=is.null', idsWhere((item) => item.note === null)],
        ['note=eq.note%203', idsWhere((item) => item.note === 'note 3')],
        ['status=eq.closed&price=gt.6', idsWhere((item) => item.status === 'closed' && item.price > 6)],
        [`created=gte.${enc('2026-01-01 14:00:00')}`, idsWhere((item) => item.created >= '2026-01-01 14:00:00')],
        ['status=eq.', []],
      ];
      for (const [query, expected] of cases) {
        expect(expected.length).toBeLessThan(seed.length);
        const answer = await get(`/items?${query}&limit=20`);
        const page = expected.slice(0, 20);
        expect({ query, status: answer.status, ids: idsOf(answer), count: answer.body.count }).toEqual({ query, status: 200, ids: page, count: expected.length });
      }
    });

    it('takes in.() as matching nothing, and protects commas inside double quotes', async () => {
      const empty = await get('/items?status=in.()');
      expect([empty.status, idsOf(empty), empty.body.count, empty.body.page, empty.range]).toEqual([200, [], 0, { limit: 10, offset: 0 }, '*/0']);
      const quotedComma = await get(`/items?status=in.(${enc('open,"hold,urgent"')})&limit=20`);
      const openOrHold = idsWhere((item) => item.status === 'open' || item.status === 'hold,urgent');
      expect(openOrHold.length).toBe(23);
      expect([quotedComma.status, idsOf(quotedComma), quotedComma.body.count]).toEqual([200, openOrHold.slice(0, 20), 23]);
      // Unquoted, the comma separates two values, neither of which is a status.
      const split = await get(`/items?status=in.(${enc('hold,urgent')})`);
      expect([split.status, idsOf(split)]).toEqual([200, []]);
    });

    it('reads like patterns: %25 and _ are wildcards, * stands for %, a backslash escapes', async () => {
      const cases: [string, number[]][] = [
        ['name=like.50%25', idsWhere((item) => item.name.startsWith('50'))],
        ['name=like.50*', idsWhere((item) => item.name.startsWith('50'))],
        [`name=like.${enc('*\\%*')}`, idsWhere((item) => item.name === '50% off')],
        ['name=like.snake_case', idsWhere((item) => item.name === 'snake_case' || item.name === 'snakeXcase')],
        [`name=like.${enc('snake\\_case')}`, idsWhere((item) => item.name === 'snake_case')],
        ['name=like.CAF*', idsWhere((item) => item.name.startsWith('CAF'))],
        ['name=ilike.caf*', idsWhere((item) => item.name.toLowerCase().startsWith('caf'))],
      ];
      for (const [query, expected] of cases) {
        expect(expected.length).toBeGreaterThan(0);
        const answer = await get(`/items?${query}&limit=20`);
        expect({ query, status: answer.status, ids: idsOf(answer) }).toEqual({ query, status: 200, ids: expected });
      }
    });

    it('round-trips Unicode and emoji in filter values and in the rows (eq, in, like)', async () => {
      const launch = await get(`/items?name=eq.${enc('🚀 launch')}&select=id,name`);
      expect(launch.body.data).toEqual(seed.filter((item) => item.name === '🚀 launch').map(({ id, name }) => ({ id, name })));
      expect(launch.body.data?.length).toBeGreaterThan(0);
      const several = await get(`/items?name=in.(${enc('"café ☕",日本語,Ünïcödé')})&select=id,name&limit=20`);
      const expected = seed.filter((item) => ['café ☕', '日本語', 'Ünïcödé'].includes(item.name)).map(({ id, name }) => ({ id, name }));
      expect(several.body.data).toEqual(expected);
      expect(expected.length).toBe(13);
      const coffee = await get(`/items?name=like.${enc('*☕')}&select=id,name`);
      expect(coffee.body.data).toEqual(seed.filter((item) => item.name === 'café ☕').map(({ id, name }) => ({ id, name })));
      // page.next carries the filter: walking it by cursor keeps to the emoji's rows.
      const pages = await walk(`/items?name=eq.${enc('🚀 launch')}&limit=2`);
      expect(pages.flatMap(idsOf)).toEqual(idsWhere((item) => item.name === '🚀 launch'));
      expect(pages).toHaveLength(3);
    });

    it('sorts by the sort columns, the primary key breaking ties', async () => {
      const byStatus = await get('/items?order=status.desc,price&limit=20');
      expect(idsOf(byStatus)).toEqual((await sqlIds('status DESC, price, id')).slice(0, 20));
      const byName = await get('/items?order=name&limit=20');
      expect(idsOf(byName)).toEqual((await sqlIds('name, id')).slice(0, 20));
    });
  });

  describe('paging', () => {
    it('walks every row once by page.next, for the primary key order (keyset cursors)', async () => {
      const pages = await walk('/items');
      expect(pages.flatMap(idsOf)).toEqual(await sqlIds('id'));
      expect(pages.map((page) => idsOf(page).length)).toEqual([10, 10, 10, 10, 7]);
      expect(pages.map((page) => page.range)).toEqual(['0-9/47', '*/47', '*/47', '*/47', '*/47']);
      expect(pages.map((page) => page.body.total)).toEqual([10, 10, 10, 10, 7]);
      expect(pages.map((page) => /^\/items\?limit=10&after=/.test(page.body.page?.next ?? ''))).toEqual([true, true, true, true, false]);
      expect(pages[1].body.page).toEqual({ limit: 10, next: expect.stringMatching(/^\/items\?limit=10&after=/) });
      expect(pages[4].body.page).toEqual({ limit: 10 });
    });

    it('walks a mixed-direction order (price.desc, then the key ascending), keeping only the picked columns', async () => {
      const pages = await walk('/items?order=price.desc&select=id&limit=7');
      expect(pages.flatMap(idsOf)).toEqual(await sqlIds('price DESC, id'));
      expect(pages).toHaveLength(7);
      expect(pages.flatMap((page) => page.body.data ?? []).filter((row) => Object.keys(row).join() !== 'id')).toEqual([]);
      expect(pages[0].body.page?.next).toMatch(/^\/items\?order=price\.desc&select=id&limit=7&after=/);
    });

    it('walks an order on a timestamp with ties, descending (dates in the cursor)', async () => {
      const pages = await walk('/items?order=created.desc&limit=6');
      expect(pages.flatMap(idsOf)).toEqual(await sqlIds('created DESC, id'));
      expect(pages).toHaveLength(8);
    });

    it('walks a filtered text order (status, price) with its count on every page', async () => {
      const pages = await walk(`/items?status=in.(${enc('closed,"hold,urgent"')})&order=status,price.desc&limit=4`);
      const expected = await sqlIds('status, price DESC, id', "WHERE status IN ('closed', 'hold,urgent')");
      expect(expected.length).toBe(24);
      expect(pages.flatMap(idsOf)).toEqual(expected);
      expect(pages.map((page) => page.body.count)).toEqual(Array.from({ length: 6 }, () => 24));
    });

    it('walks a text order through Unicode and emoji values, descending (text in the cursor)', async () => {
      const pages = await walk('/items?order=name.desc&select=id,name&limit=9');
      expect(pages.flatMap(idsOf)).toEqual(await sqlIds('name DESC, id'));
      expect(pages).toHaveLength(6);
    });

    it('walks price.desc picking a column the order does not name: the cursor still holds the order values', async () => {
      const pages = await walk('/items?order=price.desc&select=name&limit=10');
      const expected = await rawQuery(kind, `SELECT name FROM ${quoted} ORDER BY price DESC, id`);
      expect(pages.flatMap((page) => page.body.data ?? [])).toEqual(expected.map((row) => ({ name: row.name })));
      expect(pages.map((page) => /&after=/.test(page.body.page?.next ?? ''))).toEqual([true, true, true, true, false]);
    });

    // NULLs sort as PostgreSQL places them on both kinds: last ascending, first descending (docs/lists.md).
    const nullsAsPostgres: Record<Kind, Record<string, string>> = {
      mysql: { note: 'note IS NULL, note, id', 'note.desc': 'note IS NULL DESC, note DESC, id' },
      postgres: { note: 'note ASC NULLS LAST, id', 'note.desc': 'note DESC NULLS FIRST, id' },
    };

    it.each(['note', 'note.desc'])('walks an order on the nullable column (%s) by offset', async (order) => {
      const pages = await walk(`/items?order=${order}`);
      const expected = await sqlIds(nullsAsPostgres[kind][order]);
      expect(pages.flatMap(idsOf)).toEqual(expected);
      const nullIds = idsWhere((item) => item.note === null);
      expect(order === 'note' ? expected.slice(-nullIds.length) : expected.slice(0, nullIds.length)).toEqual(nullIds);
      const nextOffsets = [10, 20, 30, 40].map((offset) => `/items?order=${order}&limit=10&offset=${offset}`);
      expect(pages.map((page) => page.body.page?.next)).toEqual([...nextOffsets, undefined]);
      expect(pages.map((page) => page.range)).toEqual(['0-9/47', '10-19/47', '20-29/47', '30-39/47', '40-46/47']);
      expect(pages.map((page) => page.body.page?.offset)).toEqual([0, 10, 20, 30, 40]);
    });

    it('pages by limit and offset, and an offset past the end answers an empty page', async () => {
      const middle = await get('/items?offset=10&limit=5');
      expect([idsOf(middle), middle.range]).toEqual([[11, 12, 13, 14, 15], '10-14/47']);
      expect(middle.body.page).toEqual({ limit: 5, offset: 10, next: expect.stringMatching(/^\/items\?limit=5&after=/) });
      const after = await get(middle.body.page?.next ?? '');
      expect(idsOf(after)).toEqual([16, 17, 18, 19, 20]);
      const last = await get('/items?offset=45');
      expect([idsOf(last), last.range, last.body.page]).toEqual([[46, 47], '45-46/47', { limit: 10, offset: 45 }]);
      const past = await get('/items?offset=1000');
      expect([past.status, idsOf(past), past.range, past.body.page, past.body.count, past.body.total]).toEqual([200, [], '*/47', { limit: 10, offset: 1000 }, 47, 0]);
      const exact = await get('/items?limit=20&offset=27');
      expect([idsOf(exact).length, exact.body.page]).toEqual([20, { limit: 20, offset: 27 }]);
    });

    it('clamps a limit past maxLimit to maxLimit, and page: true allows 1000', async () => {
      const clamped = await get('/items?limit=99999999');
      expect([clamped.status, idsOf(clamped), clamped.body.page?.limit, clamped.range]).toEqual([200, allIds.slice(0, 20), 20, '0-19/47']);
      const wide = await get('/items-b?limit=99999999');
      expect([wide.status, idsOf(wide), wide.body.page]).toEqual([200, allIds, { limit: 1000, offset: 0 }]);
      const defaults = await get('/items-b');
      expect(defaults.body.page).toEqual({ limit: 100, offset: 0 });
    });
  });

  describe('counting', () => {
    it('counts exactly by default on a count: exact list, and Prefer asks a cheaper count', async () => {
      const exact = await get('/items?status=eq.open', { prefer: 'count=exact' });
      const open = idsWhere((item) => item.status === 'open');
      expect([exact.status, exact.body.count, exact.range]).toEqual([200, open.length, `0-9/${open.length}`]);
      // Below the threshold where an estimate is trusted, an estimated count counts.
      const estimated = await get('/items?status=eq.open', { prefer: 'count=estimated' });
      expect([estimated.status, estimated.body.count, estimated.range]).toEqual([200, open.length, `0-9/${open.length}`]);
      const none = await get('/items?status=eq.open', { prefer: 'return=representation, count=none' });
      expect([none.status, 'count' in none.body, none.range, idsOf(none)]).toEqual([200, false, '0-9/*', open.slice(0, 10)]);
    });

    it('refuses a dearer count than the endpoint offers, and an unknown one', async () => {
      const dearer = await get('/items-b', { prefer: 'count=exact' });
      expect([dearer.status, dearer.body.error, dearer.body.field]).toEqual([400, 'INVALID_PARAMETER', 'Prefer']);
      const unknown = await get('/items', { prefer: 'count=planned' });
      expect([unknown.status, unknown.body.error, unknown.body.field]).toEqual([400, 'INVALID_PARAMETER', 'Prefer']);
      const estimated = await get('/items-b', { prefer: 'count=estimated' });
      expect([estimated.status, estimated.body.count]).toEqual([200, 47]);
      const fallback = await get('/items-b');
      expect([fallback.status, fallback.body.count, fallback.range]).toEqual([200, 47, '0-46/47']);
    });
  });

  describe('an sql list with page', () => {
    it('pages the template by offset: page 2 continues the ORDER BY of page 1, with the count', async () => {
      const expected = (await rawQuery(kind, `SELECT id FROM ${quoted} ORDER BY price DESC, id DESC`)).map((row) => Number(row.id));
      const first = await get('/sql-paged');
      expect([first.status, idsOf(first), first.body.count, first.range, first.body.total]).toEqual([200, expected.slice(0, 10), 47, '0-9/47', 10]);
      expect(first.body.page).toEqual({ limit: 10, offset: 0, next: '/sql-paged?limit=10&offset=10' });
      expect(first.body.data?.[0]).toEqual({ id: expected[0], price: 13 });
      const second = await get(first.body.page?.next ?? '');
      expect([idsOf(second), second.range]).toEqual([expected.slice(10, 20), '10-19/47']);
      const pages = await walk('/sql-paged?limit=20');
      expect(pages.flatMap(idsOf)).toEqual(expected);
      expect(pages.map((page) => page.range)).toEqual(['0-19/47', '20-39/47', '40-46/47']);
    });

    it('keeps template variables in page.next, clamps the limit, and counts the template', async () => {
      const expected = (await rawQuery(kind, `SELECT id FROM ${quoted} WHERE status = 'hold,urgent' ORDER BY price, id DESC`)).map((row) => Number(row.id));
      expect(expected.length).toBe(12);
      const pages = await walk(`/sql-by-status?status=${enc('hold,urgent')}`);
      expect(pages.flatMap(idsOf)).toEqual(expected);
      expect(pages[0].body.page).toEqual({ limit: 4, offset: 0, next: `/sql-by-status?status=${enc('hold,urgent')}&limit=4&offset=4` });
      expect(pages.map((page) => page.body.count)).toEqual([12, 12, 12]);
      const clamped = await get('/sql-paged?limit=99999999', { prefer: 'count=none' });
      expect([clamped.body.page?.limit, idsOf(clamped).length, 'count' in clamped.body, clamped.range]).toEqual([20, 20, false, '0-19/*']);
      const past = await get('/sql-paged?offset=100');
      expect([past.status, idsOf(past), past.range, past.body.page]).toEqual([200, [], '*/47', { limit: 10, offset: 100 }]);
    });
  });

  describe('lists without page, as before', () => {
    it('answers every row of an sql list, streamed, with total and no page or count', async () => {
      const answer = await get('/sql-all');
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ code: 'ok', message: 'list /sql-all', data: [...allIds].reverse().map((id) => ({ id })), total: 47 });
      expect(answer.range).toBeNull();
      // Its query string is its template's, as before: ?limit= is no page parameter here.
      const limited = await get('/sql-all?limit=5');
      expect([limited.status, limited.body.total, 'page' in limited.body]).toEqual([200, 47, false]);
      const upTo = await get('/sql-upto?limit=3');
      expect(upTo.body).toEqual({ code: 'ok', message: 'list /sql-upto', data: [{ id: 1 }, { id: 2 }, { id: 3 }], total: 3 });
    });

    it('answers every row of a table list, every column, filtered and ordered, with no page', async () => {
      const all = await get('/items-all');
      expect([all.status, idsOf(all), all.body.total, 'page' in all.body, 'count' in all.body, all.range]).toEqual([200, allIds, 47, false, false, null]);
      expect(all.body.data?.[0]).toMatchObject({ id: 1, secret: 'secret-1' });
      const ordered = await get('/items-all?status=eq.pending&order=price.desc');
      expect(idsOf(ordered)).toEqual(await sqlIds('price DESC, id', "WHERE status = 'pending'"));
    });

    it.each([
      ['/items-all?limit=5', 'limit'],
      ['/items-all?offset=0', 'offset'],
      ['/items-all?after=abc.def', 'after'],
    ])('refuses %s with 400 naming %s', async (path, field) => {
      const answer = await get(path);
      expect([answer.status, answer.body.code, answer.body.error, answer.body.field]).toEqual([400, 'nok', 'INVALID_PARAMETER', field]);
    });
  });

  describe('hostile query strings: 400 naming the parameter, never 500, the table untouched', () => {
    it.each([
      ['limit=-1', 'limit'],
      ['limit=0', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=1e3', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=', 'limit'],
      ['offset=-5', 'offset'],
      ['offset=1e3', 'offset'],
      ['offset=0x10', 'offset'],
      ['limit=10&limit=20', 'limit'],
      ['offset=1&offset=2', 'offset'],
      ['order=id&order=price', 'order'],
      ['select=id&select=name', 'select'],
      [`order=${enc('name;drop table x')}`, 'order'],
      ['order=name.sideways', 'order'],
      ['order=tenant_id', 'order'],
      ['order=secret.desc', 'order'],
      ['order=', 'order'],
      ['order=id,', 'order'],
      [`select=${enc('*,secret')}`, 'select'],
      ['select=secret', 'select'],
      ['select=', 'select'],
      ['select=id,,name', 'select'],
      [`select=${enc('id;drop table x')}`, 'select'],
      ['after=', 'after'],
      ['after=abc', 'after'],
      ['after=abc.def&offset=3', 'after'],
    ])('/items?%s is INVALID_PARAMETER %s', async (query, field) => {
      const answer = await get(`/items?${query}`);
      expect({ query, status: answer.status, code: answer.body.code, error: answer.body.error, field: answer.body.field }).toEqual({
        query,
        status: 400,
        code: 'nok',
        error: 'INVALID_PARAMETER',
        field,
      });
      expect(answer.text).not.toMatch(/drop table/i);
    });

    it.each([
      ['secret=eq.x', 'secret'],
      ['status=xx.open', 'status'],
      ['status=open', 'status'],
      ['status=eq', 'status'],
      ['note=is.maybe', 'note'],
      ['note=is.NULL', 'note'],
      ['status=in.(open', 'status'],
      ['status=in.open', 'status'],
      [`status=in.(${enc('"open')})`, 'status'],
      [`status=in.(${enc('"open"x,closed')})`, 'status'],
      ['price=gte.2&price=gte.3', 'price'],
      [`${enc('na me')}=eq.x`, undefined],
      [`${enc('"; drop table x; --')}=eq.1`, undefined],
    ])('/items?%s is INVALID_FILTER naming %s', async (query, field) => {
      const answer = await get(`/items?${query}`);
      expect({ query, status: answer.status, error: answer.body.error, field: answer.body.field }).toEqual({ query, status: 400, error: 'INVALID_FILTER', field });
      expect(answer.text).not.toMatch(/drop table/i);
    });

    it.each([
      ['price=eq.abc', 'price'],
      ['price=gt.1.5', 'price'],
      ['id=in.(1,abc)', 'id'],
      ['price=like.1*', 'price'],
      ['note=is.true', 'note'],
    ])('/items?%s is INVALID_FILTER: the value does not fit the column %s', async (query, column) => {
      const answer = await get(`/items?${query}`);
      expect({ query, status: answer.status, error: answer.body.error, columns: answer.body.columns }).toEqual({ query, status: 400, error: 'INVALID_FILTER', columns: [column] });
    });

    it('names the column in field when a value does not fit it, as docs/lists.md documents for ?price=gte.abc', async () => {
      const answers = [];
      for (const query of ['price=gte.abc', 'note=is.true']) {
        const answer = await get(`/items?${query}`);
        answers.push({ query, status: answer.status, error: answer.body.error, field: answer.body.field, columns: answer.body.columns });
      }
      expect(answers).toEqual([
        { query: 'price=gte.abc', status: 400, error: 'INVALID_FILTER', field: 'price', columns: ['price'] },
        { query: 'note=is.true', status: 400, error: 'INVALID_FILTER', field: 'note', columns: ['note'] },
      ]);
    });

    it('binds values that hold SQL as values: they match nothing', async () => {
      for (const query of [
        `status=eq.${enc("open' OR '1'='1")}`,
        `status=in.(${enc(`"x') OR 1=1 --",open' --`)})`,
        `name=like.${enc("%' OR 1=1 --")}`,
        `status=eq.${enc(`x'; DROP TABLE ${table}; --`)}`,
      ]) {
        const answer = await get(`/items?${query}`);
        expect({ query, status: answer.status, ids: idsOf(answer) }).toEqual({ query, status: 200, ids: [] });
      }
      await expectTableIntact();
    });

    it('refuses tampered, truncated and forged cursors, and answers an untouched one', async () => {
      const next = (await get('/items?limit=5')).body.page?.next;
      const cursor = cursorOf(next);
      const [payload, signature] = cursor.split('.');
      const flip = (text: string, at: number): string => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
      const forged = Buffer.from(JSON.stringify([40])).toString('base64url');
      const bad = [
        `${flip(payload, 1)}.${signature}`,
        `${payload}.${flip(signature, 5)}`,
        `${payload}.${flip(signature, 0)}`,
        cursor.slice(0, -3),
        cursor.slice(0, cursor.indexOf('.') + 1),
        payload,
        `.${signature}`,
        `${forged}.${signature}`,
        `${cursor}.${signature}`,
        `${'a'.repeat(3000)}.${signature}`,
      ];
      for (const after of bad) {
        const answer = await get(`/items?limit=5&after=${enc(after)}`);
        expect({ after, status: answer.status, error: answer.body.error, field: answer.body.field }).toEqual({ after, status: 400, error: 'INVALID_PARAMETER', field: 'after' });
      }
      const untouched = await get(`/items?limit=5&after=${enc(cursor)}`);
      expect([untouched.status, idsOf(untouched)]).toEqual([200, [6, 7, 8, 9, 10]]);
      const withOffset = await get(`/items?limit=5&offset=0&after=${enc(cursor)}`);
      expect([withOffset.status, withOffset.body.error, withOffset.body.field]).toEqual([400, 'INVALID_PARAMETER', 'after']);
      await expectTableIntact();
    });

    it('refuses a cursor whose signature text was altered, even where base64url decoding would ignore the change', async () => {
      const cursor = cursorOf((await get('/items?limit=5')).body.page?.next);
      const dot = cursor.indexOf('.');
      const altered = [`${cursor}!`, `${cursor}=`, `${cursor.slice(0, dot + 4)}!${cursor.slice(dot + 4)}`];
      const answers = [];
      for (const after of altered) {
        const answer = await get(`/items?limit=5&after=${enc(after)}`);
        answers.push({ after, status: answer.status, field: answer.body.field });
      }
      expect(answers).toEqual(altered.map((after) => ({ after, status: 400, field: 'after' })));
    });

    it('refuses a cursor from another endpoint over the same table', async () => {
      const fromItems = cursorOf((await get('/items?limit=5')).body.page?.next);
      const fromB = cursorOf((await get('/items-b?limit=5')).body.page?.next);
      const onB = await get(`/items-b?limit=5&after=${enc(fromItems)}`);
      expect([onB.status, onB.body.error, onB.body.field]).toEqual([400, 'INVALID_PARAMETER', 'after']);
      const onItems = await get(`/items?limit=5&after=${enc(fromB)}`);
      expect([onItems.status, onItems.body.error, onItems.body.field]).toEqual([400, 'INVALID_PARAMETER', 'after']);
      const own = await get(`/items-b?limit=5&after=${enc(fromB)}`);
      expect([own.status, idsOf(own)]).toEqual([200, [6, 7, 8, 9, 10]]);
    });

    it('refuses a cursor used with another order, or with an order that cannot page by keyset', async () => {
      const byPrice = cursorOf((await get('/items?order=price.desc&limit=5')).body.page?.next);
      for (const order of ['', '&order=price', '&order=price.desc,name', '&order=id', '&order=note.desc']) {
        const answer = await get(`/items?limit=5&after=${enc(byPrice)}${order}`);
        expect({ order, status: answer.status, error: answer.body.error, field: answer.body.field }).toEqual({ order, status: 400, error: 'INVALID_PARAMETER', field: 'after' });
      }
      const same = await get(`/items?order=price.desc&limit=5&after=${enc(byPrice)}`);
      expect([same.status, idsOf(same)]).toEqual([200, (await sqlIds('price DESC, id')).slice(5, 10)]);
    });

    it('refuses after on a paged sql list', async () => {
      const answer = await get('/sql-paged?after=abc.def');
      expect([answer.status, answer.body.error, answer.body.field]).toEqual([400, 'INVALID_PARAMETER', 'after']);
      await expectTableIntact();
    });
  });

  describe('scope on a table list', () => {
    const tenantOne = bearer({ sub: 'ada', tenant: 1 });
    const tenantOneIds = idsWhere((item) => item.tenant_id === 1);

    it("walks only the caller's tenant's rows, and counts only them", async () => {
      const pages = await walk('/scoped?select=id,tenant_id', tenantOne);
      expect(tenantOneIds.length).toBe(32);
      expect(pages.flatMap(idsOf)).toEqual(tenantOneIds);
      expect(pages.flatMap((page) => page.body.data ?? []).filter((row) => row.tenant_id !== 1)).toEqual([]);
      expect(pages.map((page) => page.body.count)).toEqual(pages.map(() => 32));
      expect(pages).toHaveLength(7);
    });

    it('cannot be widened by a client filter on the scoped column', async () => {
      for (const [query, expected] of [
        ['tenant_id=eq.2', []],
        ['tenant_id=neq.1', []],
        ['tenant_id=in.(1,2)', tenantOneIds.slice(0, 5)],
        ['tenant_id=gte.0', tenantOneIds.slice(0, 5)],
        ['tenant_id=is.null', []],
      ] as [string, number[]][]) {
        const answer = await get(`/scoped?${query}`, tenantOne);
        const count = query.includes('eq.2') || query.includes('neq') || query.includes('null') ? 0 : 32;
        expect({ query, status: answer.status, ids: idsOf(answer), count: answer.body.count }).toEqual({ query, status: 200, ids: expected, count });
      }
      const sorted = await get('/scoped?order=price.desc&status=eq.open&limit=50', bearer({ sub: 'bea', tenant: 2 }));
      const tenantTwoOpen = seed.filter((item) => item.tenant_id === 2 && item.status === 'open');
      expect(tenantTwoOpen.length).toBeGreaterThan(0);
      expect(idsOf(sorted)).toEqual(
        tenantTwoOpen
          .sort((a, b) => b.price - a.price || a.id - b.id)
          .map((item) => item.id),
      );
    });

    it('answers 401 without a credential and 403 without the claim', async () => {
      expect((await get('/scoped')).status).toBe(401);
      const noClaim = await get('/scoped', bearer({ sub: 'ada' }));
      expect([noClaim.status, noClaim.body.error]).toEqual([403, 'FORBIDDEN']);
    });
  });
});
