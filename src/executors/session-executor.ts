import type { ServerFeatures } from '../dialect';
import type { ColumnInfo, DescribedStatement, DriverAdapter, PoolWait, Row, StatementResult } from '../driver-adapter';
import { callerGone } from '../cancellation';
import { errorCatalogue, fromDriverError, SqlResourceError } from '../errors';
import type { Executor, Statement } from '../statement';

/**
 * A driver adapter whose statements each run in a transaction that first runs `setup` on the
 * same connection: the session settings of a request's claims (`requestClaims`), local to that
 * transaction, so they never outlive it on a pooled connection. `run` is BEGIN, `setup`, the
 * statement, COMMIT; `transaction` runs `setup` first in its one transaction (no nested BEGIN);
 * `stream` reads its cursor in such a transaction. Everything else is the adapter's own.
 */
export class SessionExecutor implements DriverAdapter {
  readonly #adapter: DriverAdapter;
  readonly #setup: readonly Statement[];

  constructor(adapter: DriverAdapter, setup: readonly Statement[]) {
    this.#adapter = adapter;
    this.#setup = setup;
  }

  get poolSize(): number {
    return this.#adapter.poolSize;
  }

  get poolWait(): PoolWait {
    return this.#adapter.poolWait;
  }

  run(sql: string, values: readonly unknown[], signal?: AbortSignal): Promise<StatementResult> {
    if (signal?.aborted) return Promise.reject(callerGone());
    return this.transaction((executor) => executor.run(sql, values, signal));
  }

  transaction<T>(work: (executor: Executor) => Promise<T>): Promise<T> {
    return this.#adapter.transaction(async (executor) => {
      await this.#setUp(executor);
      return work(executor);
    });
  }

  stream(sql: string, values: readonly unknown[], batchSize: number, signal?: AbortSignal, setup?: (executor: Executor) => Promise<void>): AsyncGenerator<Row[], void, undefined> {
    return this.#adapter.stream(sql, values, batchSize, signal, async (executor) => {
      await this.#setUp(executor);
      await setup?.(executor);
    });
  }

  async #setUp(executor: Executor): Promise<void> {
    for (const { sql, values } of this.#setup) {
      try {
        await executor.run(sql, values);
      } catch (error) {
        throw refused(error);
      }
    }
  }

  open(): Promise<ServerFeatures> {
    return this.#adapter.open();
  }

  columnsStatement(schema: string | undefined, table: string): Statement {
    return this.#adapter.columnsStatement(schema, table);
  }

  columnsFrom(rows: readonly Row[]): ColumnInfo[] {
    return this.#adapter.columnsFrom(rows);
  }

  describe(sql: string): Promise<DescribedStatement> {
    return this.#adapter.describe(sql);
  }

  close(): Promise<void> {
    return this.#adapter.close();
  }
}

/**
 * A session setting the database refused: the request's claims are at fault (a role that does
 * not exist or that the connection user may not assume), so FORBIDDEN (403); an unavailable
 * server stays what it is.
 */
function refused(error: unknown): unknown {
  const wrapped = fromDriverError('setting the claims of the request', error);
  if (wrapped.code === 'DB_UNAVAILABLE') return error;
  const { driverCode, sqlState } = wrapped;
  const clientMessage = `setting the claims of the request failed: ${errorCatalogue.FORBIDDEN.summary}${driverCode ? ` (${driverCode})` : ''}`;
  return new SqlResourceError('FORBIDDEN', wrapped.message, { cause: error, driverCode, sqlState, clientMessage });
}
