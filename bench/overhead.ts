import type { ServerSettings } from '../src/config';
import type { AdapterHooks, ColumnInfo, DescribedStatement, DriverAdapter, Row, StatementResult } from '../src/driver-adapter';
import type { ServerFeatures } from '../src/dialect';
import { mysqlDialect } from '../src/dialects';
import type { Executor, Statement } from '../src/statement';
import { SqlResource } from '../src/sql-resource';
import { round } from './stats';

/**
 * The resource layer's own cost per call, without a database: a resource over a stub driver
 * whose statements complete on the next turn of the event loop, against calling the stub
 * directly. Free of network and server noise, it tells what the layer adds to every call
 * (validation, SQL building, events, in-flight tracking, callbacks) in microseconds of CPU.
 */
const row = { id: 1, name: 'stub', qty: 1, price: '9.99', note: null, created_at: new Date(0) };
const readResult: StatementResult = { rows: [row], hasResultSet: true, affectedRows: 1 };
/** The columns of `bench_items` as the catalogue describes them, so typed binding is measured. */
const benchColumns: ColumnInfo[] = [
  { name: 'id', primaryKey: true, generated: true, type: 'integer', unique: true, nullable: false },
  { name: 'name', primaryKey: false, generated: false, type: 'text', unique: false, nullable: true },
  { name: 'qty', primaryKey: false, generated: false, type: 'integer', unique: false, nullable: true },
  { name: 'price', primaryKey: false, generated: false, type: 'number', unique: false, nullable: true },
  { name: 'note', primaryKey: false, generated: false, type: 'text', unique: false, nullable: true },
  { name: 'created_at', primaryKey: false, generated: false, type: 'other', unique: false, nullable: true },
];

/**
 * The stub driver. `stream` yields `streamRows` rows in batches of the size asked for, all of
 * them the one preallocated `row` in one preallocated array per batch size (reused from batch
 * to batch), so a stream's rows and batches cost no allocation: what a consumer of it allocates
 * is the iteration itself (bench/stream-allocation.ts measures that).
 */
export class StubAdapter implements DriverAdapter {
  readonly poolSize = 10;
  readonly poolWait = {};
  /** Rows each `stream` yields. */
  streamRows = 100_000;
  readonly #batches = new Map<number, Row[]>();
  async open(): Promise<ServerFeatures> {
    return { insertReturning: true };
  }
  run(): Promise<StatementResult> {
    return new Promise((resolve) => setImmediate(resolve, readResult));
  }
  async *stream(_sql: string, _values: readonly unknown[], batchSize: number): AsyncGenerator<Row[], void, undefined> {
    let batch = this.#batches.get(batchSize);
    if (batch === undefined) this.#batches.set(batchSize, (batch = new Array<Row>(batchSize).fill(row)));
    let left = this.streamRows;
    for (; left >= batchSize; left -= batchSize) yield batch;
    if (left > 0) yield batch.slice(0, left);
  }
  transaction<T>(work: (executor: Executor) => Promise<T>): Promise<T> {
    return work(this);
  }
  columnsStatement(): Statement {
    return { sql: 'columns', values: [] };
  }
  columnsFrom(): ColumnInfo[] {
    return benchColumns;
  }
  async describe(): Promise<DescribedStatement> {
    return { columns: [] };
  }
  async close(): Promise<void> {}
}

export class StubResource extends SqlResource {
  constructor() {
    super('stub', { _class: 'stub', server: { host: 'stub', database: 'stub' } }, mysqlDialect, 1);
  }
  protected createAdapter(_server: ServerSettings, _hooks: AdapterHooks): DriverAdapter {
    return new StubAdapter();
  }
}

export interface OverheadResult {
  method: string;
  /** CPU per call through the resource, minus CPU per direct call of the stub. */
  addedMicros: number;
  resourceMicros: number;
  stubMicros: number;
}

/** CPU µs per call of `op`, over `calls` calls from 32 callers. */
async function cpuPerCall(op: () => Promise<unknown>, calls: number): Promise<number> {
  let left = calls;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (left-- > 0) await op();
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

export async function benchOverhead(calls = 100_000, repeats = 5): Promise<OverheadResult[]> {
  const resource = new StubResource();
  await resource.start();
  const stub = resource.adapter;
  let serial = 0;
  const methods: [string, () => Promise<unknown>][] = [
    ['read', () => resource.read('bench_items', { id: ++serial })],
    ['insert', () => resource.insert('bench_items', { name: `ins-${++serial}`, qty: serial % 97, price: 9.99, note: 'inserted by the bench' })],
    ['update', () => resource.update('bench_items', { qty: ++serial % 97 }, { id: serial })],
    ['delete', () => resource.delete('bench_items', { id: ++serial })],
    ['query', () => resource.query('SELECT * FROM bench_items WHERE id BETWEEN ? AND ?', [++serial, serial + 99])],
  ];
  const results: OverheadResult[] = [];
  try {
    for (const [method, op] of methods) {
      // Interleaved like part 1: stub, resource, stub, resource…; the best of each side.
      let stubMicros = Infinity;
      let resourceMicros = Infinity;
      for (let pass = 0; pass < repeats; pass++) {
        stubMicros = Math.min(stubMicros, await cpuPerCall(() => stub.run('SELECT 1', [serial]), calls));
        resourceMicros = Math.min(resourceMicros, await cpuPerCall(op, calls));
      }
      results.push({
        method,
        addedMicros: round(resourceMicros - stubMicros, 2),
        resourceMicros: round(resourceMicros, 2),
        stubMicros: round(stubMicros, 2),
      });
    }
    return results;
  } finally {
    await resource.stop();
  }
}
