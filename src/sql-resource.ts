import createDebug, { type Debugger } from 'debug';
import { EventEmitter } from 'eventemitter3';
import { integerOption, parseResourceConfig, type ResourceConfig, type ServerSettings } from './config';
import { defaultStreamBatchSize, type AdapterHooks, type ColumnInfo, type DriverAdapter, type Row, type StatementResult, type StatementRunner } from './driver-adapter';
import { SqlResourceError, fromDriverError, redact } from './errors';
import { callerGone } from './cancellation';
import { isPlainObject } from './config';
import { callbackOf, deliver, settle, type Callback } from './callback';
import { buildDelete, buildInsert, buildSelect, buildUpdate, splitTableName, toStoredValue, type Filter, type Statement } from './sql-builder';
import { tableShape, typedEntry, typedFilter, writtenKey, type TableShape } from './values';

export interface QueryEvent {
  operation: string;
  table?: string;
  durationMs: number;
  rowCount: number;
  error?: SqlResourceError;
}

export interface SqlResourceEvents {
  connect: (info: { host: string; port: number; database: string }) => void;
  query: (event: QueryEvent) => void;
  error: (error: SqlResourceError) => void;
  stop: () => void;
}

/** What `query` answers for a statement that returns no rows. */
export interface WriteResult {
  affectedRows: number;
  insertId?: number | string;
}

export interface AffectedRows {
  affectedRows: number;
}

/** Options of `query`, `stream` and `streamBatches`. */
export interface QueryOptions {
  /** When it aborts (the HTTP client left), the statement is cancelled on the server. */
  signal?: AbortSignal;
}

type State = 'new' | 'starting' | 'started' | 'stopping' | 'stopped';

/** What a method's outcome goes to besides its promise. */
const enum Delivery {
  /** Nothing: internal calls (`columns`), whose callers handle the promise. */
  None,
  /** The callback gets `(error)` or `(null, response)`; without one, the outcome is logged. */
  Response,
  /** The callback gets `(error)` or `(null)`: `delete`. */
  ErrorOnly,
}

/**
 * A database resource: configuration, lifecycle, the five methods and events, written once.
 * Kinds only say how to build their driver adapter (and may add timers around start/stop).
 */
export abstract class SqlResource extends EventEmitter<SqlResourceEvents> {
  readonly id: string;
  /** The `_class` family: `mysql` or `postgres` for the built-in kinds (and their SQL dialect). */
  readonly kind: string;
  readonly config: ResourceConfig;
  /** Rows `stream`, `streamBatches` and the `list` endpoint read per batch (200 by default). */
  readonly streamBatchSize: number;
  protected readonly log: Debugger;
  readonly #logSql: Debugger;
  readonly #logParams: Debugger;
  #adapter?: DriverAdapter;
  #state: State = 'new';
  #starting?: Promise<void>;
  #stopping?: Promise<void>;
  /**
   * Calls and streams not settled yet; `stop()` waits for none to be left. A count, not a Set
   * of their promises: adding and deleting a promise per call made young-generation GCs keep
   * copying recent results (measured: twice the CPU per `query` of 100 rows at 32 callers).
   */
  #inFlight = 0;
  #whenIdle: (() => void)[] = [];
  readonly #columns = new Map<string, Promise<ColumnInfo[]>>();
  /**
   * Streams may hold at most the pool's size less two connections, so point reads and writes
   * always find one however many slow readers a list has (they wait here, not in the pool).
   */
  #streamSlots = 0;
  #streamWaiters: (() => void)[] = [];
  /** Tables whose columns have arrived, for binding without waiting a turn. */
  readonly #tables = new Map<string, TableShape>();
  /** When each table's columns were last read again because a call named a column they lack. */
  readonly #refreshedAt = new Map<string, number>();

  constructor(id: string, config: unknown, kind: string, defaultPort: number) {
    super();
    this.id = id;
    this.kind = kind;
    this.config = parseResourceConfig(id, config, defaultPort);
    this.streamBatchSize = integerOption(id, this.config.options, 'streamBatchSize', defaultStreamBatchSize, 1);
    this.log = createDebug(`sql-resources:${kind}:${id}`);
    this.#logSql = createDebug(`sql-resources:${kind}:${id}:sql`);
    this.#logParams = createDebug(`sql-resources:${kind}:${id}:params`);
  }

  /** Builds the dialect's adapter; called by `start()`. */
  protected abstract createAdapter(server: ServerSettings, hooks: AdapterHooks): DriverAdapter;

