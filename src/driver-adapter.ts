import type { ServerFeatures } from './dialect';
import type { Executor, Statement, StreamingExecutor } from './statement';

/**
 * The seam between the shared resource code and one database driver. Each dialect
 * implements it in one file; everything else (validation, filters, lifecycle, events,
 * callbacks) lives once in `SqlResource`.
 */
export type Row = Record<string, unknown>;

/**
 * Rows a stream reads per batch unless the resource's `streamBatchSize` says otherwise: one
 * promise and one driver round trip per batch, not per row, with memory bounded by the batch.
 */
export const defaultStreamBatchSize = 200;

/** What one statement produced, in the same shape for every driver. */
export interface StatementResult {
  rows: Row[];
  /** True when the statement returned a result set (SELECT, SHOW, `RETURNING`, …). */
  hasResultSet: boolean;
  affectedRows: number;
  /** Auto-increment key of an INSERT, when the driver reports one (mysql). */
  insertId?: number | string;
}

/**
 * What a column's values are, as far as binding cares: a value is checked and bound for its
 * column's type, so a number is never compared with a text key by cast (MySQL's `'FR' = 0`).
 */
export type ColumnType = 'integer' | 'number' | 'boolean' | 'text' | 'json' | 'other';

export interface ColumnInfo {
  name: string;
  primaryKey: boolean;
  /** Filled by the database when omitted: auto-increment, serial, identity. */
  generated: boolean;
  type: ColumnType;
  /** The column alone is the primary key or has a unique index: a value names at most one row. */
  unique: boolean;
  /** The column may hold NULL: keyset paging cannot order past NULLs, so it needs NOT NULL order columns. */
  nullable: boolean;
}

/** One column of a statement's result, as the server describes it without running the statement. */
export interface DescribedColumn {
  readonly name: string;
  /** The server's own name of the column's type: `integer`, `character varying` (PostgreSQL), `int`, `varchar` (MySQL). */
  readonly type: string;
}

/** What the server says of a statement it prepared without running it. */
export interface DescribedStatement {
  /** The result's columns in order; none for a statement that returns no rows. */
  readonly columns: readonly DescribedColumn[];
}

/** How long a call may wait for a pooled connection, as the pool's own options say. */
export interface PoolWait {
  /** Refused (DB_UNAVAILABLE) after waiting this long; none: waits as long as it takes. */
  readonly timeoutMs?: number;
  /** At most this many calls wait; more are refused at once (0: none waits). */
  readonly maxWaiting?: number;
}

/**
 * The pool of one driver: the executor of a started resource. Statements reach it only through
 * the statement path (statement-path.ts); it knows nothing of events, logs or the catalogue.
 */
export interface DriverAdapter extends StreamingExecutor {
  /** Connections the pool holds at most. */
  readonly poolSize: number;
  readonly poolWait: PoolWait;
  /** Creates the pool, proves it with one round trip and says what the server supports. */
  open(): Promise<ServerFeatures>;
  /**
   * Runs `work` on one connection between BEGIN and COMMIT; ROLLBACK when it throws. The
   * connection goes back to the pool outside any transaction, or is discarded. A statement given
   * a signal is cancelled on the server when it aborts; the connection is then discarded.
   */
  transaction<T>(work: (executor: Executor) => Promise<T>): Promise<T>;
  /**
   * `StreamingExecutor.stream`; with `setup`, in a transaction of its own: BEGIN, `setup` on the
   * stream's connection (session settings), then the cursor, and COMMIT once its rows are read
   * to their end. A stream cut short or failed discards its connection, which rolls back.
   */
  stream(sql: string, values: readonly unknown[], batchSize: number, signal?: AbortSignal, setup?: (executor: Executor) => Promise<void>): AsyncGenerator<Row[], void, undefined>;
  /** The catalogue query for the columns of `table` (`name` or `schema.name`), in table order. */
  columnsStatement(schema: string | undefined, table: string): Statement;
  /** The columns that query's rows describe; none when the table does not exist. */
  columnsFrom(rows: readonly Row[]): ColumnInfo[];
  /**
   * Prepares `sql` (the dialect's markers in place of values) on a pooled connection without
   * running it, and answers its result columns. The server's error (syntax, unknown table or
   * column) rejects, as a driver error.
   */
  describe(sql: string): Promise<DescribedStatement>;
  /** Closes the pool; callers have already waited for in-flight statements. */
  close(): Promise<void>;
}

/** Callbacks an adapter uses to report what happens outside any call. */
export interface AdapterHooks {
  onPoolError(error: Error): void;
}
