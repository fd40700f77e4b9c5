import { mysqlDialect as mysql, postgresDialect as postgres } from '../../src/dialects';
import { parseOrder } from '../../src/filters';
import { buildCountOf, buildDelete, buildEstimate, buildInsert, buildList, buildSelect, buildTemplatePage, buildUpdate } from '../../src/sql-builder';

describe.each([
  [
    'mysql',
    mysql,
    {
      select: 'SELECT * FROM `app`.`users` WHERE `id` = ? AND `deleted` IS NULL AND `role` IN (?, ?)',
      insert: 'INSERT INTO `users` (`name`, `meta`) VALUES (?, ?)',
      update: 'UPDATE `users` SET `name` = ? WHERE `id` = ?',
      delete: 'DELETE FROM `users` WHERE `id` IN (?) AND 1 = 0',
      hostile: 'SELECT * FROM `a``b"c; DROP TABLE x; --` WHERE `x``y"z/*` = ?',
    },
  ],
  [
    'postgres',
    postgres,
    {
      select: 'SELECT * FROM "app"."users" WHERE "id" = $1 AND "deleted" IS NULL AND "role" IN ($2, $3)',
      insert: 'INSERT INTO "users" ("name", "meta") VALUES ($1, $2) RETURNING *',
      update: 'UPDATE "users" SET "name" = $1 WHERE "id" = $2',
      delete: 'DELETE FROM "users" WHERE "id" IN ($1) AND 1 = 0',
      hostile: 'SELECT * FROM "a`b""c; DROP TABLE x; --" WHERE "x`y""z/*" = $1',
    },
  ],
])('%s statements', (_name, dialect, expected) => {
  it('builds a SELECT with =, IS NULL and IN', () => {
    expect(buildSelect(dialect, 'app.users', { id: 7, deleted: null, role: ['a', 'b'] })).toEqual({ sql: expected.select, values: [7, 'a', 'b'] });
  });

  it('builds an INSERT, storing objects as JSON and dropping undefined', () => {
    expect(buildInsert(dialect, 'users', { name: 'x', meta: { a: [1] }, skipped: undefined }, dialect === postgres)).toEqual({ sql: expected.insert, values: ['x', '{"a":[1]}'] });
  });

  it('numbers SET values before WHERE values', () => {
    expect(buildUpdate(dialect, 'users', { name: 'y' }, { id: 3 })).toEqual({ sql: expected.update, values: ['y', 3] });
  });

  it('turns an empty array into a condition that matches nothing', () => {
    expect(buildDelete(dialect, 'users', { id: [1], other: [] })).toEqual({ sql: expected.delete, values: [1] });
  });

  it('quotes hostile identifiers and binds hostile values', () => {
    expect(buildSelect(dialect, 'a`b"c; DROP TABLE x; --', { 'x`y"z/*': "' OR 1=1 --" })).toEqual({ sql: expected.hostile, values: ["' OR 1=1 --"] });
  });

  it.each([
    ['a table with two dots', () => buildSelect(dialect, 'a.b.c', { id: 1 }), 'more than one'],
    ['an empty table name', () => buildSelect(dialect, '', { id: 1 }), 'non-empty'],
    ['a NUL in a column', () => buildSelect(dialect, 't', { 'a\0b': 1 }), 'without NUL'],
    ['a non-string table', () => buildSelect(dialect, 42, { id: 1 }), 'must be a string'],
  ])('refuses %s', (_label, build, message) => {
    expect(build).toThrow(message);
  });
});

describe('statement reuse by shape', () => {
  it('gives calls of one shape the same SQL text and binds each call’s own values', () => {
    const first = buildSelect(postgres, 'users', { id: 1, role: ['a', 'b'] });
    const second = buildSelect(postgres, 'users', { id: 2, role: ['c', 'd'] });
    expect(second.sql).toBe(first.sql);
    expect(second.values).toEqual([2, 'c', 'd']);
    expect(first.values).toEqual([1, 'a', 'b']);
  });

  it('builds a different text for another shape', () => {
    const base = buildSelect(mysql, 'users', { id: 1 }).sql;
    expect(buildSelect(mysql, 'users', { id: null }).sql).toBe('SELECT * FROM `users` WHERE `id` IS NULL');
    expect(buildSelect(mysql, 'users', { id: [1, 2] }).sql).toBe('SELECT * FROM `users` WHERE `id` IN (?, ?)');
    expect(buildSelect(mysql, 'users', { id: [] }).sql).toBe('SELECT * FROM `users` WHERE 1 = 0');
    expect(buildSelect(mysql, 'users', { name: 1 }).sql).toBe('SELECT * FROM `users` WHERE `name` = ?');
    expect(buildSelect(mysql, 'people', { id: 1 }).sql).toBe('SELECT * FROM `people` WHERE `id` = ?');
    expect(buildDelete(mysql, 'users', { id: 1 }).sql).toBe('DELETE FROM `users` WHERE `id` = ?');
    expect(buildSelect(mysql, 'users', { id: 1 }).sql).toBe(base);
  });

  it('still refuses invalid input after a valid call of a similar shape', () => {
    buildSelect(mysql, 'users', { id: 1 });
    expect(() => buildSelect(mysql, 'users', { id: undefined })).toThrow("filter value for 'id'");
    expect(() => buildSelect(mysql, 'users', {})).toThrow('must not be empty');
    expect(() => buildInsert(mysql, 'users', { skipped: undefined }, false)).toThrow('at least one column');
  });
});