  /** Runs after the pool proved itself; kinds start their timers here. */
  protected afterStart(): void {}

  /** Runs first in `stop()`; kinds clear their timers here. */
  protected beforeStop(): void {}

  get started(): boolean {
    return this.#state === 'started';
  }

  /** The adapter of a started resource (for the host's endpoints and the kinds' timers). */
  get adapter(): DriverAdapter {
    if (this.#state !== 'started' || !this.#adapter) {
      throw new SqlResourceError('NOT_STARTED', `resource '${this.id}' is ${this.#state === 'new' ? 'not started' : this.#state}`);
    }
    return this.#adapter;
  }

  start(callback?: Callback<void>): Promise<void> {
    if (this.#state === 'started') return settle(Promise.resolve(), callback, this.log, 'start');
    if (this.#state === 'starting' && this.#starting) return settle(this.#starting, callback, this.log, 'start');
    if (this.#state === 'stopping') {
      return settle(Promise.reject(new SqlResourceError('NOT_STARTED', `resource '${this.id}' is stopping`)), callback, this.log, 'start');
    }
    this.#state = 'starting';
    this.#stopping = undefined;
    this.#starting = this.#open();
    return settle(this.#starting, callback, this.log, 'start');
  }

  async #open(): Promise<void> {
    const { server } = this.config;
    const adapter = this.createAdapter(server, { onPoolError: (error) => this.reportError('pool', error) });
    try {
      await adapter.open();
    } catch (error) {
      this.#state = 'new';
      await adapter.close().catch(() => undefined);
      const where = `${server.host}:${server.port}, database '${server.database}'`;
      const wrapped = fromDriverError(`connecting resource '${this.id}' to ${where}`, error, server.password);
      this.log('start failed: %s', wrapped.message);
      throw wrapped;
    }
    this.#adapter = adapter;
    this.#columns.clear();
    this.#tables.clear();
    // A pool of one or two is too small to keep any back (tests, development): streams may take it all.
    this.#streamSlots = adapter.poolSize > 2 ? adapter.poolSize - 2 : Math.max(1, adapter.poolSize);
    this.#state = 'started';
    this.afterStart();
    this.log('connected to %s:%d/%s', server.host, server.port, server.database);
    this.emit('connect', { host: server.host, port: server.port, database: server.database });
  }

  /** Stops timers, waits for in-flight calls, closes the pool. A second call is harmless. */
  stop(callback?: Callback<void>): Promise<void> {
    if (!this.#stopping) this.#stopping = this.#close();
    return settle(this.#stopping, callback, this.log, 'stop');
  }

  async #close(): Promise<void> {
    if (this.#state === 'starting') await this.#starting?.catch(() => undefined);
    const adapter = this.#adapter;
    this.#state = 'stopping';
    this.beforeStop();
    if (this.#inFlight > 0) await new Promise<void>((resolve) => this.#whenIdle.push(resolve));
    this.#adapter = undefined;
    await adapter?.close().catch((error: unknown) => this.reportError('stop', error));
    this.#state = 'stopped';
    this.log('stopped');
    this.emit('stop');
  }

  /** Reports a failure that belongs to no caller (pool, keep-alive): an event and a log line. */
  protected reportError(operation: string, error: unknown): void {
    const wrapped = fromDriverError(`${operation} of resource '${this.id}'`, error, this.config.server.password);
    this.log('%s', wrapped.message);
    this.emit('error', wrapped);
  }

  /**
   * Runs one statement as operation `operation`: tracked for `stop()`, timed for the
   * `query` event, driver errors mapped to the catalogue.
   */
  protected execute<T>(operation: string, table: string | undefined, work: (adapter: DriverAdapter) => Promise<T>, count: (result: T) => number): Promise<T> {
    return this.#execute(operation, table, work, same, count, undefined, Delivery.None);
  }

  /**
   * `execute` for the methods: `shape` turns the work's result into the response, and the
   * callback (or the default that logs) gets the outcome, in the same promise reaction. The
   * promise returned is marked handled only when it rejects, so a successful call costs one
   * reaction on the driver's promise besides the caller's own.
   */
  #execute<R, T>(
    operation: string,
    table: string | undefined,
    work: (adapter: DriverAdapter) => Promise<R>,
    shape: (result: R) => T,
    count: (response: T) => number,
    callback: Callback<T> | undefined,
    delivery: Delivery,
  ): Promise<T> {
    let adapter: DriverAdapter;
    try {
      adapter = this.adapter;
    } catch (error) {
      const refused = Promise.reject(error);
      return delivery === Delivery.None ? refused : settle(refused, callback, this.log, operation, delivery === Delivery.ErrorOnly);
    }
    const startedAt = performance.now();
    let pending: Promise<R>;
    try {
      pending = work(adapter);
    } catch (error) {
      pending = Promise.reject(error);
    }
    this.#inFlight++;
    const promise: Promise<T> = pending.then(
      (result): T => {
        this.#settled();
        let response: T;
        try {
          response = shape(result);
          // The event object is only built for someone to hear it.
          if (this.listenerCount('query') > 0) {
            this.emit('query', { operation, table, durationMs: performance.now() - startedAt, rowCount: count(response) });
          }
        } catch (error) {
          return this.#fail(promise, operation, callback, delivery, error);
        }
        if (delivery !== Delivery.None) deliver(callback, this.log, operation, delivery === Delivery.ErrorOnly, false, response);
        return response;
      },
      (error: unknown): never => {
        this.#settled();
        const wrapped = fromDriverError(table === undefined ? operation : `${operation} on ${table}`, error, this.config.server.password);
        try {
          if (this.listenerCount('query') > 0) {
            this.emit('query', { operation, table, durationMs: performance.now() - startedAt, rowCount: 0, error: wrapped });
          }
        } catch (listenerError) {
          return this.#fail(promise, operation, callback, delivery, listenerError);
        }
        return this.#fail(promise, operation, callback, delivery, wrapped);
      },
    );
    return promise;
  }

  /** Rejects a method's promise with `error`, after handing it to the callback (or the log). */
  #fail<T>(promise: Promise<T>, operation: string, callback: Callback<T> | undefined, delivery: Delivery, error: unknown): never {
    if (delivery !== Delivery.None) {
      // Marked handled before it rejects: a caller that only uses the callback sees no unhandled rejection.
      promise.catch(ignore);
      deliver(callback, this.log, operation, delivery === Delivery.ErrorOnly, true, error);
    }
    throw error;
  }

  /** One call or stream settled; wakes `stop()` when it was the last. */
  readonly #settled = (): void => {
    if (--this.#inFlight > 0 || this.#whenIdle.length === 0) return;
    const waiting = this.#whenIdle;
    this.#whenIdle = [];
    for (const resolve of waiting) resolve();
  };

  /** Runs a statement built at once, or once the catalogue has answered: no extra turn when known. */
  #runBuilt(adapter: DriverAdapter, statement: Statement | Promise<Statement>): Promise<StatementResult> {
    return statement instanceof Promise ? statement.then((built) => this.run(adapter, built)) : this.run(adapter, statement);
  }

  protected run(adapter: DriverAdapter, statement: Statement, signal?: AbortSignal): Promise<StatementResult> {
    this.#trace(statement.sql, statement.params);
    return adapter.run(statement.sql, statement.params, signal);
  }

  /** The `:sql` and `:params` debug lines of a statement about to run. */
  #trace(sql: string, params: readonly unknown[]): void {
    if (this.#logSql.enabled) this.#logSql('%s', sql);
    if (this.#logParams.enabled) this.#logParams('%o', redactParams(params, this.config.server.password));
  }

  /** Columns of a table from the database's catalogue, cached for the life of the pool. */
  columns(table: string): Promise<ColumnInfo[]> {
    let cached = this.#columns.get(table);
    if (!cached) {
      const { schema, name } = splitTableName(table);
      const reading = this.execute('describe', table, (adapter) => adapter.describeTable(schema, name), (columns) => columns.length);
      cached = reading;
      reading.then(
        (columns) => {
          if (this.#columns.get(table) !== reading) return;
          // A table not there yet is asked again next time: one created later gets typed binding too.
          if (columns.length === 0) this.#columns.delete(table);
          else this.#tables.set(table, tableShape(columns, this.#adapter?.columnNamesIgnoreCase === true));
        },
        () => this.#columns.delete(table),
      );
      this.#columns.set(table, cached);
    }
    return cached;
  }

  /**
   * The catalogue's shape of `table` for typed binding: at once when known, else after one
   * read of the catalogue. Undefined for a table the catalogue does not know (the statement
   * then fails as the database says) or a name that is not a string (the builder refuses it).
   */
  #tableShape(table: unknown): TableShape | Promise<TableShape | undefined> | undefined {
    if (typeof table !== 'string') return undefined;
    const known = this.#tables.get(table);
    if (known !== undefined) return known;
    // columns() files the shape in #tables before this reaction runs.
    return this.columns(table).then((columns) => (columns.length > 0 ? this.#tables.get(table) : undefined));
  }

  /**
   * Runs `bind` with the table's shape; when it refuses a column the cached catalogue does not
   * hold, reads the catalogue again (at most once a second per table: a column added by
   * ALTER TABLE is then known) and tries once more.
   */
  #withShape<T>(table: unknown, bind: (shape: TableShape | undefined) => T): T | Promise<T> {
    const shape = this.#tableShape(table);
    const attempt = (known: TableShape | undefined): T | Promise<T> => {
      try {
        return bind(known);
      } catch (error) {
        const now = Date.now();
        const last = this.#refreshedAt.get(table as string) ?? 0;
        if (!(error instanceof SqlResourceError) || error.code !== 'UNKNOWN_COLUMN' || now - last < 1000) throw error;
        this.#refreshedAt.set(table as string, now);
        this.#columns.delete(table as string);
        this.#tables.delete(table as string);
        const again = this.#tableShape(table);
        return again instanceof Promise ? again.then(bind) : bind(again);
      }
    };
    return shape instanceof Promise ? shape.then(attempt) : attempt(shape);
  }

  query(sql: string, callback?: Callback<Row[] | WriteResult>): Promise<Row[] | WriteResult>;
  query(sql: string, params: readonly unknown[], callback?: Callback<Row[] | WriteResult>): Promise<Row[] | WriteResult>;
  query(sql: string, params: readonly unknown[], options: QueryOptions, callback?: Callback<Row[] | WriteResult>): Promise<Row[] | WriteResult>;
  query(sql: string, paramsOrCallback?: unknown, optionsOrCallback?: unknown, callback?: Callback<Row[] | WriteResult>): Promise<Row[] | WriteResult> {
    const cb = callback ?? callbackOf<Row[] | WriteResult>(optionsOrCallback) ?? callbackOf<Row[] | WriteResult>(paramsOrCallback);
    const params = Array.isArray(paramsOrCallback) ? paramsOrCallback : [];
    const signal = isPlainObject(optionsOrCallback) ? (optionsOrCallback as QueryOptions).signal : undefined;
    const undefinedAt = params.indexOf(undefined);
    const promise =
      typeof sql !== 'string' || sql.trim() === ''
        ? Promise.reject(new SqlResourceError('INVALID_ARGUMENT', 'query needs SQL text'))
        : undefinedAt >= 0
          ? Promise.reject(new SqlResourceError('INVALID_ARGUMENT', `query parameter ${undefinedAt + 1} is undefined (use null for SQL NULL)`))
          : undefined;
    if (promise) return settle(promise, cb, this.log, 'query');
    return this.#execute('query', undefined, (adapter) => this.run(adapter, { sql, params }, signal), toQueryResponse, countRows, cb, Delivery.Response);
  }

  /**
   * Runs a row-returning statement and yields its rows as they are read, with bounded memory.
   * Ending the iteration early (break, return) frees the connection.
   */
  async *stream(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): AsyncGenerator<Row, void, undefined> {
    for await (const batch of this.streamBatches(sql, params, options)) yield* batch;
  }

  /**
   * `stream` a batch at a time: arrays of up to `streamBatchSize` rows, read from the database as
   * they are asked for. Cheaper per row than `stream`; the HTTP `list` endpoint uses it.
   */
  async *streamBatches(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): AsyncGenerator<Row[], void, undefined> {
    const adapter = this.adapter;
    const startedAt = performance.now();
    this.#inFlight++;
    let rowCount = 0;
    let holdsSlot = false;
    try {
      await this.#takeStreamSlot(options.signal);
      holdsSlot = true;
      this.#trace(sql, params);
      for await (const batch of adapter.stream(sql, params, this.streamBatchSize, options.signal)) {
        rowCount += batch.length;
        yield batch;
      }
      this.emit('query', { operation: 'stream', durationMs: performance.now() - startedAt, rowCount });
    } catch (error) {
      const wrapped = fromDriverError('query', error, this.config.server.password);
      this.emit('query', { operation: 'stream', durationMs: performance.now() - startedAt, rowCount, error: wrapped });
      throw wrapped;
    } finally {
      if (holdsSlot) this.#giveStreamSlot();
      this.#settled();
    }
  }

  /** A stream slot, waited for within the pool's own wait limits (the wait for a connection moved here). */
  #takeStreamSlot(signal: AbortSignal | undefined): Promise<void> | void {
    if (this.#streamSlots > 0) {
      this.#streamSlots--;
      return;
    }
    if (signal?.aborted) throw callerGone();
    const { timeoutMs, maxWaiting } = this.adapter.poolWait;
    if (maxWaiting !== undefined && this.#streamWaiters.length >= maxWaiting) throw poolExhausted(this.id, 'its wait queue is full');
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (error: Error): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        this.#streamWaiters = this.#streamWaiters.filter((waiter) => waiter !== granted);
        reject(error);
      };
      const granted = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        resolve();
      };
      const gone = (): void => leave(callerGone());
      if (timeoutMs !== undefined) timer = setTimeout(() => leave(poolExhausted(this.id, `no connection for a stream within ${timeoutMs} ms`)), timeoutMs);
      signal?.addEventListener('abort', gone, { once: true });
      this.#streamWaiters.push(granted);
    });
  }

