/**
 * Compile-time tests of the typed results (docs/typescript.md): `npm run typecheck` checks this
 * file; nothing here runs. Each `@ts-expect-error` line must fail to compile, or the check fails.
 * test/conformance/typed-results.test.ts runs the same calls against both servers.
 */
import { expectTypeOf } from 'expect-type';
import type { AffectedRows, Callback, Entry, Row, RowFilter, SqlResource, WriteResult } from '../../src';

interface Product {
  id: number;
  name: string;
  price: string;
  stock: number;
}

/** An interface without an index signature, as application code writes them. */
interface NewProduct {
  name: string;
  price: string;
}

declare const db: SqlResource;
declare const fresh: NewProduct;

const countRows = (rows: object[]): number => rows.length;

export async function typedCalls(): Promise<void> {
  expectTypeOf(db.read<Product>('products', { name: 'lamp' })).toEqualTypeOf<Promise<Product[]>>();
  expectTypeOf(db.get<Product>('products', { name: 'lamp' })).toEqualTypeOf<Promise<Product[]>>();
  expectTypeOf(db.insert<Product>('products', fresh)).toEqualTypeOf<Promise<Product>>();
  expectTypeOf(db.insert<Product>('products', { name: 'desk', price: '120.00', stock: 3 })).toEqualTypeOf<Promise<Product>>();
  expectTypeOf(db.update<Product>('products', { stock: 0 }, { name: 'desk' })).toEqualTypeOf<Promise<AffectedRows>>();
  expectTypeOf(db.updateOne<Product>('products', { stock: 2 }, { id: 1 })).toEqualTypeOf<Promise<Product | undefined>>();
  expectTypeOf(db.select<Product>('SELECT * FROM products')).toEqualTypeOf<Promise<Product[]>>();
  expectTypeOf(db.select<Pick<Product, 'name'>>('SELECT name FROM products WHERE stock > ?', [0])).toEqualTypeOf<Promise<Pick<Product, 'name'>[]>>();
  expectTypeOf(db.execute('UPDATE products SET stock = 0')).toEqualTypeOf<Promise<WriteResult>>();
  expectTypeOf(db.query<Product>('SELECT * FROM products')).toEqualTypeOf<Promise<Product[] | WriteResult>>();
  expectTypeOf(db.stream<Product>('SELECT * FROM products')).toEqualTypeOf<AsyncGenerator<Product, void, undefined>>();
  expectTypeOf(db.streamBatches<Product>('SELECT * FROM products')).toEqualTypeOf<AsyncGenerator<Product[], void, undefined>>();

  // Rows are usable without a cast.
  const [lamp] = await db.select<Product>('SELECT * FROM products WHERE name = ?', ['lamp']);
  expectTypeOf(lamp.price).toEqualTypeOf<string>();
  const stored = await db.insert<Product>('products', fresh);
  expectTypeOf(stored.id).toEqualTypeOf<number>();
  for await (const product of db.stream<Product>('SELECT * FROM products')) expectTypeOf(product.stock).toEqualTypeOf<number>();

  // query still answers either; Array.isArray tells them apart.
  const response = await db.query<Product>('SELECT * FROM products');
  if (Array.isArray(response)) expectTypeOf(response).toEqualTypeOf<Product[]>();
  else expectTypeOf(response).toEqualTypeOf<WriteResult>();
}

