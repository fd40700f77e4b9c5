import { EventEmitter } from 'eventemitter3';
import { SessionExecutor } from './executors/session-executor';
import { currentRequestClaims, RequestSessions } from './request-claims';
import { integerOption, parseResourceConfig, type ResourceConfig, type ServerSettings } from './config';
import type { ServerFeatures, SqlDialect } from './dialect';
import { defaultStreamBatchSize, type AdapterHooks, type ColumnInfo, type DescribedStatement, type DriverAdapter, type Row, type StatementResult } from './driver-adapter';
import { SqlResourceError } from './errors';
import { queryArguments, settle, type Callback } from './callback';
import { isPlainObject } from './config';
import { parseOrder, type OrderInput } from './filters';
import { finiteCount } from './integers';
import { buildCappedCount, buildCountOf, buildDelete, buildEstimate, buildInsert, buildList, buildSelect, buildUpdate, splitTableName, type Entry, type Filter, type RowFilter } from './sql-builder';
import { Delivery, StatementPath } from './statement-path';
import type { QueryOptions, SqlResourceEvents } from './resource-events';
import type { Executor, Statement } from './statement';
import { Lifecycle } from './lifecycle';
import { StreamSlots } from './stream-slots';
import { TableCatalogue } from './table-catalogue';
import { affectedRowsOf, countAffected, countOne, countRows, firstRow, keyOfInsertedRow, notUnique, requireResultSet, rowsOf, same, storedForm, toQueryResponse, writeResultOf, type AffectedRows, type WriteResult } from './responses';

export type { QueryEvent } from './statement-path';
export type { QueryOptions, SqlResourceEvents } from './resource-events';
export type { AffectedRows, WriteResult } from './responses';

/** What `read` answers besides the filter: which columns, in which order, which page. */
export interface ReadOptions {
  /** The columns of each row (default: every column). */
  readonly columns?: readonly string[];
  /** PostgREST's syntax: `'created_at.desc,id'`, or a list of such terms. */
  readonly order?: OrderInput;
  /** At most this many rows. */
  readonly limit?: number;
  /** Rows skipped first (needs `limit`). */
  readonly offset?: number;
  /**
   * Keyset paging: the last row of the previous page; this page starts after it in `order`,
   * which must end in a unique column and hold only NOT NULL columns.
   */
  readonly after?: Row;
  /** Cancels the statement on the server when it aborts. */
  readonly signal?: AbortSignal;
}

export interface CountOptions {
  /**
   * Ask the planner instead of counting: the exact count when there are fewer than
   * `exactCountBelow` rows (counting so few costs little, and small counts are the ones seen),
   * else the planner's estimate (at least `exactCountBelow`).
   */
  readonly estimated?: boolean;
  readonly signal?: AbortSignal;
}

/** Below this estimate, an estimated count counts. */
export const exactCountBelow = 1000;

/** Either a filter or several, all of which must hold. */
export type Filters<T extends object = Record<string, unknown>> = RowFilter<T> | readonly RowFilter<T>[];

/** The `rowCount` of a call that answers one value. */
const one = (): number => 1;

function filtersOf(filter: unknown): readonly unknown[] {
  return Array.isArray(filter) ? filter : [filter];
}

/**
 * A database resource: configuration, lifecycle, the five methods and events, written once.
 * Kinds give their dialect and say how to build their driver adapter (and may add timers
 * around start/stop). Every statement runs through one `StatementPath`.
 */
export abstract class SqlResource extends EventEmitter<SqlResourceEvents> {
  readonly id: string;
  /** The dialect's family name: `mysql` or `postgres` (logs; code asks `dialect` instead). */
  readonly kind: string;
  /** How SQL is written for this resource; known before `start()`. */
  readonly dialect: SqlDialect;
  readonly config: ResourceConfig;
  /** Rows `stream`, `streamBatches` and the `list` endpoint read per batch (200 by default). */
  readonly streamBatchSize: number;
  /**
   * `requestClaims: true` (postgres): inside `withRequestClaims`, each statement runs in a
   * transaction that first hands the request's claims (and role) to the session.
   */
  readonly requestClaims: boolean;
  readonly #sessions?: RequestSessions;
  #adapter?: DriverAdapter;
  #features: ServerFeatures = { insertReturning: false };
  #slots?: StreamSlots;
  readonly #lifecycle: Lifecycle;
  readonly #path: StatementPath<DriverAdapter>;
  readonly #catalogue: TableCatalogue;

