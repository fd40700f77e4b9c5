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
}

/** How to write SQL for a dialect: enough for the builders and the template compiler. */
export interface SqlDialect {
  readonly name: 'mysql' | 'postgres';
  /** `INSERT … RETURNING *` is available, so an insert reads its row back in one trip. */
  readonly supportsReturning: boolean;
  /** `UPDATE … RETURNING *` is available (PostgreSQL; not MariaDB nor MySQL). */
  readonly supportsUpdateReturning: boolean;
  /** Column names match whatever their case (MySQL), so `ID` names the column `id`. */
  readonly columnNamesIgnoreCase: boolean;
  /** Bound-parameter marker for the 1-based position `index`. */
  placeholder(index: number): string;
  /** Quotes one identifier part, doubling embedded quote characters. */
  quoteIdentifier(part: string): string;
}

/** Runs statements on one connection (inside a transaction). */
export type StatementRunner = (sql: string, params: readonly unknown[]) => Promise<StatementResult>;

/** How long a call may wait for a pooled connection, as the pool's own options say. */
export interface PoolWait {
  /** Refused (DB_UNAVAILABLE) after waiting this long; none: waits as long as it takes. */
  readonly timeoutMs?: number;
  /** At most this many calls wait; more are refused at once (0: none waits). */
  readonly maxWaiting?: number;
}

export interface DriverAdapter extends SqlDialect {
  /** Connections the pool holds at most. */
  readonly poolSize: number;
  readonly poolWait: PoolWait;
  /** Creates the pool and proves it with one round trip. */
  open(): Promise<void>;
  /** `signal`: when it aborts, the statement is cancelled on the server (see cancellation.ts). */
  run(sql: string, params: readonly unknown[], signal?: AbortSignal): Promise<StatementResult>;
  /**
   * Runs `work` on one connection between BEGIN and COMMIT; ROLLBACK when it throws. The
   * connection goes back to the pool outside any transaction, or is discarded.
   */
  transaction<T>(work: (run: StatementRunner) => Promise<T>): Promise<T>;
  /**
   * Runs a row-returning statement on a connection of its own and yields its rows in batches of
   * at most `batchSize`, reading the next batch only when asked (bounded memory). A batch
   * shorter than that is the last one. Ending the iteration early frees the connection.
   */
  stream(sql: string, params: readonly unknown[], batchSize: number, signal?: AbortSignal): AsyncGenerator<Row[], void, undefined>;
  /** Columns of `table` (`name` or `schema.name`), in table order; empty when it does not exist. */
  describeTable(schema: string | undefined, table: string): Promise<ColumnInfo[]>;
  /** Closes the pool; callers have already waited for in-flight statements. */
  close(): Promise<void>;
}

/** Callbacks an adapter uses to report what happens outside any call. */
export interface AdapterHooks {
  onPoolError(error: Error): void;
}
