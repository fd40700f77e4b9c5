import { SqlResourceError, type QueryEvent, type SqlResource } from '../../src';
import { ResourceManager } from '../../src/resource-manager';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

/**
 * The typed methods answer what their types say, on both kinds: row types as the columns come
 * back (test/types/typed-results.test-d.ts checks the types themselves), `select` only rows,
 * `execute` only write results, and `query` as before.
 */
interface Product {
  id: number;
  name: string;
  /** DECIMAL/NUMERIC: an exact string on both kinds. */
  price: string;
  stock: number;
  /** BIGINT: a number while exact, its decimal text past 2^53. */
  units: number | string;
}

describe.each(kinds)('%s typed results', (kind: Kind) => {
  const table = uniqueName('sr_products');
  const marker = (position: number): string => (kind === 'mysql' ? '?' : `$${position}`);
  let db: SqlResource;

  beforeAll(async () => {
    await rawQuery(
      kind,
      `CREATE TABLE ${q(kind, table)} (id ${types[kind].serial}, name VARCHAR(50) NOT NULL UNIQUE, price DECIMAL(10, 2) NOT NULL, stock INT NOT NULL DEFAULT 0, units BIGINT NOT NULL DEFAULT 0)`,
    );
    db = new ResourceManager().add('db', resourceConfig(kind));
    await db.start();
  });

  afterAll(async () => {
    await db.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  beforeEach(async () => {
    await rawQuery(kind, `DELETE FROM ${q(kind, table)}`);
  });

  it('insert, read, get and updateOne answer rows of the declared types', async () => {
    const lamp = await db.insert<Product>(table, { name: 'lamp', price: '12.50', stock: 3 });
    expect(lamp).toEqual({ id: expect.any(Number), name: 'lamp', price: '12.50', stock: 3, units: 0 });
    expect([typeof lamp.id, typeof lamp.name, typeof lamp.price, typeof lamp.stock, typeof lamp.units]).toEqual(['number', 'string', 'string', 'number', 'number']);
    expect(await db.read<Product>(table, { id: lamp.id })).toEqual([lamp]);
    expect(await db.get<Product>(table, { name: 'lamp' })).toEqual([lamp]);
    expect(await db.updateOne<Product>(table, { stock: 2 }, { id: lamp.id })).toEqual({ ...lamp, stock: 2 });
    expect(await db.updateOne<Product>(table, { stock: 2 }, { id: lamp.id + 1000 })).toBeUndefined();
  });

  it('answers BIGINT as a number while exact and as decimal text past 2^53', async () => {
    await db.insert<Product>(table, { name: 'small', price: '1.00', units: 42 });
    await db.insert<Product>(table, { name: 'huge', price: '1.00', units: 2n ** 60n });
    const rows = await db.select<Pick<Product, 'name' | 'units'>>(`SELECT name, units FROM ${q(kind, table)} ORDER BY units`);
    expect(rows).toEqual([
      { name: 'small', units: 42 },
      { name: 'huge', units: '1152921504606846976' },
    ]);
  });

  it('select answers the rows of a statement, with parameters, options and a callback', async () => {
    await db.insert<Product>(table, { name: 'lamp', price: '12.50', stock: 3 });
    await db.insert<Product>(table, { name: 'desk', price: '120.00', stock: 0 });
    await db.insert<Product>(table, { name: 'chair', price: '45.00', stock: 7 });
    const inStock = `SELECT name, stock FROM ${q(kind, table)} WHERE stock > ${marker(1)} ORDER BY name`;
    expect(await db.select<Pick<Product, 'name' | 'stock'>>(inStock, [0])).toEqual([
      { name: 'chair', stock: 7 },
      { name: 'lamp', stock: 3 },
    ]);
    expect(await db.select<{ products: number }>(`SELECT COUNT(*) AS products FROM ${q(kind, table)}`)).toEqual([{ products: 3 }]);
    expect(await db.select(`SELECT name FROM ${q(kind, table)} WHERE stock > 100`)).toEqual([]);
    const viaCallback = await new Promise<unknown[]>((resolve) => {
      void db.select<Pick<Product, 'name'>>(`SELECT name FROM ${q(kind, table)} WHERE stock = ${marker(1)}`, [0], {}, (...args: unknown[]) => resolve(args));
    });
    expect(viaCallback).toEqual([null, [{ name: 'desk' }]]);
    // RETURNING gives a result set too (DELETE … RETURNING: MariaDB and PostgreSQL): select takes it.
    const removed = `DELETE FROM ${q(kind, table)} WHERE name = ${marker(1)} RETURNING name, stock`;
    expect(await db.select<Pick<Product, 'name' | 'stock'>>(removed, ['desk'])).toEqual([{ name: 'desk', stock: 0 }]);
  });

  it('select refuses a statement without a result set with INVALID_ARGUMENT, after it ran', async () => {
    await db.insert<Product>(table, { name: 'lamp', price: '12.50', stock: 3 });
    const events: QueryEvent[] = [];
    db.on('query', (event) => events.push(event));
    const refused = await db.select(`UPDATE ${q(kind, table)} SET stock = 0`).catch((error: unknown) => error);
    db.removeAllListeners('query');
    expect(refused).toBeInstanceOf(SqlResourceError);
    expect(refused).toMatchObject({
      code: 'INVALID_ARGUMENT',
      statusCode: 400,
      message: 'select needs a statement that returns rows; this one returned none and has run (1 rows affected): use execute for statements that write',
    });
    expect(events.map((event) => [event.operation, event.rowCount, event.error?.code])).toEqual([['select', 0, 'INVALID_ARGUMENT']]);
    // The statement ran: select is for reads, its check comes after the database answered.
    expect(await rawQuery(kind, `SELECT stock FROM ${q(kind, table)}`)).toEqual([{ stock: 0 }]);
    const calledBack = await new Promise<unknown[]>((resolve) => {
      void db.select(`DELETE FROM ${q(kind, table)} WHERE stock > 100`, (...args: unknown[]) => resolve(args));
    });
    expect(calledBack).toHaveLength(1);
    expect(calledBack[0]).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('(0 rows affected)') });
  });

  it('execute answers { affectedRows, insertId? } for any statement', async () => {
    const inserted = await db.execute(`INSERT INTO ${q(kind, table)} (name, price) VALUES (${marker(1)}, ${marker(2)})`, ['lamp', '12.50']);
    const [{ id }] = await rawQuery(kind, `SELECT id FROM ${q(kind, table)} WHERE name = 'lamp'`);
    // Only MySQL reports the generated key of a plain INSERT; PostgreSQL needs RETURNING (use select or insert).
    expect(inserted).toEqual(kind === 'mysql' ? { affectedRows: 1, insertId: id } : { affectedRows: 1 });
    await db.execute(`INSERT INTO ${q(kind, table)} (name, price) VALUES ('desk', '120.00')`);
    expect(await db.execute(`UPDATE ${q(kind, table)} SET stock = 5`)).toEqual({ affectedRows: 2 });
    expect(await db.execute(`DELETE FROM ${q(kind, table)} WHERE name = ${marker(1)}`, ['nobody'])).toEqual({ affectedRows: 0 });
    // Rows a statement returns are counted, not kept.
    expect(await db.execute(`SELECT * FROM ${q(kind, table)}`)).toEqual({ affectedRows: 2 });
    const viaCallback = await new Promise<unknown[]>((resolve) => {
      void db.execute(`UPDATE ${q(kind, table)} SET stock = 6 WHERE name = ${marker(1)}`, ['desk'], (...args: unknown[]) => resolve(args));
    });
    expect(viaCallback).toEqual([null, { affectedRows: 1 }]);
  });

  it('query still answers rows for a statement that returns rows and { affectedRows } otherwise', async () => {
    await db.insert<Product>(table, { name: 'lamp', price: '12.50', stock: 3 });
    expect(await db.query<Pick<Product, 'name'>>(`SELECT name FROM ${q(kind, table)}`)).toEqual([{ name: 'lamp' }]);
    expect(await db.query(`UPDATE ${q(kind, table)} SET stock = 4`)).toEqual({ affectedRows: 1 });
    const response = await db.query<Pick<Product, 'stock'>>(`SELECT stock FROM ${q(kind, table)}`);
    // Array.isArray tells the two apart, for the type checker too.
    expect(Array.isArray(response) ? response.map((row) => row.stock) : response.affectedRows).toEqual([4]);
  });

  it('refuses empty SQL and undefined parameters naming the method', async () => {
    await expect(db.select('  ')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', statusCode: 400, message: 'select needs SQL text' });
    await expect(db.execute('')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'execute needs SQL text' });
    await expect(db.select(`SELECT ${marker(1)} AS value`, [undefined])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'select parameter 1 is undefined (use null for SQL NULL)',
    });
  });

  it('streams rows and batches of the declared type', async () => {
    for (const name of ['a', 'b', 'c']) await db.insert<Product>(table, { name, price: '1.00', stock: name.charCodeAt(0) });
    const stocks: number[] = [];
    for await (const product of db.stream<Product>(`SELECT * FROM ${q(kind, table)} ORDER BY name`)) stocks.push(product.stock);
    expect(stocks).toEqual([97, 98, 99]);
    const batches: string[][] = [];
    for await (const batch of db.streamBatches<Pick<Product, 'name'>>(`SELECT name FROM ${q(kind, table)} ORDER BY name`)) batches.push(batch.map((row) => row.name));
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('takes a type argument as the caller’s word: nothing is converted or checked at run time', async () => {
    const [row] = await db.select<{ one: string }>('SELECT 1 AS one');
    expect(row).toEqual({ one: 1 });
    expect(typeof row.one).toBe('number');
  });
});
