import type { Filter, QueryEvent, Row, SqlResource } from '../../src';
import { ResourceManager } from '../../src/resource-manager';
import type { Filters, ReadOptions } from '../../src/sql-resource';
import { fillNumbersSql, kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

/**
 * read's filter operators and options, count and countQuery, on both kinds (docs/methods.md,
 * "Filter operators", "Read options", "count and countQuery"). Expectations are the ids of the
 * rows, in order: `price` repeats (5 twice, 2 twice) so orders and pages cross ties, `status`
 * and `flag` hold NULLs, `code` is unique but nullable, `big` holds integers past ±2^53.
 */
const fixtureRows: [id: number, name: string, price: number, status: string | null, flag: boolean | null, big: string | null, code: string | null][] = [
  [1, 'apple', 3, 'open', true, '9007199254740992', 'A1'],
  [2, 'Banana', 5, 'closed', false, '9007199254740993', 'B2'],
  [3, 'cherry', 5, 'open', null, null, null],
  [4, '100%', 1, 'draft', true, '-9007199254740993', 'C3'],
  [5, 'a_b', 2, null, false, '0', null],
  [6, 'axb', 2, 'open', null, null, 'D4'],
  [7, '1000', 4, 'closed', true, '42', 'E5'],
  [8, 'party 🎉', 7, 'draft', false, null, null],
  [9, 'party 😀', 8, 'open', null, null, 'F6'],
  [10, 'Émile 中文', 6, 'closed', true, null, 'G7'],
];

/** Every id, by `price.desc,id`: the order the keyset walks are checked against. */
const byPriceDescThenId = [9, 8, 10, 2, 3, 7, 1, 5, 6, 4];

describe.each(kinds)('%s read options, filter operators and counts', (kind: Kind) => {
  const table = uniqueName('sr_read_options');
  let resource: SqlResource;

  const ids = (rows: readonly Row[]): unknown[] => rows.map((row) => row.id);
  /** The ids `filter` selects, in id order. */
  const idsOf = async (filter: Filters, options: ReadOptions = {}): Promise<unknown[]> => ids(await resource.read(table, filter, { order: 'id', ...options }));
  const rowCount = async (): Promise<number> => Number((await rawQuery(kind, `SELECT COUNT(*) AS n FROM ${q(kind, table)}`))[0].n);
  const marker = kind === 'mysql' ? '?' : '$1';

  beforeAll(async () => {
    // Collations pinned, as the per-kind expectations below describe them: MariaDB's default
    // (utf8mb4_general_ci) on MySQL; code point order for PostgreSQL's name column.
    const charset = kind === 'mysql' ? ' DEFAULT CHARSET = utf8mb4 COLLATE utf8mb4_general_ci' : '';
    const nameCollation = kind === 'postgres' ? ' COLLATE "C"' : '';
    await rawQuery(
      kind,
      `CREATE TABLE ${q(kind, table)} (id INT NOT NULL PRIMARY KEY, name VARCHAR(100)${nameCollation} NOT NULL, price INT NOT NULL, status VARCHAR(20) NULL, flag BOOLEAN NULL, big BIGINT NULL, code VARCHAR(20) NULL UNIQUE)${charset}`,
    );
    const placeholders = kind === 'mysql' ? '?, ?, ?, ?, ?, ?, ?' : '$1, $2, $3, $4, $5, $6, $7';
    for (const row of fixtureRows) await rawQuery(kind, `INSERT INTO ${q(kind, table)} VALUES (${placeholders})`, row);
    resource = new ResourceManager().add('db', resourceConfig(kind));
    await resource.start();
  });

  afterAll(async () => {
    await resource.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  describe('filter operators', () => {
    it.each([
      ['eq', { name: { eq: 'apple' } }, [1]],
      ['neq (NULL is not "not equal")', { status: { neq: 'open' } }, [2, 4, 7, 8, 10]],
      ['lt', { price: { lt: 3 } }, [4, 5, 6]],
      ['lte', { price: { lte: 3 } }, [1, 4, 5, 6]],
      ['gt', { price: { gt: 5 } }, [8, 9, 10]],
      ['gte', { price: { gte: 5 } }, [2, 3, 8, 9, 10]],
      ['in', { status: { in: ['draft', 'closed'] } }, [2, 4, 7, 8, 10]],
      ['like', { name: { like: 'a%' } }, [1, 5, 6]],
      ['ilike', { name: { ilike: 'BAN%' } }, [2]],
      ['is null', { status: { is: null } }, [5]],
      ['is true', { flag: { is: true } }, [1, 4, 7, 10]],
      ['is false', { flag: { is: false } }, [2, 5, 8]],
      ['several operators on one column', { price: { gte: 2, lt: 5 } }, [1, 5, 6, 7]],
      ['operators and a plain value on several columns', { status: 'open', price: { lt: 5 } }, [1, 6]],
      ['a value, null and a list beside operators', { status: ['open', 'closed'], flag: null, price: { neq: 8 } }, [3, 6]],
    ])('%s', async (_label, filter, expected) => {
      expect(await idsOf(filter)).toEqual(expected);
    });

    it('answers whole rows, as read does', async () => {
      const [apple] = await resource.read(table, { name: { eq: 'apple' } }, { order: 'id' });
      expect(apple).toEqual({ id: 1, name: 'apple', price: 3, status: 'open', flag: kind === 'mysql' ? 1 : true, big: '9007199254740992', code: 'A1' });
    });

    it('takes a list of filters that must all hold', async () => {
      expect(await idsOf([{ price: { gte: 3 } }, { status: { in: ['open', 'closed'] } }, { flag: { is: true } }])).toEqual([1, 7, 10]);
      // The same column in two filters: both conditions hold.
      expect(await idsOf([{ price: { gt: 1 } }, { price: { lt: 3 } }])).toEqual([5, 6]);
    });

    it('matches nothing with an empty in list, alone or beside other conditions', async () => {
      expect(await idsOf({ status: { in: [] } })).toEqual([]);
      expect(await idsOf({ price: { in: [] }, status: 'open' })).toEqual([]);
      expect(await idsOf([{ status: 'open' }, { id: { in: [] } }])).toEqual([]);
    });

    it('reads % and _ in like as wildcards, and \\% and \\_ as the characters themselves', async () => {
      expect(await idsOf({ name: { like: 'a_b' } })).toEqual([5, 6]);
      expect(await idsOf({ name: { like: 'a\\_b' } })).toEqual([5]);
      expect(await idsOf({ name: { like: '100%' } })).toEqual([4, 7]);
      expect(await idsOf({ name: { like: '100\\%' } })).toEqual([4]);
      expect(await idsOf({ name: { like: '%\\%%' } })).toEqual([4]);
      expect(await idsOf({ name: { ilike: 'A\\_B' } })).toEqual([5]);
    });

    it('matches ilike whatever the case of pattern and value', async () => {
      expect(await idsOf({ name: { ilike: 'banana' } })).toEqual([2]);
      expect(await idsOf({ name: { ilike: 'APPLE' } })).toEqual([1]);
      expect(await idsOf({ name: { ilike: '%PARTY%' } })).toEqual([8, 9]);
      expect(await idsOf({ name: { ilike: '_HERR_' } })).toEqual([3]);
    });

    it('compares like as the column does: case-insensitive under a MySQL _ci collation, exact on PostgreSQL', async () => {
      expect(await idsOf({ name: { like: 'banana' } })).toEqual(kind === 'mysql' ? [2] : []);
      expect(await idsOf({ name: { like: 'Banana' } })).toEqual([2]);
    });

    it('ignores accents in like and ilike under a MySQL _ci collation, never on PostgreSQL', async () => {
      expect(await idsOf({ name: { ilike: 'emile%' } })).toEqual(kind === 'mysql' ? [10] : []);
      expect(await idsOf({ name: { like: 'Emile%' } })).toEqual(kind === 'mysql' ? [10] : []);
      expect(await idsOf({ name: { like: 'Émile%' } })).toEqual([10]);
    });

    it('round-trips Unicode and emoji through eq and like', async () => {
      expect(await resource.read(table, { name: { eq: 'Émile 中文' } }, { columns: ['id', 'name'] })).toEqual([{ id: 10, name: 'Émile 中文' }]);
      expect(await idsOf({ name: { like: '%中文' } })).toEqual([10]);
      expect(await idsOf({ name: { like: 'party _' } })).toEqual([8, 9]);
      const [party] = await resource.read(table, { name: { eq: 'party 🎉' } }, { columns: ['name'], order: 'id' });
      expect(party).toEqual({ name: 'party 🎉' });
      // utf8mb4_general_ci weighs every character past the Basic Multilingual Plane alike: on
      // MySQL, 🎉 equals 😀 (docs/mysql.md); PostgreSQL compares them as the different characters they are.
      expect(await idsOf({ name: { eq: 'party 🎉' } })).toEqual(kind === 'mysql' ? [8, 9] : [8]);
      expect(await idsOf({ name: { like: '%😀' } })).toEqual(kind === 'mysql' ? [8, 9] : [9]);
    });

    it('compares integers past 2^53 exactly, as bigint or decimal text', async () => {
      expect(await idsOf({ big: { gt: 9007199254740992n } })).toEqual([2]);
      expect(await idsOf({ big: { gte: '9007199254740992' } })).toEqual([1, 2]);
      expect(await idsOf({ big: { lt: -9007199254740992n } })).toEqual([4]);
      expect(await idsOf({ big: { neq: 9007199254740993n } })).toEqual([1, 4, 5, 7]);
      expect(await idsOf({ big: { eq: '9007199254740993' } })).toEqual([2]);
      expect(await resource.read(table, { big: { in: [9007199254740993n, '9007199254740992'] } }, { columns: ['id', 'big'], order: 'id' })).toEqual([
        { id: 1, big: '9007199254740992' },
        { id: 2, big: '9007199254740993' },
      ]);
      // A number past 2^53 was rounded before it got here: refused, never compared.
      await expect(resource.read(table, { big: { gt: 2 ** 53 } }, { order: 'id' })).rejects.toMatchObject({ code: 'INVALID_FILTER', columns: ['big'] });
    });
  });

  it('takes the same operators in update and delete filters', async () => {
    const scratch = uniqueName('sr_operators_write');
    await rawQuery(kind, `CREATE TABLE ${q(kind, scratch)} (id INT NOT NULL PRIMARY KEY, price INT NOT NULL, status VARCHAR(20) NULL)`);
    try {
      await rawQuery(kind, `INSERT INTO ${q(kind, scratch)} VALUES (1, 1, 'open'), (2, 5, 'open'), (3, 9, NULL), (4, 12, 'closed')`);
      expect(await resource.update(scratch, { status: 'sale' }, { price: { gte: 5, lt: 10 } })).toEqual({ affectedRows: 2 });
      expect(await resource.delete(scratch, { status: { is: null } })).toEqual({ affectedRows: 0 });
      expect(await resource.delete(scratch, { status: { in: ['open', 'closed'] }, price: { neq: 1 } })).toEqual({ affectedRows: 1 });
      expect(await rawQuery(kind, `SELECT id, status FROM ${q(kind, scratch)} ORDER BY id`)).toEqual([
        { id: 1, status: 'open' },
        { id: 2, status: 'sale' },
        { id: 3, status: 'sale' },
      ]);
      await expect(resource.delete(scratch, { price: { gtx: 0 } })).rejects.toMatchObject({ code: 'INVALID_FILTER', columns: ['price'] });
      expect(Number((await rawQuery(kind, `SELECT COUNT(*) AS n FROM ${q(kind, scratch)}`))[0].n)).toBe(3);
    } finally {
      await rawQuery(kind, `DROP TABLE ${q(kind, scratch)}`);
    }
  });

  describe('read options', () => {
    it('answers only the columns asked for, in their order', async () => {
      const rows = await resource.read(table, { id: [2, 1] }, { columns: ['name', 'id'], order: 'id' });
      expect(rows).toEqual([
        { name: 'apple', id: 1 },
        { name: 'Banana', id: 2 },
      ]);
      expect(Object.keys(rows[0])).toEqual(['name', 'id']);
    });

    it('orders by several columns, each ascending or descending', async () => {
      expect(ids(await resource.read(table, {}, { order: 'price.desc,id', limit: 100 }))).toEqual(byPriceDescThenId);
      expect(ids(await resource.read(table, {}, { order: ['price.desc', 'id.desc'], limit: 100 }))).toEqual([9, 8, 10, 3, 2, 7, 1, 6, 5, 4]);
      expect(ids(await resource.read(table, {}, { order: 'price.asc,id.desc', limit: 100 }))).toEqual([4, 6, 5, 1, 7, 3, 2, 10, 8, 9]);
      expect(ids(await resource.read(table, { status: { in: ['open', 'closed', 'draft'] } }, { order: 'status.desc,price.desc,id' }))).toEqual([9, 3, 1, 6, 8, 4, 10, 2, 7]);
    });

    it('sorts NULLs last ascending and first descending, on both kinds', async () => {
      expect(ids(await resource.read(table, {}, { order: 'status,id', limit: 100 }))).toEqual([2, 7, 10, 4, 8, 1, 3, 6, 9, 5]);
      expect(ids(await resource.read(table, {}, { order: 'status.desc,id', limit: 100 }))).toEqual([5, 1, 3, 6, 9, 4, 8, 2, 7, 10]);
      expect(ids(await resource.read(table, { flag: { neq: true } }, { order: 'flag.desc,id.desc', limit: 100 }))).toEqual([8, 5, 2]);
      expect(ids(await resource.read(table, { price: { lte: 2 } }, { order: 'flag,id', limit: 100 }))).toEqual([5, 4, 6]);
    });

    it('cuts the ordered rows with limit and offset', async () => {
      expect(await idsOf({ price: { gt: 0 } }, { limit: 3 })).toEqual([1, 2, 3]);
      expect(await idsOf({ price: { gt: 0 } }, { limit: 3, offset: 3 })).toEqual([4, 5, 6]);
      expect(await idsOf({ price: { gt: 0 } }, { limit: 3, offset: 8 })).toEqual([9, 10]);
      expect(await idsOf({ price: { gt: 0 } }, { limit: 3, offset: 10 })).toEqual([]);
      expect(await idsOf({ price: { gt: 0 } }, { limit: 0 })).toEqual([]);
      expect(ids(await resource.read(table, { price: 5 }, { order: 'id.desc', limit: 1 }))).toEqual([3]);
    });

    it('refuses offset without limit (INVALID_ARGUMENT)', async () => {
      await expect(resource.read(table, { price: { gt: 0 } }, { order: 'id', offset: 2 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', statusCode: 400 });
    });

    it('reads the whole table with {} only when a limit bounds it', async () => {
      await expect(resource.read(table, {}, { order: 'id' })).rejects.toMatchObject({ code: 'INVALID_FILTER', statusCode: 400 });
      await expect(resource.read(table, [{}, {}], { order: 'id' })).rejects.toMatchObject({ code: 'INVALID_FILTER' });
      await expect(resource.read(table, {})).rejects.toMatchObject({ code: 'INVALID_FILTER' });
      expect(await idsOf({}, { limit: 2 })).toEqual([1, 2]);
      expect(await idsOf({}, { limit: 100 })).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('gives the statement read runs, which runs as read does', async () => {
      const options: ReadOptions = { columns: ['id'], order: 'price.desc,id', limit: 3 };
      const statement = await resource.selectStatement(table, { status: 'open' }, options);
      expect(await resource.query(statement.sql, statement.values)).toEqual(await resource.read(table, { status: 'open' }, options));
      expect(ids(await resource.read(table, { status: 'open' }, options))).toEqual([9, 3, 1]);
    });

    it('runs nothing for an already aborted signal', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(resource.read(table, { id: 1 }, { signal: controller.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    });
  });

  describe('keyset paging (after)', () => {
    /** Reads `filter` page by page, each page after the last row of the one before: the ids of each page. */
    const walk = async (filter: Filters, order: string, limit: number): Promise<unknown[][]> => {
      const pages: unknown[][] = [];
      let after: Row | undefined;
      for (;;) {
        const page = await resource.read(table, filter, { order, limit, ...(after === undefined ? {} : { after }) });
        if (page.length === 0) return pages;
        pages.push(ids(page));
        after = page[page.length - 1];
        if (pages.length > 20) throw new Error('the walk does not end');
      }
    };

    it('walks one column page by page', async () => {
      expect(await walk({}, 'id', 4)).toEqual([
        [1, 2, 3, 4],
        [5, 6, 7, 8],
        [9, 10],
      ]);
      expect(await walk({}, 'id.desc', 4)).toEqual([
        [10, 9, 8, 7],
        [6, 5, 4, 3],
        [2, 1],
      ]);
      expect(ids(await resource.read(table, {}, { order: 'id', limit: 3, after: { id: 7 } }))).toEqual([8, 9, 10]);
    });

    it.each([
      ['price.desc,id', byPriceDescThenId],
      ['price.desc,id.desc', [9, 8, 10, 3, 2, 7, 1, 6, 5, 4]],
      ['price,id.desc', [4, 6, 5, 1, 7, 3, 2, 10, 8, 9]],
      // Text sorts by the column's collation: case and accents aside under utf8mb4_general_ci (where
      // '_' sorts after letters, and 🎉 ties with 😀), by code point under PostgreSQL's "C".
      ['name,id', kind === 'mysql' ? [4, 7, 1, 6, 5, 2, 3, 10, 8, 9] : [4, 7, 2, 5, 1, 6, 3, 8, 9, 10]],
    ])('visits every row once, in order, by %s, whatever the page size', async (order, expected) => {
      const all = ids(await resource.read(table, {}, { order, limit: 100 }));
      expect(all).toEqual(expected);
      for (const limit of [1, 2, 3, 4, 7]) {
        const pages = await walk({}, order, limit);
        expect(pages.flat()).toEqual(all);
        expect(pages.every((page, i) => page.length === (i < pages.length - 1 ? limit : all.length - limit * i))).toBe(true);
      }
    });

    it('walks an order that holds a whole composite primary key', async () => {
      const pairs = uniqueName('sr_keyset_pairs');
      await rawQuery(kind, `CREATE TABLE ${q(kind, pairs)} (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b))`);
      try {
        await rawQuery(kind, `INSERT INTO ${q(kind, pairs)} VALUES (1, 1), (1, 2), (2, 1), (2, 2), (3, 1)`);
        const walkPairs = async (order: string): Promise<string[]> => {
          const visited: string[] = [];
          let after: Row | undefined;
          for (let page = 0; page < 10; page += 1) {
            const rows = await resource.read(pairs, {}, { order, limit: 2, ...(after === undefined ? {} : { after }) });
            if (rows.length === 0) break;
            visited.push(...rows.map((row) => `${String(row.a)}${String(row.b)}`));
            after = rows[rows.length - 1];
          }
          return visited;
        };
        expect(await walkPairs('a,b')).toEqual(['11', '12', '21', '22', '31']);
        expect(await walkPairs('b.desc,a')).toEqual(['12', '22', '11', '21', '31']);
        await expect(resource.read(pairs, {}, { order: 'a', limit: 2, after: { a: 1 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'after' });
      } finally {
        await rawQuery(kind, `DROP TABLE ${q(kind, pairs)}`);
      }
    });

    it('walks with a filter, past ties split across pages', async () => {
      const all = ids(await resource.read(table, { status: { neq: 'draft' } }, { order: 'price.desc,id' }));
      expect(all).toEqual([9, 10, 2, 3, 7, 1, 6]);
      expect(await walk({ status: { neq: 'draft' } }, 'price.desc,id', 3)).toEqual([
        [9, 10, 2],
        [3, 7, 1],
        [6],
      ]);
      expect(await walk([{ price: { gte: 2 } }, { flag: { is: false } }], 'price,id', 1)).toEqual([[5], [2], [8]]);
    });

    // A timestamp comes back as a JS Date, cut to the millisecond, while the server keeps
    // microseconds (PostgreSQL's default precision; MySQL DATETIME(6)): a page starting after the
    // cut value would repeat or skip rows, so `after` refuses dates and such orders page by offset.
    it.each(['created.desc,id', 'created,id'])('refuses after by a timestamp, whose values are cut to the millisecond, and pages it by offset (%s)', async (order) => {
      const stamped = uniqueName('sr_keyset_micro');
      await rawQuery(kind, `CREATE TABLE ${q(kind, stamped)} (id INT NOT NULL PRIMARY KEY, created ${kind === 'mysql' ? 'DATETIME(6)' : 'TIMESTAMP(6)'} NOT NULL)`);
      try {
        await rawQuery(kind, `INSERT INTO ${q(kind, stamped)} VALUES (1, '2026-01-01 10:00:00.123456'), (2, '2026-01-01 10:00:00.123400'), (3, '2026-01-01 10:00:00.122000')`);
        const all = ids(await resource.read(stamped, {}, { order, limit: 100 }));
        expect(all).toEqual(order === 'created,id' ? [3, 2, 1] : [1, 2, 3]);
        const [first] = await resource.read(stamped, {}, { order, limit: 1 });
        await expect(resource.read(stamped, {}, { order, limit: 1, after: first })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'after', message: expect.stringContaining("after cannot page by 'created'") });
        const visited: unknown[] = [];
        for (let offset = 0; offset < 5; offset += 1) visited.push(...ids(await resource.read(stamped, {}, { order, limit: 1, offset })));
        expect(visited).toEqual(all);
      } finally {
        await rawQuery(kind, `DROP TABLE ${q(kind, stamped)}`);
      }
    });

    it.each([
      ['no order', undefined, { id: 1 }],
      ['an order not ending in a unique column', 'price', { price: 5 }],
      ['an order ending in a unique but nullable column', 'code', { code: 'A1' }],
      ['an order naming a nullable column', 'status,id', { status: 'open', id: 1 }],
      ['a last row without the order’s column', 'price.desc,id', { price: 5 }],
    ])('refuses after with %s (INVALID_ARGUMENT)', async (_label, order, after) => {
      await expect(resource.read(table, {}, { ...(order === undefined ? {} : { order }), limit: 2, after })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        statusCode: 400,
        field: 'after',
      });
    });
  });

  describe('count and countQuery', () => {
    it('counts the rows a filter selects', async () => {
      expect(await resource.count(table, { status: 'open' })).toBe(4);
      expect(await resource.count(table, { price: { gte: 2, lt: 5 } })).toBe(4);
      expect(await resource.count(table, [{ price: { gte: 3 } }, { flag: { is: true } }])).toBe(3);
      expect(await resource.count(table, { status: { in: [] } })).toBe(0);
      expect(await resource.count(table, {})).toBe(10);
    });

    it('counts exactly when estimated below exactCountBelow (1000)', async () => {
      expect(await resource.count(table, { price: { gte: 5 } }, { estimated: true })).toBe(5);
      expect(await resource.count(table, {}, { estimated: true })).toBe(10);
      expect(await resource.count(table, { status: { is: null } }, { estimated: true })).toBe(1);
    });

    it('counts the rows of an SQL text with a bound parameter, exactly or estimated', async () => {
      // A line comment at the end: the text is wrapped on a line of its own.
      const sql = `SELECT id FROM ${q(kind, table)} WHERE price > ${marker} -- trailing comment`;
      expect(await resource.countQuery(sql, [4])).toBe(5);
      expect(await resource.countQuery(sql, [4], { estimated: true })).toBe(5);
      expect(await resource.countQuery(sql, [100])).toBe(0);
      expect(await resource.countQuery(`SELECT 1 AS one`)).toBe(1);
    });

    // Reported bug: exactness below the threshold is decided on the planner's estimate, not on
    // the rows. PostgreSQL estimates a table never analyzed from at least 10 pages (autovacuum
    // leaves a table of fewer than 50 changed rows alone): 3 narrow rows are estimated at 2550,
    // and count answers 2550.
    it('BUG (reported): counts a small table never analyzed exactly, estimated or not', async () => {
      const small = uniqueName('sr_count_small');
      await rawQuery(kind, `CREATE TABLE ${q(kind, small)} (n INT NOT NULL PRIMARY KEY)`);
      try {
        await rawQuery(kind, `INSERT INTO ${q(kind, small)} (n) VALUES (1), (2), (3)`);
        expect(await resource.count(small, {})).toBe(3);
        expect(await resource.count(small, {}, { estimated: true })).toBe(3);
        expect(await resource.count(small, { n: { gt: 1 } }, { estimated: true })).toBe(2);
      } finally {
        await rawQuery(kind, `DROP TABLE ${q(kind, small)}`);
      }
    });

    it('answers the planner’s estimate at or above exactCountBelow, and counts below it', async () => {
      const numbers = uniqueName('sr_count_estimate');
      await rawQuery(kind, `CREATE TABLE ${q(kind, numbers)} (n INT NOT NULL PRIMARY KEY)`);
      try {
        await rawQuery(kind, fillNumbersSql(kind, q(kind, numbers), 5000));
        await rawQuery(kind, `ANALYZE${kind === 'mysql' ? ' TABLE' : ''} ${q(kind, numbers)}`);
        expect(await resource.count(numbers, {})).toBe(5000);
        const estimate = await resource.count(numbers, {}, { estimated: true });
        // An estimate: near the truth after ANALYZE, not necessarily equal to it.
        expect(estimate).toBeGreaterThanOrEqual(2500);
        expect(estimate).toBeLessThanOrEqual(10000);
        expect(await resource.count(numbers, { n: { lte: 10 } }, { estimated: true })).toBe(10);
        const estimatedQuery = await resource.countQuery(`SELECT n FROM ${q(kind, numbers)} WHERE n > ${marker}`, [1000], { estimated: true });
        expect(estimatedQuery).toBeGreaterThanOrEqual(2000);
        expect(estimatedQuery).toBeLessThanOrEqual(8000);
      } finally {
        await rawQuery(kind, `DROP TABLE ${q(kind, numbers)}`);
      }
    });
  });

  describe('hostile and malformed input', () => {
    it.each([
      ['an unknown operator', { price: { gtx: 1 } }, 'price', /unknown operator/],
      ['an empty operator object', { price: {} }, 'price', /at least one operator/],
      ['is with something else than null, true or false', { flag: { is: 'maybe' } }, 'flag', /is takes null, true or false/],
      ['is true on an integer column', { price: { is: true } }, 'price', /boolean column/],
      ['like on an integer column', { price: { like: '1%' } }, 'price', /text column/],
      ['ilike on an integer column', { price: { ilike: '1%' } }, 'price', /text column/],
      ['a pattern that is not a string', { name: { like: 1 } }, 'name', /pattern string/],
      ['in without an array', { status: { in: 'open' } }, 'status', /array/],
      ['a comparison with null', { status: { eq: null } }, 'status', /is: null/],
      ['SQL in an integer comparison', { price: { gt: '1 OR 1=1' } }, 'price', /integer/],
      ['a fraction for an integer column', { price: { lt: 1.5 } }, 'price', /integer/],
    ])('refuses %s with INVALID_FILTER naming the column', async (_label, filter, column, message) => {
      const refused = await resource.read(table, filter as Filter, { order: 'id' }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'INVALID_FILTER', statusCode: 400, columns: [column], message });
      expect((refused as Error).message).toContain(`'${column}'`);
      // The plain read and count refuse it the same way.
      await expect(resource.read(table, filter as Filter)).rejects.toMatchObject({ code: 'INVALID_FILTER' });
      await expect(resource.count(table, filter as Filter)).rejects.toMatchObject({ code: 'INVALID_FILTER' });
    });

    it.each([
      ['a filter', [{ nickname: { eq: 'x' } }, {}]],
      ['columns', [{ id: 1 }, { columns: ['id', 'nickname'] }]],
      ['an order', [{ id: 1 }, { order: 'nickname.desc' }]],
    ])('refuses an unknown column in %s with UNKNOWN_COLUMN naming it', async (_label, [filter, options]) => {
      await expect(resource.read(table, filter as Filters, options as ReadOptions)).rejects.toMatchObject({
        code: 'UNKNOWN_COLUMN',
        statusCode: 400,
        message: `unknown column in ${table}: nickname`,
      });
    });

    it.each([
      ['name.sideways', 'INVALID_ARGUMENT'],
      ['name.desc.asc', 'UNKNOWN_COLUMN'],
      ['name;drop table x', 'UNKNOWN_COLUMN'],
      [`name; DROP TABLE ${'x'}; --.desc`, 'UNKNOWN_COLUMN'],
      ['id,', 'INVALID_ARGUMENT'],
      ['', 'INVALID_ARGUMENT'],
    ])('refuses the order %p (%s), sends nothing and keeps every row', async (order, code) => {
      const refused = await resource.read(table, { id: { gt: 0 } }, { order, limit: 5 }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code, statusCode: 400 });
      expect((refused as Error).message.toLowerCase()).not.toContain('drop');
      expect(await rowCount()).toBe(fixtureRows.length);
    });

    it('binds hostile values as values', async () => {
      expect(await idsOf({ name: { eq: "' OR '1'='1" } })).toEqual([]);
      expect(await idsOf({ name: { like: "%' OR 1=1 --" } })).toEqual([]);
      expect(await idsOf({ status: { in: ["open' OR '1'='1", 'x'] } })).toEqual([]);
      expect(await rowCount()).toBe(fixtureRows.length);
    });

    // Reported bug: limit and offset go to the server unchecked. MariaDB reads a limit of -1 or
    // NaN as no limit at all (so `{}` with `limit: -1` reads the whole table) and rounds 1.5;
    // PostgreSQL refuses them as INVALID_VALUE. Both kinds should refuse them alike, before
    // anything is sent, as INVALID_ARGUMENT.
    it.each([
      ['limit -1', { limit: -1 }],
      ['limit NaN', { limit: Number.NaN }],
      ['limit 1.5', { limit: 1.5 }],
      ['offset -1', { limit: 2, offset: -1 }],
    ])('BUG (reported): refuses %s with INVALID_ARGUMENT, on both kinds', async (_label, options) => {
      await expect(resource.read(table, {}, { order: 'id', ...options })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', statusCode: 400 });
    });

    // Reported bug: an empty column list is built into `SELECT  FROM …`: MariaDB answers a syntax
    // error (DB_ERROR, 500), PostgreSQL answers rows without columns (`[{}, {}]`).
    it('BUG (reported): refuses an empty columns list with INVALID_ARGUMENT, on both kinds', async () => {
      await expect(resource.read(table, { id: [1, 2] }, { columns: [], order: 'id' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', statusCode: 400 });
    });
  });

  describe('callbacks', () => {
    it('hands read with options and count their answer through a final callback', async () => {
      const rows = await new Promise<unknown[]>((resolve, reject) => {
        void resource.read(table, { price: { gt: 6 } }, { columns: ['id'], order: 'id' }, (error, answer) => (error ? reject(error) : resolve(answer ?? [])));
      });
      expect(rows).toEqual([{ id: 8 }, { id: 9 }]);
      const counted = await new Promise<unknown>((resolve) => {
        void resource.count(table, { price: { gt: 6 } }, {}, (error, answer) => resolve(error ?? answer));
      });
      expect(counted).toBe(2);
      const refused = await new Promise<unknown>((resolve) => {
        void resource.read(table, {}, { order: 'id' }, (error) => resolve(error));
      });
      expect(refused).toMatchObject({ code: 'INVALID_FILTER' });
    });
  });

  describe('query events', () => {
    it('reports read and count with their row counts', async () => {
      await resource.columns(table); // the catalogue is read once per table, with an event of its own
      const events: QueryEvent[] = [];
      resource.on('query', (event) => events.push(event));
      try {
        await resource.read(table, { price: { gte: 5 } }, { order: 'id', limit: 3 });
        await resource.read(table, { status: { in: [] } }, { order: 'id' });
        await resource.count(table, { price: { gte: 5 } });
        await resource.count(table, { price: { gte: 5 } }, { estimated: true });
        await resource.countQuery(`SELECT id FROM ${q(kind, table)} WHERE price > ${marker}`, [4]);
        await resource.read(table, {}, { order: 'id' }).catch(() => undefined);
        await resource.read(table, { price: { gtx: 1 } }, { order: 'id' }).catch(() => undefined);
      } finally {
        resource.removeAllListeners('query');
      }
      expect(events.map(({ operation, table: name, rowCount, error }) => ({ operation, table: name, rowCount, error: error?.code }))).toEqual([
        { operation: 'read', table, rowCount: 3, error: undefined },
        { operation: 'read', table, rowCount: 0, error: undefined },
        // A count answers one value: its event counts one row, whatever the count.
        { operation: 'count', table, rowCount: 1, error: undefined },
        { operation: 'count', table, rowCount: 1, error: undefined },
        { operation: 'count', table: undefined, rowCount: 1, error: undefined },
        { operation: 'read', table, rowCount: 0, error: 'INVALID_FILTER' },
        { operation: 'read', table, rowCount: 0, error: 'INVALID_FILTER' },
      ]);
      expect(events.every((event) => event.durationMs > 0)).toBe(true);
    });
  });
});