export function untypedCallsAreUnchanged(): void {
  expectTypeOf(db.read('products', { id: 1 })).toEqualTypeOf<Promise<Row[]>>();
  expectTypeOf(db.get('products', { id: 1 })).toEqualTypeOf<Promise<Row[]>>();
  // The row type is never inferred from the entry: without a type argument the answer is a Row.
  expectTypeOf(db.insert('products', { name: 'lamp' })).toEqualTypeOf<Promise<Row>>();
  expectTypeOf(db.updateOne('products', { stock: 1 }, { id: 1 })).toEqualTypeOf<Promise<Row | undefined>>();
  expectTypeOf(db.update('products', { stock: 1 }, { id: 1 })).toEqualTypeOf<Promise<AffectedRows>>();
  expectTypeOf(db.delete('products', { id: 1 })).toEqualTypeOf<Promise<AffectedRows>>();
  expectTypeOf(db.deleteOne('products', { id: 1 })).toEqualTypeOf<Promise<AffectedRows>>();
  expectTypeOf(db.query('SELECT 1')).toEqualTypeOf<Promise<Row[] | WriteResult>>();
  expectTypeOf(db.select('SELECT 1')).toEqualTypeOf<Promise<Row[]>>();
  expectTypeOf(db.stream('SELECT 1')).toEqualTypeOf<AsyncGenerator<Row, void, undefined>>();
  const loose: Row = { name: 'lamp' };
  expectTypeOf(db.insert<Product>('products', loose)).toEqualTypeOf<Promise<Product>>();
  expectTypeOf<Entry>().toEqualTypeOf<{ readonly [column: string]: unknown }>();
  expectTypeOf<RowFilter<Product>>().toEqualTypeOf<{ readonly id?: unknown; readonly name?: unknown; readonly price?: unknown; readonly stock?: unknown }>();
}

export function callbacksAreTypedLikeThePromises(): void {
  void db.read<Product>('products', { id: 1 }, (error, rows) => {
    expectTypeOf(error).toEqualTypeOf<Error | null>();
    expectTypeOf(rows).toEqualTypeOf<Product[] | undefined>();
  });
  void db.insert<Product>('products', fresh, (_error, row) => expectTypeOf(row).toEqualTypeOf<Product | undefined>());
  void db.updateOne<Product>('products', { stock: 1 }, { id: 1 }, (_error, row) => expectTypeOf(row).toEqualTypeOf<Product | undefined>());
  void db.select<Product>('SELECT * FROM products', (_error, rows) => expectTypeOf(rows).toEqualTypeOf<Product[] | undefined>());
  void db.select<Product>('SELECT * FROM products WHERE id = ?', [1], {}, (_error, rows) => expectTypeOf(rows).toEqualTypeOf<Product[] | undefined>());
  void db.execute('DELETE FROM products', [], (_error, result) => expectTypeOf(result).toEqualTypeOf<WriteResult | undefined>());
  void db.query<Product>('SELECT * FROM products', (_error, response) => expectTypeOf(response).toEqualTypeOf<Product[] | WriteResult | undefined>());
  const printRows: Callback<Product[]> = (_error, rows) => expectTypeOf(rows).toEqualTypeOf<Product[] | undefined>();
  void db.read<Product>('products', { id: 1 }, printRows);
  void db.get<Product>('products', { id: 1 }, printRows);
}

export async function mistakesDoNotCompile(): Promise<void> {
  // @ts-expect-error query may answer a write result, which is not an array of rows
  countRows(await db.query('UPDATE products SET stock = 0'));
  // @ts-expect-error execute answers { affectedRows, insertId? }, never rows
  countRows(await db.execute('SELECT * FROM products'));
  // @ts-expect-error a write result has no row columns
  expectTypeOf((await db.execute('UPDATE products SET stock = 0')).stock).toBeNumber();
  // @ts-expect-error updateOne answers undefined when no row matched
  expectTypeOf<Product>(await db.updateOne<Product>('products', { stock: 1 }, { id: 1 })).toEqualTypeOf<Product>();
  // @ts-expect-error a misspelt column in an entry
  await db.insert<Product>('products', { nmae: 'lamp' });
  // @ts-expect-error a misspelt column in update data
  await db.update<Product>('products', { stok: 0 }, { id: 1 });
  // @ts-expect-error a misspelt column in a filter
  await db.read<Product>('products', { nmae: 'lamp' });
  // @ts-expect-error a row type is an object type
  await db.select<number>('SELECT 1 AS one');
  // @ts-expect-error values of an untyped Row are unknown, not numbers
  expectTypeOf((await db.read('products', { id: 1 }))[0].id).toBeNumber();
  // @ts-expect-error the callback's rows must be the type argument's rows
  void db.read<Product>('products', { id: 1 }, (_error: Error | null, rows?: NewProduct[][]) => rows);
  // @ts-expect-error resources.get takes no type argument: the profile, not the code, says which class an id is
  $app.resources.get<SqlResource>('db');
}
