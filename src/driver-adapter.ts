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

export interface ColumnInfo {
  name: string;
  primaryKey: boolean;
  /** Filled by the database when omitted: auto-increment, serial, identity. */
  generated: boolean;
}

/** How to write SQL for a dialect: enough for the builders and the template compiler. */
export interface SqlDialect {
  readonly name: 'mysql' | 'postgres';
  /** `INSERT … RETURNING *` is available, so an insert reads its row back in one trip. */
  readonly supportsReturning: boolean;
  /** Bound-parameter marker for the 1-based position `index`. */
  placeholder(index: number): string;
  /** Quotes one identifier part, doubling embedded quote characters. */
  quoteIdentifier(part: string): string;
}

export interface DriverAdapter extends SqlDialect {
  /** Creates the pool and proves it with one round trip. */
  open(): Promise<void>;
  run(sql: string, params: readonly unknown[]): Promise<StatementResult>;
  /**
   * Runs a row-returning statement on a connection of its own and yields its rows in batches of
   * at most `batchSize`, reading the next batch only when asked (bounded memory). A batch
   * shorter than that is the last one. Ending the iteration early frees the connection.
   */
  stream(sql: string, params: readonly unknown[], batchSize: number): AsyncGenerator<Row[], void, undefined>;
  /** Columns of `table` (`name` or `schema.name`), in table order; empty when it does not exist. */
  describeTable(schema: string | undefined, table: string): Promise<ColumnInfo[]>;
  /** Closes the pool; callers have already waited for in-flight statements. */
  close(): Promise<void>;
}

/** Callbacks an adapter uses to report what happens outside any call. */
export interface AdapterHooks {
  onPoolError(error: Error): void;
}