  #giveStreamSlot(): void {
    const next = this.#streamWaiters.shift();
    if (next) next();
    else this.#streamSlots++;
  }

  read(table: string, filter: Filter, callback?: Callback<Row[]>): Promise<Row[]> {
    const work = (adapter: DriverAdapter): Promise<StatementResult> =>
      this.#runBuilt(adapter, this.#withShape(table, (shape) => buildSelect(adapter, table, shape ? typedFilter(shape, table, filter) : filter)));
    return this.#execute('read', table, work, rowsOf, countRows, callback, Delivery.Response);
  }

  /** Alias of `read`, as one sample of the reference engine's docs calls it. */
  get(table: string, filter: Filter, callback?: Callback<Row[]>): Promise<Row[]> {
    return this.read(table, filter, callback);
  }

  insert(table: string, entry: Row, callback?: Callback<Row>): Promise<Row> {
    const work = (adapter: DriverAdapter): Promise<StatementResult> => {
      if (!adapter.supportsReturning) {
        return Promise.resolve(this.#withShape(table, (shape) => (shape ? typedEntry(shape, table, entry) : entry))).then((typed) =>
          this.#insertAndReadBack(adapter, table, typed),
        );
      }
      return this.#runBuilt(adapter, this.#withShape(table, (shape) => buildInsert(adapter, table, shape ? typedEntry(shape, table, entry) : entry)));
    };
    return this.#execute('insert', table, work, firstRow, one, callback, Delivery.Response);
  }

  /** Without RETURNING (MySQL): inserts, then reads the row back by its primary key. */
  async #insertAndReadBack(adapter: DriverAdapter, table: string, entry: Row): Promise<StatementResult> {
    const result = await this.run(adapter, buildInsert(adapter, table, entry));
    const key = await this.#keyOfInsertedRow(table, entry, result.insertId);
    const stored = storedForm(entry);
    const rows = (await this.run(adapter, buildSelect(adapter, table, key ?? stored))).rows;
    return { rows: [rows[rows.length - 1] ?? stored], hasResultSet: true, affectedRows: result.affectedRows };
  }

  /** The primary key of the row just inserted, when the entry or the insert id gives all of it. */
  async #keyOfInsertedRow(table: string, entry: Row, insertId: number | string | undefined): Promise<Filter | undefined> {
    const primary = (await this.columns(table)).filter((column) => column.primaryKey);
    const key: Filter = {};
    for (const column of primary) {
      if (entry[column.name] !== undefined) key[column.name] = toStoredValue(entry[column.name]);
      else if (column.generated && insertId !== undefined) key[column.name] = insertId;
    }
    return primary.length > 0 && Object.keys(key).length === primary.length ? key : undefined;
  }

  update(table: string, data: Row, filter: Filter, callback?: Callback<AffectedRows>): Promise<AffectedRows> {
    const work = (adapter: DriverAdapter): Promise<StatementResult> =>
      this.#runBuilt(
        adapter,
        this.#withShape(table, (shape) => buildUpdate(adapter, table, shape ? typedEntry(shape, table, data) : data, shape ? typedFilter(shape, table, filter) : filter)),
      );
    return this.#execute('update', table, work, affectedRowsOf, countAffected, callback, Delivery.Response);
  }

  delete(table: string, filter: Filter, callback?: (error: Error | null) => void): Promise<AffectedRows> {
    const work = (adapter: DriverAdapter): Promise<StatementResult> =>
      this.#runBuilt(adapter, this.#withShape(table, (shape) => buildDelete(adapter, table, shape ? typedFilter(shape, table, filter) : filter)));
    return this.#execute('delete', table, work, affectedRowsOf, countAffected, callback as Callback<AffectedRows> | undefined, Delivery.ErrorOnly);
  }

  /**
   * Updates the one row `filter` names, in a transaction: when the filter matches more than one
   * row, nothing changes and the call fails with `NOT_UNIQUE` (409). Answers the row as written
   * (RETURNING, or read back in the same transaction by the key it now has), or `undefined`
   * when no row matched. The update endpoint runs on it.
   */
  updateOne(table: string, data: Row, filter: Filter, callback?: Callback<Row | undefined>): Promise<Row | undefined> {
    const work = async (adapter: DriverAdapter): Promise<Row | undefined> => {
      const { values, key, readBack } = await this.#withShape(table, (shape) => {
        if (!shape) return { values: data, key: filter, readBack: filter };
        const typedKey = typedFilter(shape, table, filter);
        return { values: typedEntry(shape, table, data), key: typedKey, readBack: writtenKey(shape, data, typedKey) };
      });
      return adapter.transaction(async (runInTransaction) => {
        const run = this.#logged(runInTransaction);
        const returning = adapter.supportsUpdateReturning;
        const result = await run(buildUpdate(adapter, table, values, key, returning));
        const matched = returning ? result.rows.length : result.affectedRows;
        if (matched > 1) throw notUnique('update', table, matched);
        if (matched === 0) return undefined;
        return returning ? result.rows[0] : (await run(buildSelect(adapter, table, readBack))).rows[0];
      });
    };
    return this.#execute('updateOne', table, work, same, countOne, callback, Delivery.Response);
  }

  /**
   * Deletes the one row `filter` names, in a transaction: when it matches more than one row,
   * nothing is deleted and the call fails with `NOT_UNIQUE` (409). The delete endpoint runs on it.
   */
  deleteOne(table: string, filter: Filter, callback?: Callback<AffectedRows>): Promise<AffectedRows> {
    const work = async (adapter: DriverAdapter): Promise<AffectedRows> => {
      const key = await this.#withShape(table, (shape) => (shape ? typedFilter(shape, table, filter) : filter));
      return adapter.transaction(async (runInTransaction) => {
        const { affectedRows } = await this.#logged(runInTransaction)(buildDelete(adapter, table, key));
        if (affectedRows > 1) throw notUnique('delete', table, affectedRows);
        return { affectedRows };
      });
    };
    return this.#execute('deleteOne', table, work, same, countAffected, callback, Delivery.Response);
  }

  /** A transaction's runner that logs like `run`. */
  #logged(run: StatementRunner): (statement: Statement) => Promise<StatementResult> {
    return (statement) => {
      this.#trace(statement.sql, statement.params);
      return run(statement.sql, statement.params);
    };
  }
}

