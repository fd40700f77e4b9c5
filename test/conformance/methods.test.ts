import { SqlResourceError, type SqlResource, type QueryEvent } from '../../src';
import { ResourceManager } from '../../src/resource-manager';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

describe.each(kinds)('%s resource methods', (kind: Kind) => {
  const table = uniqueName('sr_methods');
  const hostileTable = uniqueName('sr_x`y"z;--/*');
  const hostileColumn = 'we`ird"; DROP TABLE x; -- col/*';
  let resource: SqlResource;
  const t = types[kind];

  beforeAll(async () => {
    await rawQuery(
      kind,
      `CREATE TABLE ${q(kind, table)} (id ${t.serial}, name VARCHAR(200) UNIQUE, score INT, note ${t.text}, meta ${t.json}, big ${t.bigint}, created ${t.timestamp} NULL)`,
    );
    await rawQuery(kind, `CREATE TABLE ${q(kind, hostileTable)} (id INT PRIMARY KEY, ${q(kind, hostileColumn)} VARCHAR(50))`);
    resource = new ResourceManager().add('db', resourceConfig(kind));
    await resource.start();
  });

  afterAll(async () => {
    await resource.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, hostileTable)}`);
  });

  beforeEach(async () => {
    await rawQuery(kind, `DELETE FROM ${q(kind, table)}`);
  });

  it('insert answers the stored row with generated key and defaults', async () => {
    const row = await resource.insert(table, { name: 'ada', score: 36 });
    expect(row).toMatchObject({ name: 'ada', score: 36, note: null, big: null });
    expect(typeof row.id).toBe('number');
    const [stored] = await rawQuery(kind, `SELECT name FROM ${q(kind, table)} WHERE id = ${Number(row.id)}`);
    expect(stored.name).toBe('ada');
  });

  it('read matches every filter pair with AND, null as IS NULL and arrays as IN', async () => {
    await resource.insert(table, { name: 'a', score: 1 });
    await resource.insert(table, { name: 'b', score: 2, note: 'x' });
    await resource.insert(table, { name: 'c', score: 2 });
    const names = (rows: Record<string, unknown>[]): unknown[] => rows.map((row) => row.name).sort();
    expect(names(await resource.read(table, { score: 2 }))).toEqual(['b', 'c']);
    expect(names(await resource.read(table, { score: 2, note: null }))).toEqual(['c']);
    expect(names(await resource.read(table, { name: ['a', 'c', 'zz'] }))).toEqual(['a', 'c']);
    expect(await resource.read(table, { name: [] })).toEqual([]);
    expect(names(await resource.get(table, { name: 'a' }))).toEqual(['a']);
  });

  it('update and delete answer { affectedRows } in the same shape', async () => {
    await resource.insert(table, { name: 'u1', score: 1 });
    await resource.insert(table, { name: 'u2', score: 1 });
    expect(await resource.update(table, { score: 5 }, { score: 1 })).toEqual({ affectedRows: 2 });
    expect(await resource.update(table, { score: 5 }, { name: 'nobody' })).toEqual({ affectedRows: 0 });
    expect(await resource.delete(table, { name: 'u1' })).toEqual({ affectedRows: 1 });
    expect((await resource.read(table, { score: 5 })).map((row) => row.name)).toEqual(['u2']);
  });

  it('query answers rows for a SELECT and { affectedRows } otherwise', async () => {
    const marker = kind === 'mysql' ? '?' : '$1';
    const written = await resource.query(`INSERT INTO ${q(kind, table)} (name, score) VALUES (${marker}, 3)`, ['qq']);
    expect(written).toMatchObject({ affectedRows: 1 });
    if (kind === 'mysql') expect(typeof (written as { insertId?: unknown }).insertId).toBe('number');
    const rows = await resource.query(`SELECT name, score FROM ${q(kind, table)} WHERE name = ${marker}`, ['qq']);
    expect(rows).toEqual([{ name: 'qq', score: 3 }]);
    expect(await resource.query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('stores plain objects and arrays as JSON text', async () => {
    const meta = { tags: ['a', 'b'], nested: { ok: true } };
    const row = await resource.insert(table, { name: 'json', meta });
    expect(JSON.parse(String(row.meta))).toEqual(meta);
    await resource.update(table, { meta: [1, 2] }, { name: 'json' });
    const [updated] = await resource.read(table, { name: 'json' });
    expect(updated.meta).toBe('[1,2]');
  });

  it('never rounds BIGINT values beyond 2^53', async () => {
    const huge = '9007199254740993';
    await resource.insert(table, { name: 'big', big: huge });
    await resource.insert(table, { name: 'small', big: 42 });
    const [big] = await resource.read(table, { name: 'big' });
    const [small] = await resource.read(table, { name: 'small' });
    expect(big.big).toBe(huge);
    expect(small.big).toBe(42);
    expect((await resource.read(table, { big: BigInt(huge) })).map((row) => row.name)).toEqual(['big']);
  });

  it.each([
    `' OR 1=1 --`,
    `"; DROP TABLE users; --`,
    `back\\slash \\' \\" \\\\`,
    `/* comment */ # hash`,
    `unicode: été 🎉 中文 𝔘`,
    `a`.repeat(190),
  ])('round-trips the hostile value %p exactly', async (value) => {
    const row = await resource.insert(table, { name: value.slice(0, 200), note: value });
    expect(row.note).toBe(value);
    const found = await resource.read(table, { note: value });
    expect(found).toHaveLength(1);
    expect(found[0].note).toBe(value);
    expect(await resource.read(table, { name: `' OR '1'='1` })).toEqual([]);
  });

  it('quotes table and column names holding quotes, backticks, semicolons and comments', async () => {
    const row = await resource.insert(hostileTable, { id: 1, [hostileColumn]: 'ok' });
    expect(row[hostileColumn]).toBe('ok');
    expect(await resource.read(hostileTable, { [hostileColumn]: 'ok' })).toHaveLength(1);
    expect(await resource.update(hostileTable, { [hostileColumn]: 'ko' }, { id: 1 })).toEqual({ affectedRows: 1 });
    expect(await resource.delete(hostileTable, { [hostileColumn]: 'ko' })).toEqual({ affectedRows: 1 });
    const [{ count }] = await rawQuery(kind, `SELECT COUNT(*) AS count FROM ${q(kind, table)}`);
    expect(Number(count)).toBe(0);
  });

  it('reads a schema-qualified table', async () => {
    const schema = kind === 'mysql' ? 'test' : 'public';
    await resource.insert(`${schema}.${table}`, { name: 'qualified' });
    expect(await resource.read(`${schema}.${table}`, { name: 'qualified' })).toHaveLength(1);
  });

  it.each([
    ['an empty filter', {}],
    ['a null filter', null],
    ['an array filter', [1]],
    ['a string filter', 'id = 1'],
    ['an undefined value', { name: undefined }],
    ['an object value', { name: { $ne: 1 } }],
  ])('refuses %s for read, update and delete, and sends nothing', async (_label, filter) => {
    await resource.insert(table, { name: 'keep' });
    const events: QueryEvent[] = [];
    resource.on('query', (event) => events.push(event));
    for (const call of [
      () => resource.read(table, filter as never),
      () => resource.update(table, { score: 9 }, filter as never),
      () => resource.delete(table, filter as never),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'INVALID_FILTER', statusCode: 400 });
    }
    resource.removeAllListeners('query');
    // Each refused call is reported once, as a failure that reached no server.
    expect(events.map((event) => [event.operation, event.rowCount, event.error?.code])).toEqual([
      ['read', 0, 'INVALID_FILTER'],
      ['update', 0, 'INVALID_FILTER'],
      ['delete', 0, 'INVALID_FILTER'],
    ]);
    expect(await rawQuery(kind, `SELECT name, score FROM ${q(kind, table)}`)).toEqual([{ name: 'keep', score: null }]);
  });

  it('refuses an empty entry or data', async () => {
    await expect(resource.insert(table, {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(resource.update(table, {}, { id: 1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('reports SQL errors with the driver code preserved, through callback and promise', async () => {
    const missing = await new Promise<Error | null>((resolve) => {
      void resource.read('no_such_table_here', { id: 1 }, (error) => resolve(error));
    });
    expect(missing).toBeInstanceOf(SqlResourceError);
    expect((missing as SqlResourceError).driverCode).toBe(kind === 'mysql' ? 'ER_NO_SUCH_TABLE' : '42P01');
    expect(missing?.message).toContain('read on no_such_table_here failed');

    await resource.insert(table, { name: 'dup' });
    const duplicate = await resource.insert(table, { name: 'dup' }).catch((error: SqlResourceError) => error);
    expect(duplicate).toMatchObject({
      code: 'CONSTRAINT_VIOLATION',
      statusCode: 409,
      driverCode: kind === 'mysql' ? 'ER_DUP_ENTRY' : '23505',
    });
    // The driver's own error is kept as cause, with its code.
    expect((duplicate as Error).cause).toMatchObject({ code: kind === 'mysql' ? 'ER_DUP_ENTRY' : '23505' });
  });

  it('calls each callback exactly once and causes no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const calls: [Error | null, unknown][] = [];
    const record = (error: Error | null, response?: unknown): void => void calls.push([error, response]);
    void resource.read('no_such_table_here', { id: 1 }, record);
    void resource.query('SELECT * FROM no_such_table_here', record);
    void resource.read(table, {}, record);
    await resource.insert(table, { name: 'cb' }, record).catch(() => undefined);
    // The other three settle on their own time; give them until a generous deadline, then a turn more for stray rejections.
    for (const deadline = Date.now() + 5000; calls.length < 4 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
    expect(calls).toHaveLength(4);
    expect(calls.filter(([error]) => error === null)).toHaveLength(1);
  });

  it('gives delete callbacks the error alone, while the promise carries affectedRows', async () => {
    await resource.insert(table, { name: 'gone' });
    const args = await new Promise<unknown[]>((resolve) => {
      void resource.delete(table, { name: 'gone' }, (...received: unknown[]) => resolve(received));
    });
    expect(args).toEqual([null]);
  });

  it('emits a query event with operation, duration and row count', async () => {
    await resource.insert(table, { name: 'e1', score: 7 });
    await resource.insert(table, { name: 'e2', score: 7 });
    const events: QueryEvent[] = [];
    resource.on('query', (event) => events.push(event));
    const calledAt = performance.now();
    await resource.read(table, { score: 7 });
    const elapsed = performance.now() - calledAt;
    resource.removeAllListeners('query');
    expect(events).toEqual([{ operation: 'read', table, rowCount: 2, durationMs: expect.any(Number) }]);
    // A real round trip, in milliseconds: more than nothing, and no more than the call took.
    expect(events[0].durationMs).toBeGreaterThan(0);
    expect(events[0].durationMs).toBeLessThanOrEqual(elapsed);
  });

  it('answers 400-class INVALID_VALUE for a missing NOT NULL column, on both kinds', async () => {
    const strict = uniqueName('sr_strict');
    await rawQuery(kind, `CREATE TABLE ${q(kind, strict)} (id INT PRIMARY KEY, required VARCHAR(10) NOT NULL)`);
    try {
      await expect(resource.insert(strict, { id: 1 })).rejects.toMatchObject({ code: 'INVALID_VALUE', statusCode: 400 });
      await expect(resource.insert(strict, { id: 2, required: null })).rejects.toMatchObject({ code: 'INVALID_VALUE' });
      expect(await rawQuery(kind, `SELECT * FROM ${q(kind, strict)}`)).toEqual([]);
    } finally {
      await rawQuery(kind, `DROP TABLE ${q(kind, strict)}`);
    }
  });

  it('refuses an undefined query parameter the same way on both kinds', async () => {
    const marker = kind === 'mysql' ? '?' : '$1';
    await expect(resource.query(`SELECT ${marker} AS value`, [undefined])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'query parameter 1 is undefined (use null for SQL NULL)',
    });
  });

  it('keeps reading a table after its columns change', async () => {
    const changing = uniqueName('sr_alter');
    await rawQuery(kind, `CREATE TABLE ${q(kind, changing)} (id INT PRIMARY KEY)`);
    try {
      await resource.insert(changing, { id: 1 });
      for (let round = 0; round < 3; round += 1) expect(await resource.read(changing, { id: 1 })).toEqual([{ id: 1 }]);
      await rawQuery(kind, `ALTER TABLE ${q(kind, changing)} ADD COLUMN extra INT`);
      for (let round = 0; round < 12; round += 1) expect(await resource.read(changing, { id: 1 })).toEqual([{ id: 1, extra: null }]);
    } finally {
      await rawQuery(kind, `DROP TABLE ${q(kind, changing)}`);
    }
  });

  it('describes a table from the catalogue', async () => {
    const columns = await resource.columns(table);
    expect(columns.map((column) => column.name)).toEqual(['id', 'name', 'score', 'note', 'meta', 'big', 'created']);
    expect(columns[0]).toEqual({ name: 'id', primaryKey: true, generated: true, type: 'integer', unique: true, nullable: false });
    expect(columns[1]).toEqual({ name: 'name', primaryKey: false, generated: false, type: 'text', unique: true, nullable: true });
    expect(columns.map((column) => column.type)).toEqual(['integer', 'text', 'integer', 'text', 'text', 'integer', 'other']);
    expect(columns.filter((column) => column.unique).map((column) => column.name)).toEqual(['id', 'name']);
    expect(await resource.columns('no_such_table_here')).toEqual([]);
  });

  describe('columns the table does not have (UNKNOWN_COLUMN, as over HTTP)', () => {
    const rowCount = async (name: string): Promise<number> => Number((await rawQuery(kind, `SELECT COUNT(*) AS n FROM ${q(kind, name)}`))[0].n);

    it('refuses an insert naming an unknown column with UNKNOWN_COLUMN (400), naming it, and inserts nothing', async () => {
      await resource.insert(table, { name: 'kept' });
      expect(await rowCount(table)).toBe(1);
      await expect(resource.insert(table, { name: 'ada', nickname: 'countess' })).rejects.toMatchObject({
        name: 'SqlResourceError',
        code: 'UNKNOWN_COLUMN',
        statusCode: 400,
        message: `unknown column in ${table}: nickname`,
      });
      await expect(resource.insert(table, { name: 'ada', nickname: 'x', alias: 'y' })).rejects.toMatchObject({
        code: 'UNKNOWN_COLUMN',
        message: `unknown columns in ${table}: nickname, alias`,
      });
      expect(await rowCount(table)).toBe(1);
    });

    it('hands the same error to an insert callback, alone, and inserts nothing', async () => {
      const args = await new Promise<unknown[]>((resolve) => {
        void resource.insert(table, { name: 'ada', nickname: 'countess' }, (...received: unknown[]) => resolve(received));
      });
      expect(args).toHaveLength(1);
      expect(args[0]).toBeInstanceOf(SqlResourceError);
      expect(args[0]).toMatchObject({ code: 'UNKNOWN_COLUMN', statusCode: 400, message: `unknown column in ${table}: nickname` });
      expect(await rowCount(table)).toBe(0);
    });

    it('refuses update and updateOne data naming an unknown column, and changes nothing', async () => {
      await resource.insert(table, { name: 'ada', score: 1 });
      const expected = { code: 'UNKNOWN_COLUMN', statusCode: 400, message: `unknown column in ${table}: nickname` };
      await expect(resource.update(table, { score: 2, nickname: 'countess' }, { name: 'ada' })).rejects.toMatchObject(expected);
      await expect(resource.updateOne(table, { score: 2, nickname: 'countess' }, { name: 'ada' })).rejects.toMatchObject(expected);
      await expect(resource.update(table, { score: 2 }, { nickname: 'countess' })).rejects.toMatchObject(expected);
      expect(await rawQuery(kind, `SELECT name, score FROM ${q(kind, table)}`)).toEqual([{ name: 'ada', score: 1 }]);
    });

    it('refuses a column name full of SQL metacharacters without echoing it', async () => {
      await resource.insert(table, { name: 'kept' });
      const hostile = `nick"; DROP TABLE ${table}; -- \`x\` /*`;
      const refused = await resource.insert(table, { name: 'ada', [hostile]: 'x' }).catch((error: SqlResourceError) => error);
      expect(refused).toMatchObject({ code: 'UNKNOWN_COLUMN', statusCode: 400, message: `unknown column in ${table}: 1 other` });
      const mixed = await resource.update(table, { nickname: 'x', [hostile]: 'y' }, { name: 'kept' }).catch((error: SqlResourceError) => error);
      expect(mixed).toMatchObject({ code: 'UNKNOWN_COLUMN', message: `unknown columns in ${table}: nickname, 1 other` });
      expect((refused as Error).message).not.toContain('DROP');
      expect((mixed as Error).message).not.toContain('DROP');
      expect(await rawQuery(kind, `SELECT name FROM ${q(kind, table)}`)).toEqual([{ name: 'kept' }]);
    });

    it.each(['insert', 'update'] as const)('%s accepts a column added by ALTER TABLE after the catalogue was cached', async (method) => {
      const altered = uniqueName('sr_added');
      await rawQuery(kind, `CREATE TABLE ${q(kind, altered)} (id INT PRIMARY KEY, name VARCHAR(20))`);
      try {
        await resource.insert(altered, { id: 1, name: 'first' });
        expect((await resource.columns(altered)).map((column) => column.name)).toEqual(['id', 'name']);
        await rawQuery(kind, `ALTER TABLE ${q(kind, altered)} ADD COLUMN colour VARCHAR(20)`);
        if (method === 'insert') {
          expect(await resource.insert(altered, { id: 2, name: 'second', colour: 'red' })).toEqual({ id: 2, name: 'second', colour: 'red' });
        } else {
          expect(await resource.update(altered, { colour: 'red' }, { id: 1 })).toEqual({ affectedRows: 1 });
        }
        expect((await resource.columns(altered)).map((column) => column.name)).toEqual(['id', 'name', 'colour']);
        expect(await rawQuery(kind, `SELECT colour FROM ${q(kind, altered)} WHERE colour IS NOT NULL`)).toEqual([{ colour: 'red' }]);
      } finally {
        await rawQuery(kind, `DROP TABLE ${q(kind, altered)}`);
      }
    });
  });
});

describe('mysql resource on a server without INSERT … RETURNING (MySQL)', () => {
  const table = uniqueName('sr_noreturning');
  let resource: SqlResource;

  beforeAll(async () => {
    await rawQuery('mysql', `CREATE TABLE ${q('mysql', table)} (id ${types.mysql.serial}, name VARCHAR(50), score INT DEFAULT 7)`);
    resource = new ResourceManager().add('db', resourceConfig('mysql'));
    await resource.start();
    // MariaDB ≥ 10.5 has RETURNING; switch the capability off to take MySQL's path.
    Object.assign(resource.adapter, { supportsReturning: false });
  });

  afterAll(async () => {
    await resource.stop();
    await rawQuery('mysql', `DROP TABLE IF EXISTS ${q('mysql', table)}`);
  });

  it('reads back a row without primary key from its stored values, JSON included', async () => {
    const loose = uniqueName('sr_nokey');
    await rawQuery('mysql', `CREATE TABLE ${q('mysql', loose)} (name VARCHAR(50), meta TEXT, score INT DEFAULT 3)`);
    try {
      const row = await resource.insert(loose, { name: 'x', meta: { tags: ['a'] }, skipped: undefined } as never);
      expect(row).toEqual({ name: 'x', meta: '{"tags":["a"]}', score: 3 });
      const list = await resource.insert(loose, { name: 'y', meta: [1, 2] });
      expect(list).toEqual({ name: 'y', meta: '[1,2]', score: 3 });
    } finally {
      await rawQuery('mysql', `DROP TABLE ${q('mysql', loose)}`);
    }
  });

  it('reads the stored row back by its generated key', async () => {
    await resource.insert(table, { name: 'first' });
    const row = await resource.insert(table, { name: 'second' });
    expect(row).toEqual({ id: expect.any(Number), name: 'second', score: 7 });
    const [stored] = await rawQuery('mysql', `SELECT id FROM ${q('mysql', table)} WHERE name = 'second'`);
    expect(row.id).toBe(stored.id);
  });
});
