import { mysqlDialect as mysql, postgresDialect as postgres } from '../../src/dialects';
import { buildDelete, buildInsert, buildSelect, buildUpdate } from '../../src/sql-builder';

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