function ignore(): void {}

function same<T>(result: T): T {
  return result;
}

function rowsOf(result: StatementResult): Row[] {
  return result.rows;
}

function firstRow(result: StatementResult): Row {
  return result.rows[0];
}

function one(): number {
  return 1;
}

function affectedRowsOf(result: StatementResult): AffectedRows {
  return { affectedRows: result.affectedRows };
}

function countAffected(response: AffectedRows): number {
  return response.affectedRows;
}

/** An entry as the database receives it: defined values only, objects and arrays as JSON. */
function storedForm(entry: Row): Row {
  const stored: Row = {};
  for (const [column, value] of Object.entries(entry)) if (value !== undefined) stored[column] = toStoredValue(value);
  return stored;
}

function poolExhausted(id: string, why: string): SqlResourceError {
  return new SqlResourceError('DB_UNAVAILABLE', `stream of resource '${id}' refused: the pool is exhausted (${why})`);
}

function countOne(row: Row | undefined): number {
  return row === undefined ? 0 : 1;
}

function notUnique(operation: string, table: string, matched: number): SqlResourceError {
  return new SqlResourceError('NOT_UNIQUE', `${operation} on ${table} refused: the key matches ${matched} rows, so nothing was changed`);
}

function countRows(result: Row[] | WriteResult): number {
  return Array.isArray(result) ? result.length : result.affectedRows;
}

function toQueryResponse(result: StatementResult): Row[] | WriteResult {
  if (result.hasResultSet) return result.rows;
  return result.insertId === undefined ? { affectedRows: result.affectedRows } : { affectedRows: result.affectedRows, insertId: result.insertId };
}

function redactParams(params: readonly unknown[], secret: string | undefined): unknown[] {
  return params.map((value) => (typeof value === 'string' ? redact(value, secret) : value));
}