describe.each([
  [
    'mysql',
    mysql,
    {
      operators:
        'SELECT * FROM `items` WHERE `price` >= ? AND `price` < ? AND `status` IN (?, ?) AND LOWER(`name`) LIKE LOWER(?) AND `flag` IS NULL AND `done` IS TRUE AND `code` <> ? AND `note` LIKE ?',
      moreOperators: 'SELECT * FROM `items` WHERE `a` = ? AND `a` <= ? AND `b` > ? AND `c` IS FALSE AND 1 = 0',
      update: 'UPDATE `items` SET `status` = ? WHERE `price` < ? AND `status` <> ?',
      delete: 'DELETE FROM `items` WHERE `name` LIKE ?',
      list: 'SELECT `id`, `name` FROM `items` WHERE `status` = ? AND `price` > ? ORDER BY `price` DESC, `id` LIMIT ? OFFSET ?',
      wholeTable: 'SELECT * FROM `items` LIMIT ?',
      unordered: 'SELECT * FROM `items` WHERE `status` IN (?, ?) AND LOWER(`name`) LIKE LOWER(?)',
      keysetOne: 'SELECT * FROM `items` WHERE `status` = ? AND `id` > ? ORDER BY `id` LIMIT ?',
      keysetOneDesc: 'SELECT * FROM `items` WHERE `id` < ? ORDER BY `id` DESC LIMIT ?',
      keysetSame: 'SELECT * FROM `items` WHERE `status` = ? AND (`price`, `id`) < (?, ?) ORDER BY `price` DESC, `id` DESC LIMIT ?',
      keysetSameAsc: 'SELECT * FROM `items` WHERE (`price`, `id`) > (?, ?) ORDER BY `price`, `id` LIMIT ?',
      keysetMixed: 'SELECT * FROM `items` WHERE `status` = ? AND ((`price` < ?) OR (`price` = ? AND `id` > ?)) ORDER BY `price` DESC, `id` LIMIT ?',
      keysetThree: 'SELECT * FROM `items` WHERE ((`a` > ?) OR (`a` = ? AND `b` < ?) OR (`a` = ? AND `b` = ? AND `c` > ?)) ORDER BY `a`, `b` DESC, `c`',
      nullsOrder: 'SELECT * FROM `items` ORDER BY `team` IS NULL, `team`, `note` IS NULL DESC, `note` DESC, `id`',
      template: 'SELECT id FROM t WHERE a = ? ORDER BY id',
      page: 'SELECT * FROM (SELECT id FROM t WHERE a = ? ORDER BY id\nLIMIT 18446744073709551615) AS sql_page LIMIT ? OFFSET ?',
      count: 'SELECT COUNT(*) AS count FROM (SELECT id FROM t WHERE a = ? ORDER BY id\n) AS counted',
      estimate: 'EXPLAIN SELECT id FROM t WHERE a = ? ORDER BY id',
    },
  ],
  [
    'postgres',
    postgres,
    {
      operators:
        'SELECT * FROM "items" WHERE "price" >= $1 AND "price" < $2 AND "status" IN ($3, $4) AND "name" ILIKE $5 AND "flag" IS NULL AND "done" IS TRUE AND "code" <> $6 AND "note" LIKE $7',
      moreOperators: 'SELECT * FROM "items" WHERE "a" = $1 AND "a" <= $2 AND "b" > $3 AND "c" IS FALSE AND 1 = 0',
      update: 'UPDATE "items" SET "status" = $1 WHERE "price" < $2 AND "status" <> $3',
      delete: 'DELETE FROM "items" WHERE "name" LIKE $1',
      list: 'SELECT "id", "name" FROM "items" WHERE "status" = $1 AND "price" > $2 ORDER BY "price" DESC, "id" LIMIT $3 OFFSET $4',
      wholeTable: 'SELECT * FROM "items" LIMIT $1',
      unordered: 'SELECT * FROM "items" WHERE "status" IN ($1, $2) AND "name" ILIKE $3',
      keysetOne: 'SELECT * FROM "items" WHERE "status" = $1 AND "id" > $2 ORDER BY "id" LIMIT $3',
      keysetOneDesc: 'SELECT * FROM "items" WHERE "id" < $1 ORDER BY "id" DESC LIMIT $2',
      keysetSame: 'SELECT * FROM "items" WHERE "status" = $1 AND ("price", "id") < ($2, $3) ORDER BY "price" DESC, "id" DESC LIMIT $4',
      keysetSameAsc: 'SELECT * FROM "items" WHERE ("price", "id") > ($1, $2) ORDER BY "price", "id" LIMIT $3',
      keysetMixed: 'SELECT * FROM "items" WHERE "status" = $1 AND (("price" < $2) OR ("price" = $3 AND "id" > $4)) ORDER BY "price" DESC, "id" LIMIT $5',
      keysetThree: 'SELECT * FROM "items" WHERE (("a" > $1) OR ("a" = $2 AND "b" < $3) OR ("a" = $4 AND "b" = $5 AND "c" > $6)) ORDER BY "a", "b" DESC, "c"',
      nullsOrder: 'SELECT * FROM "items" ORDER BY "team", "note" DESC, "id"',
      template: 'SELECT id FROM t WHERE a = $1 ORDER BY id',
      page: 'SELECT * FROM (SELECT id FROM t WHERE a = $1 ORDER BY id\n) AS sql_page LIMIT $2 OFFSET $3',
      count: 'SELECT COUNT(*) AS count FROM (SELECT id FROM t WHERE a = $1 ORDER BY id\n) AS counted',
      estimate: 'EXPLAIN (FORMAT JSON) SELECT id FROM t WHERE a = $1 ORDER BY id',
    },
  ],
])('%s filter operators, lists, pages and counts', (_name, dialect, expected) => {
  it('builds a SELECT with every operator, in the order given', () => {
    const filter = { price: { gte: 1, lt: 10 }, status: { in: ['a', 'b'] }, name: { ilike: 'a%' }, flag: { is: null }, done: { is: true }, code: { neq: 'x' }, note: { like: 'n\\_%' } };
    expect(buildSelect(dialect, 'items', filter)).toEqual({ sql: expected.operators, values: [1, 10, 'a', 'b', 'a%', 'x', 'n\\_%'] });
    expect(buildSelect(dialect, 'items', { a: { eq: 1, lte: 2 }, b: { gt: 3 }, c: { is: false }, d: { in: [] } })).toEqual({ sql: expected.moreOperators, values: [1, 2, 3] });
  });

  it('takes operators in update and delete filters too', () => {
    expect(buildUpdate(dialect, 'items', { status: 'sold' }, { price: { lt: 0 }, status: { neq: 'sold' } })).toEqual({ sql: expected.update, values: ['sold', 0, 'sold'] });
    expect(buildDelete(dialect, 'items', { name: { like: 'tmp%' } })).toEqual({ sql: expected.delete, values: ['tmp%'] });
  });

  it('builds a list with a projection, an order, a limit and an offset', () => {
    const list = buildList(dialect, 'items', [{ status: 'open' }, { price: { gt: 5 } }], { columns: ['id', 'name'], order: parseOrder('price.desc,id'), limit: 10, offset: 20 });
    expect(list).toEqual({ sql: expected.list, values: ['open', 5, 10, 20] });
    expect(buildList(dialect, 'items', [{}], { limit: 5 })).toEqual({ sql: expected.wholeTable, values: [5] });
    expect(buildList(dialect, 'items', [], { limit: 5 })).toEqual({ sql: expected.wholeTable, values: [5] });
    expect(buildList(dialect, 'items', [{ status: ['a', 'b'], name: { ilike: '%x%' } }], {})).toEqual({ sql: expected.unordered, values: ['a', 'b', '%x%'] });
  });

  it('sorts nullable columns with NULLs last ascending and first descending, as PostgreSQL does', () => {
    const order = [
      { column: 'team', descending: false, nullable: true },
      { column: 'note', descending: true, nullable: true },
      { column: 'id', descending: false, nullable: false },
    ];
    expect(buildList(dialect, 'items', [], { order })).toEqual({ sql: expected.nullsOrder, values: [] });
  });

  it('pages by keyset: one column compares with > or <', () => {
    expect(buildList(dialect, 'items', [{ status: 'open' }], { order: parseOrder('id'), after: [7], limit: 10 })).toEqual({ sql: expected.keysetOne, values: ['open', 7, 10] });
    expect(buildList(dialect, 'items', [{}], { order: parseOrder('id.desc'), after: [7], limit: 10 })).toEqual({ sql: expected.keysetOneDesc, values: [7, 10] });
  });

  it('pages by keyset: columns of one direction compare as a row', () => {
    expect(buildList(dialect, 'items', [{ status: 'open' }], { order: parseOrder('price.desc,id.desc'), after: [5, 3], limit: 10 })).toEqual({ sql: expected.keysetSame, values: ['open', 5, 3, 10] });
    expect(buildList(dialect, 'items', [], { order: parseOrder(['price.asc', 'id']), after: [5, 3], limit: 10 })).toEqual({ sql: expected.keysetSameAsc, values: [5, 3, 10] });
  });

  it('pages by keyset: mixed directions spell out each way of coming after', () => {
    expect(buildList(dialect, 'items', [{ status: 'open' }], { order: parseOrder('price.desc,id'), after: [5, 3], limit: 10 })).toEqual({ sql: expected.keysetMixed, values: ['open', 5, 5, 3, 10] });
    expect(buildList(dialect, 'items', [], { order: parseOrder('a,b.desc,c'), after: [1, 2, 3] })).toEqual({ sql: expected.keysetThree, values: [1, 1, 2, 1, 2, 3] });
  });

  it.each([
    ['after without an order', { after: [1], limit: 5 }, 'after needs one value per order column'],
    ['after with too few values', { order: parseOrder('price,id'), after: [1], limit: 5 }, 'after needs one value per order column'],
    ['offset without limit', { offset: 5 }, 'offset needs a limit'],
  ])('refuses a list with %s (INVALID_ARGUMENT)', (_label, list, message) => {
    expect(() => buildList(dialect, 'items', [{ id: 1 }], list)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message }));
  });

  it('refuses a list filter that is not an object', () => {
    expect(() => buildList(dialect, 'items', [{ id: 1 }, 'id = 1'], { limit: 5 })).toThrow(expect.objectContaining({ code: 'INVALID_FILTER' }));
  });

  it('pages a template as a derived table, its values first, the template unchanged', () => {
    const template = { sql: expected.template, values: [1] };
    expect(buildTemplatePage(dialect, template, 10, 20)).toEqual({ sql: expected.page, values: [1, 10, 20] });
    expect(template.values).toEqual([1]);
    // A template that ends in a line comment still closes its parenthesis on a line of its own.
    expect(buildTemplatePage(dialect, { sql: 'SELECT 1 AS one -- the end', values: [] }, 1, 0).sql).toContain('-- the end\n');
  });

  it('counts the rows of a statement, and asks the planner for an estimate', () => {
    const statement = { sql: expected.template, values: [1] };
    expect(buildCountOf(statement)).toEqual({ sql: expected.count, values: [1] });
    expect(buildEstimate(dialect, statement)).toEqual({ sql: expected.estimate, values: [1] });
  });
});