  constructor(id: string, config: unknown, dialect: SqlDialect, defaultPort: number) {
    super();
    this.id = id;
    this.kind = dialect.name;
    this.dialect = dialect;
    this.config = parseResourceConfig(id, config, defaultPort);
    this.streamBatchSize = integerOption(id, this.config.options, 'streamBatchSize', defaultStreamBatchSize, 1);
    this.#sessions = RequestSessions.of(id, this.config.options, dialect);
    this.requestClaims = this.#sessions !== undefined;
    const namespace = `sql-resources:${dialect.name}:${id}`;
    this.#path = new StatementPath({ sink: this, namespace, secret: this.config.server.password, errors: dialect.errors, executor: () => this.#executor() });
    this.#lifecycle = new Lifecycle(id);
    this.#catalogue = new TableCatalogue((table) => this.#readColumns(table), dialect.columnNamesIgnoreCase);
  }

  /** Builds the dialect's adapter; called by `start()`. */
  protected abstract createAdapter(server: ServerSettings, hooks: AdapterHooks): DriverAdapter;

  /** Runs after the pool proved itself; kinds start their timers here. */
  protected afterStart(): void {}

  /** Runs first in `stop()`; kinds clear their timers here. */
  protected beforeStop(): void {}

  protected get log(): StatementPath<DriverAdapter>['log'] {
    return this.#path.log;
  }

  get started(): boolean {
    return this.#lifecycle.started;
  }

  /** The adapter of a started resource: the pool every call runs on. */
  get adapter(): DriverAdapter {
    if (!this.#lifecycle.started || !this.#adapter) throw this.#lifecycle.notStarted();
    return this.#adapter;
  }

  /**
   * What a call runs on: the pool; for a resource with `requestClaims`, inside
   * `withRequestClaims`, the pool with the request's session statements first in each
   * statement's transaction. A stream takes it when its iteration starts.
   */
  #executor(): DriverAdapter {
    const adapter = this.adapter;
    const sessions = this.#sessions;
    if (sessions === undefined) return adapter;
    const claims = currentRequestClaims();
    return claims === undefined ? adapter : new SessionExecutor(adapter, sessions.statementsFor(claims));
  }

  start(callback?: Callback<void>): Promise<void> {
    return settle(this.#lifecycle.start(() => this.#open(), () => this.#opened()), callback, this.log, 'start');
  }

  async #open(): Promise<void> {
    const { server } = this.config;
    const adapter = this.createAdapter(server, { onPoolError: (error) => this.reportError('pool', error) });
    try {
      this.#features = await adapter.open();
    } catch (error) {
      await adapter.close().catch(() => undefined);
      const wrapped = this.#path.wrap(`connecting resource '${this.id}' to ${server.host}:${server.port}, database '${server.database}'`, error);
      this.log('start failed: %s', wrapped.message);
      throw wrapped;
    }
    this.#adapter = adapter;
    this.#catalogue.clear();
    this.#slots = new StreamSlots(this.id, adapter.poolSize, adapter.poolWait);
  }

