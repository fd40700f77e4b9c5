import type { Row, StatementResult } from './driver-adapter';

/** One SQL statement as every path runs it: values only ever travel in `values`. */
export interface Statement {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/**
 * What runs statements: the pool today, a transaction's connection inside `transaction()`; a
 * replica pool later. `signal`: when it aborts, the statement is cancelled on the server.
 */
export interface Executor {
  run(sql: string, values: readonly unknown[], signal?: AbortSignal): Promise<StatementResult>;
}

/** An executor that can also read a result in batches, with bounded memory. */
export interface StreamingExecutor extends Executor {
  /**
   * Runs a row-returning statement on a connection of its own and yields its rows in batches of
   * at most `batchSize`, reading the next batch only when asked. A batch shorter than that is
   * the last one. Ending the iteration early frees the connection.
   */
  stream(sql: string, values: readonly unknown[], batchSize: number, signal?: AbortSignal): AsyncGenerator<Row[], void, undefined>;
}