describe('planner estimates', () => {
  it('reads the first row of MariaDB/MySQL EXPLAIN', () => {
    expect(mysql.estimatedRows([{ id: 1, rows: 1234 }, { id: 2, rows: 5 }])).toBe(1234);
    expect(mysql.estimatedRows([{ rows: '77' }])).toBe(77);
    expect(mysql.estimatedRows([{ rows: null }])).toBeUndefined();
    expect(mysql.estimatedRows([])).toBeUndefined();
  });

  it('reads the top plan node of PostgreSQL EXPLAIN (FORMAT JSON)', () => {
    expect(postgres.estimatedRows([{ 'QUERY PLAN': [{ Plan: { 'Node Type': 'Seq Scan', 'Plan Rows': 5000 } }] }])).toBe(5000);
    expect(postgres.estimatedRows([{ 'QUERY PLAN': [{}] }])).toBeUndefined();
    expect(postgres.estimatedRows([])).toBeUndefined();
  });
});

describe('statement reuse by shape, with operators', () => {
  it('gives calls of one operator shape the same SQL text and binds each call’s own values', () => {
    const first = buildSelect(postgres, 'items', { price: { gte: 1, lt: 10 }, status: { in: ['a', 'b'] }, name: { ilike: 'a%' } });
    const second = buildSelect(postgres, 'items', { price: { gte: 2, lt: 20 }, status: { in: ['c', 'd'] }, name: { ilike: 'b%' } });
    expect(second.sql).toBe(first.sql);
    expect(first.values).toEqual([1, 10, 'a', 'b', 'a%']);
    expect(second.values).toEqual([2, 20, 'c', 'd', 'b%']);
    const third = buildSelect(mysql, 'items', { flag: { is: true }, price: { neq: 3 } });
    expect(buildSelect(mysql, 'items', { flag: { is: true }, price: { neq: 4 } }).sql).toBe(third.sql);
  });

  it('builds another text for another operator, another operator order or another list length', () => {
    const sqlOf = (filter: Record<string, unknown>): string => buildSelect(mysql, 'items', filter).sql;
    expect(sqlOf({ price: { gt: 1 } })).toBe('SELECT * FROM `items` WHERE `price` > ?');
    expect(sqlOf({ price: { gte: 1 } })).toBe('SELECT * FROM `items` WHERE `price` >= ?');
    expect(sqlOf({ price: { eq: 1 } })).toBe('SELECT * FROM `items` WHERE `price` = ?');
    expect(sqlOf({ name: { like: 'a' } })).toBe('SELECT * FROM `items` WHERE `name` LIKE ?');
    expect(sqlOf({ name: { ilike: 'a' } })).toBe('SELECT * FROM `items` WHERE LOWER(`name`) LIKE LOWER(?)');
    expect(sqlOf({ flag: { is: true } })).toBe('SELECT * FROM `items` WHERE `flag` IS TRUE');
    expect(sqlOf({ flag: { is: false } })).toBe('SELECT * FROM `items` WHERE `flag` IS FALSE');
    // `{ is: null }` and a null value are one shape.
    expect(sqlOf({ flag: { is: null } })).toBe(sqlOf({ flag: null }));
    expect(sqlOf({ price: { in: [1, 2, 3] } })).toBe('SELECT * FROM `items` WHERE `price` IN (?, ?, ?)');
    expect(sqlOf({ price: { in: [1] } })).toBe(sqlOf({ price: [1] }));
    expect(sqlOf({ price: { gte: 1, lt: 5 } })).toBe('SELECT * FROM `items` WHERE `price` >= ? AND `price` < ?');
    expect(buildSelect(mysql, 'items', { price: { lt: 5, gte: 1 } })).toEqual({ sql: 'SELECT * FROM `items` WHERE `price` < ? AND `price` >= ?', values: [5, 1] });
    expect(sqlOf({ price: { gt: 1 } })).toBe('SELECT * FROM `items` WHERE `price` > ?');
  });

  it.each([
    ['an unknown operator', { price: { gtx: 1 } }, "filter on 'price': unknown operator"],
    ['an empty operator object', { price: {} }, "filter on 'price': an operator object needs at least one operator"],
    ['is with another value', { flag: { is: 'maybe' } }, "filter on 'flag': is takes null, true or false"],
    ['a pattern that is not a string', { name: { like: 1 } }, "filter on 'name': like takes a pattern string"],
    ['ilike without a pattern', { name: { ilike: null } }, "filter on 'name': ilike takes a pattern string"],
    ['in without an array', { price: { in: 1 } }, "filter on 'price': in takes an array of values"],
    ['a comparison with null', { price: { eq: null } }, "filter on 'price': eq takes one value (for NULL use is: null)"],
    ['a comparison with a list', { price: { lt: [1, 2] } }, "filter on 'price': lt takes one value"],
    ['a comparison with an object', { price: { gt: { lt: 1 } } }, "filter on 'price': gt takes one value"],
    ['an object in an in list', { price: { in: [{ a: 1 }] } }, "filter value for 'price'"],
  ])('refuses %s with INVALID_FILTER naming the column, and still builds valid shapes', (_label, filter, message) => {
    buildSelect(mysql, 'items', { price: { gt: 1 } });
    expect(() => buildSelect(mysql, 'items', filter)).toThrow(expect.objectContaining({ code: 'INVALID_FILTER', message: expect.stringContaining(message) }));
    expect(buildSelect(mysql, 'items', { price: { gt: 2 } })).toEqual({ sql: 'SELECT * FROM `items` WHERE `price` > ?', values: [2] });
  });
});