  #opened(): void {
    const { host, port, database } = this.config.server;
    this.afterStart();
    this.log('connected to %s:%d/%s', host, port, database);
    this.emit('connect', { host, port, database });
  }

  /** Stops timers, waits for in-flight calls, closes the pool. A second call is harmless. */
  stop(callback?: Callback<void>): Promise<void> {
    return settle(this.#lifecycle.stop(() => this.#close()), callback, this.log, 'stop');
  }

  async #close(): Promise<void> {
    this.beforeStop();
    await this.#path.idle();
    const adapter = this.#adapter;
    this.#adapter = undefined;
    await adapter?.close().catch((error: unknown) => this.reportError('stop', error));
    this.log('stopped');
    this.emit('stop');
  }

  /** Reports a failure that belongs to no caller (pool, keep-alive): an event and a log line. */
  protected reportError(operation: string, error: unknown): void {
    const wrapped = this.#path.wrap(`${operation} of resource '${this.id}'`, error);
    this.log('%s', wrapped.message);
    this.emit('error', wrapped);
  }

  /** One `SELECT 1` through the statement path: resolves when the database answers (keep-alive, readiness). */
  ping(): Promise<void> {
    const statement: Statement = { sql: 'SELECT 1', values: [] };
    return this.#path.call({ operation: 'ping', work: (pool) => this.#path.run(pool, statement), respond: () => undefined, count: () => 0, delivery: Delivery.None });
  }

  /** Columns of a table from the database's catalogue, cached for the life of the pool. */
  columns(table: string): Promise<ColumnInfo[]> {
    return this.#catalogue.columns(table);
  }

  #readColumns(table: string): Promise<ColumnInfo[]> {
    const { schema, name } = splitTableName(table);
    const work = (pool: DriverAdapter): Promise<ColumnInfo[]> => this.#path.run(pool, pool.columnsStatement(schema, name)).then((result) => pool.columnsFrom(result.rows));
    return this.#path.call({ operation: 'describe', table, work, respond: same, count: (columns) => columns.length, delivery: Delivery.None });
  }

  /**
   * Prepares `sql` on the server without running it and answers the columns its result would
   * have (none for a statement that returns no rows). `sql` has the dialect's markers (`?`,
   * `$1`) where values go, as a compiled template's `sql`; no values are sent. The server's
   * error (syntax, unknown table or column) rejects as a call's does; `sql-resources check` runs it.
   */
  describe(sql: string): Promise<DescribedStatement> {
    const work = (pool: DriverAdapter): Promise<DescribedStatement> => {
      if (typeof sql !== 'string' || sql.trim() === '') throw new SqlResourceError('INVALID_ARGUMENT', 'describe needs SQL text');
      return pool.describe(sql);
    };
    return this.#path.call({ operation: 'describe', work, respond: same, count: (described) => described.columns.length, delivery: Delivery.None });
  }

  /** Rows for a statement that returns rows, `{ affectedRows, insertId? }` otherwise: `select` and `execute` say which in the type. */
  query<T extends object = Row>(sql: string, callback?: Callback<T[] | WriteResult>): Promise<T[] | WriteResult>;
  query<T extends object = Row>(sql: string, params: readonly unknown[], callback?: Callback<T[] | WriteResult>): Promise<T[] | WriteResult>;
  query<T extends object = Row>(sql: string, params: readonly unknown[], options: QueryOptions, callback?: Callback<T[] | WriteResult>): Promise<T[] | WriteResult>;
  query<T extends object = Row>(sql: string, paramsOrCallback?: unknown, optionsOrCallback?: unknown, callback?: Callback<T[] | WriteResult>): Promise<T[] | WriteResult> {
    return this.#statement('query', sql, paramsOrCallback, optionsOrCallback, callback, toQueryResponse<T>, countRows);
  }

  /**
   * A statement that returns rows, answered as `T[]`. One that returns none (a write) fails with
   * `INVALID_ARGUMENT` once it has run, so the promise never holds something else than rows.
   */
  select<T extends object = Row>(sql: string, callback?: Callback<T[]>): Promise<T[]>;
  select<T extends object = Row>(sql: string, params: readonly unknown[], callback?: Callback<T[]>): Promise<T[]>;
  select<T extends object = Row>(sql: string, params: readonly unknown[], options: QueryOptions, callback?: Callback<T[]>): Promise<T[]>;
  select<T extends object = Row>(sql: string, paramsOrCallback?: unknown, optionsOrCallback?: unknown, callback?: Callback<T[]>): Promise<T[]> {
    return this.#statement('select', sql, paramsOrCallback, optionsOrCallback, callback, rowsOf<T>, countRows, requireResultSet);
  }

  /** Any statement, answered as `{ affectedRows, insertId? }`; rows it returns are counted, not kept. */
  execute(sql: string, callback?: Callback<WriteResult>): Promise<WriteResult>;
  execute(sql: string, params: readonly unknown[], callback?: Callback<WriteResult>): Promise<WriteResult>;
  execute(sql: string, params: readonly unknown[], options: QueryOptions, callback?: Callback<WriteResult>): Promise<WriteResult>;
  execute(sql: string, paramsOrCallback?: unknown, optionsOrCallback?: unknown, callback?: Callback<WriteResult>): Promise<WriteResult> {
    return this.#statement('execute', sql, paramsOrCallback, optionsOrCallback, callback, writeResultOf, countAffected);
  }

  /** `query`, `select` and `execute`: the caller's SQL, answered by `respond`; `accept` may refuse its result first (within the call, so the event reports it). */
  #statement<T>(
    operation: string,
    sql: string,
    paramsOrCallback: unknown,
    optionsOrCallback: unknown,
    callback: Callback<T> | undefined,
    respond: (result: StatementResult) => T,
    count: (response: T) => number,
    accept?: (result: StatementResult) => StatementResult,
  ): Promise<T> {
    const call = queryArguments(sql, paramsOrCallback, optionsOrCallback, callback, operation);
    if (call.refused) return settle(Promise.reject(call.refused), call.callback, this.log, operation);
    const run = (pool: DriverAdapter): Promise<StatementResult> => this.#path.run(pool, { sql, values: call.values }, call.signal);
    const work = accept === undefined ? run : (pool: DriverAdapter): Promise<StatementResult> => run(pool).then(accept);
    return this.#path.call({ operation, work, respond, count, callback: call.callback, delivery: Delivery.Response });
  }

  /**
   * Runs a row-returning statement and yields its rows as they are read, with bounded memory.
   * Ending the iteration early (break, return) frees the connection.
   */
  async *stream<T extends object = Row>(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): AsyncGenerator<T, void, undefined> {
    for await (const batch of this.streamBatches<T>(sql, params, options)) yield* batch;
  }

  /**
   * `stream` a batch at a time: arrays of up to `streamBatchSize` rows, read from the database as
   * they are asked for. Cheaper per row than `stream`; the HTTP `list` endpoint uses it.
   */
  streamBatches<T extends object = Row>(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): AsyncGenerator<T[], void, undefined> {
    // The rows as the caller's type: a promise about the SQL, as for `select` (responses.ts, rowsOf).
    return this.#path.stream('stream', { sql, values: params }, { batchSize: this.streamBatchSize, signal: options.signal, admission: this.#slots }) as AsyncGenerator<T[], void, undefined>;
  }

  /**
   * Rows of `table` that `filter` selects. With options: only some columns, an order, a page;
   * `filter` may then be a list of filters that must all hold, and `{}` reads the whole table
   * once a `limit` bounds it.
   */
  read<T extends object = Row>(table: string, filter: RowFilter<NoInfer<T>>, callback?: Callback<T[]>): Promise<T[]>;
  read<T extends object = Row>(table: string, filter: Filters<NoInfer<T>>, options: ReadOptions, callback?: Callback<T[]>): Promise<T[]>;
  read<T extends object = Row>(table: string, filter: Filters<NoInfer<T>>, optionsOrCallback?: ReadOptions | Callback<T[]>, callback?: Callback<T[]>): Promise<T[]> {
    const options = typeof optionsOrCallback === 'function' ? undefined : optionsOrCallback;
    const deliverTo = typeof optionsOrCallback === 'function' ? optionsOrCallback : callback;
    const work =
      options === undefined
        ? (pool: DriverAdapter): Promise<StatementResult> => this.#path.run(pool, this.#catalogue.typed(table, (typed) => buildSelect(this.dialect, table, typed.filter(filter as Filter))))
        : async (pool: DriverAdapter): Promise<StatementResult> => {
            if (options.limit === undefined && filtersOf(filter).every((one) => isPlainObject(one) && Object.keys(one).length === 0)) {
              throw new SqlResourceError('INVALID_FILTER', 'filter must not be empty without a limit (no unbounded whole-table read)');
            }
            return this.#path.run(pool, await this.selectStatement(table, filter, options), options.signal);
          };
    return this.#path.call({ operation: 'read', table, work, respond: rowsOf<T>, count: countRows, callback: deliverTo, delivery: Delivery.Response });
  }

  /**
   * The SELECT that `read` runs for these filters and options, checked against the catalogue and
   * built, without running it: an empty filter reads every row. The list endpoints run it paged
   * or streamed.
   */
  selectStatement(table: string, filter: Filters, options: ReadOptions = {}): Promise<Statement> {
    const { columns, order, limit, offset, after } = options;
    const terms = order === undefined ? undefined : parseOrder(order);
    return Promise.resolve(
      this.#catalogue.typed(table, (typed) => buildList(this.dialect, table, filtersOf(filter).map((one) => typed.filter(one as Filter)), typed.list({ columns, order: terms, limit, offset, after }))),
    );
  }

  /** How many rows of `table` `filter` selects: counted, or estimated by the planner (`CountOptions`). */
  count(table: string, filter: Filters, options: CountOptions = {}, callback?: Callback<number>): Promise<number> {
    const work = async (pool: DriverAdapter): Promise<number> => this.#countRows(pool, await this.selectStatement(table, filter), options);
    return this.#path.call({ operation: 'count', table, work, respond: same, count: one, callback, delivery: Delivery.Response });
  }

  /** How many rows a row-returning statement answers: counted, or estimated (`CountOptions`). */
  countQuery(sql: string, params: readonly unknown[] = [], options: CountOptions = {}, callback?: Callback<number>): Promise<number> {
    const work = (pool: DriverAdapter): Promise<number> => this.#countRows(pool, { sql, values: params }, options);
    return this.#path.call({ operation: 'count', work, respond: same, count: one, callback, delivery: Delivery.Response });
  }

  async #countRows(pool: DriverAdapter, statement: Statement, options: CountOptions): Promise<number> {
    const counted = async (count: Statement): Promise<number> => finiteCount((await this.#path.run(pool, count, options.signal)).rows[0]?.count) ?? 0;
    if (options.estimated !== true) return counted(buildCountOf(statement));
    // The planner's estimate of a table never analyzed can be far off: few rows are counted, always.
    const few = await counted(buildCappedCount(statement, exactCountBelow));
    if (few < exactCountBelow) return few;
    const estimate = this.dialect.estimatedRows((await this.#path.run(pool, buildEstimate(this.dialect, statement), options.signal)).rows);
    return Math.max(estimate ?? exactCountBelow, exactCountBelow);
  }

  /** Alias of `read`, as one sample of the reference engine's docs calls it. */
  get<T extends object = Row>(table: string, filter: RowFilter<NoInfer<T>>, callback?: Callback<T[]>): Promise<T[]> {
    return this.read<T>(table, filter, callback);
  }

  insert<T extends object = Row>(table: string, entry: Entry<NoInfer<T>>, callback?: Callback<T>): Promise<T> {
    const work = (pool: DriverAdapter): Promise<StatementResult> => {
      if (this.#features.insertReturning) return this.#path.run(pool, this.#catalogue.typed(table, (typed) => buildInsert(this.dialect, table, typed.entry(entry), true)));
      return Promise.resolve(this.#catalogue.typed(table, (typed) => typed.entry(entry))).then((checked) => this.#insertAndReadBack(pool, table, checked));
    };
    return this.#path.call({ operation: 'insert', table, work, respond: firstRow<T>, count: countOne, callback, delivery: Delivery.Response });
  }

  /** Without RETURNING (MySQL, MariaDB < 10.5): inserts, then reads the row back by its primary key. */
  async #insertAndReadBack(pool: Executor, table: string, entry: Row): Promise<StatementResult> {
    const inserted = await this.#path.run(pool, buildInsert(this.dialect, table, entry, false));
    const key = keyOfInsertedRow(await this.columns(table), entry, inserted.insertId);
    const stored = storedForm(entry);
    const rows = (await this.#path.run(pool, buildSelect(this.dialect, table, key ?? stored))).rows;
    return { rows: [rows[rows.length - 1] ?? stored], hasResultSet: true, affectedRows: inserted.affectedRows };
  }

  update<T extends object = Row>(table: string, data: Entry<NoInfer<T>>, filter: RowFilter<NoInfer<T>>, callback?: Callback<AffectedRows>): Promise<AffectedRows> {
    const work = (pool: DriverAdapter): Promise<StatementResult> =>
      this.#path.run(pool, this.#catalogue.typed(table, (typed) => buildUpdate(this.dialect, table, typed.entry(data), typed.filter(filter))));
    return this.#path.call({ operation: 'update', table, work, respond: affectedRowsOf, count: countAffected, callback, delivery: Delivery.Response });
  }

  delete(table: string, filter: Filter, callback?: (error: Error | null) => void): Promise<AffectedRows> {
    const work = (pool: DriverAdapter): Promise<StatementResult> =>
      this.#path.run(pool, this.#catalogue.typed(table, (typed) => buildDelete(this.dialect, table, typed.filter(filter))));
    const deliverTo = callback as Callback<AffectedRows> | undefined;
    return this.#path.call({ operation: 'delete', table, work, respond: affectedRowsOf, count: countAffected, callback: deliverTo, delivery: Delivery.ErrorOnly });
  }

  /**
   * Updates the one row `filter` names, in a transaction: when the filter matches more than one
   * row, nothing changes and the call fails with `NOT_UNIQUE` (409). Answers the row as written
   * (RETURNING, or read back in the same transaction by the key it now has), or `undefined`
   * when no row matched. The update endpoint runs on it.
   */
  updateOne<T extends object = Row>(table: string, data: Entry<NoInfer<T>>, filter: RowFilter<NoInfer<T>>, callback?: Callback<T | undefined>): Promise<T | undefined> {
    const returning = this.dialect.supportsUpdateReturning;
    const work = async (pool: DriverAdapter): Promise<T | undefined> => {
      const { values, key, readBack } = await this.#catalogue.typed(table, (typed) => {
        const typedKey = typed.filter(filter);
        return { values: typed.entry(data), key: typedKey, readBack: typed.keyAfter(data, typedKey) };
      });
      return pool.transaction(async (transaction) => {
        const result = await this.#path.run(transaction, buildUpdate(this.dialect, table, values, key, returning));
        const matched = returning ? result.rows.length : result.affectedRows;
        if (matched > 1) throw notUnique('update', table, matched);
        if (matched === 0) return undefined;
        return firstRow<T>(returning ? result : await this.#path.run(transaction, buildSelect(this.dialect, table, readBack)));
      });
    };
    return this.#path.call({ operation: 'updateOne', table, work, respond: same, count: countOne, callback, delivery: Delivery.Response });
  }

  /**
   * Deletes the one row `filter` names, in a transaction: when it matches more than one row,
   * nothing is deleted and the call fails with `NOT_UNIQUE` (409). The delete endpoint runs on it.
   */
  deleteOne(table: string, filter: Filter, callback?: Callback<AffectedRows>): Promise<AffectedRows> {
    const work = async (pool: DriverAdapter): Promise<AffectedRows> => {
      const key = await this.#catalogue.typed(table, (typed) => typed.filter(filter));
      return pool.transaction(async (transaction) => {
        const { affectedRows } = await this.#path.run(transaction, buildDelete(this.dialect, table, key));
        if (affectedRows > 1) throw notUnique('delete', table, affectedRows);
        return { affectedRows };
      });
    };
    return this.#path.call({ operation: 'deleteOne', table, work, respond: same, count: countAffected, callback, delivery: Delivery.Response });
  }
}
