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
 *
 * Insufficient privilege (SQLSTATE 42501) is FORBIDDEN here, and only here: under the claims of
 * a request it is the caller's (a role it may not take, a table its role was not granted, a row
 * a policy's WITH CHECK refuses); without them it is the server's own misconfiguration (500).
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
    return this.#adapter
      .transaction(async (executor) => {
        await this.#setUp(executor);
        return work(executor);
      })
      .catch(rethrowDenied);
  }

  stream(sql: string, values: readonly unknown[], batchSize: number, signal?: AbortSignal, setup?: (executor: Executor) => Promise<void>): AsyncGenerator<Row[], void, undefined> {
    return deniedIn(
      this.#adapter.stream(sql, values, batchSize, signal, async (executor) => {
        await this.#setUp(executor);
        await setup?.(executor);
      }),
    );
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
 * The driver's `error` as FORBIDDEN (403) when its SQLSTATE is one of `states`, else unchanged
 * (the statement path maps it as any other). The client is not told the database's words (a
 * role's or a table's name); `operation` names what failed, as the path's own messages do.
 */
function forbiddenWhen(error: unknown, states: readonly string[], operation: string): unknown {
  if (error instanceof SqlResourceError) return error;
  const wrapped = fromDriverError(operation, error);
  const { driverCode, sqlState } = wrapped;
  if (sqlState === undefined || !states.includes(sqlState)) return error;
  const clientMessage = `${operation} failed: ${errorCatalogue.FORBIDDEN.summary}${driverCode ? ` (${driverCode})` : ''}`;
  return new SqlResourceError('FORBIDDEN', wrapped.message, { cause: error, driverCode, sqlState, clientMessage });
}

/**
 * A session setting refused for the claims' sake: a role the connection user may not assume
 * (42501) or that does not exist (22023). A timeout, a cancel or a lost connection is not the caller's.
 */
function refused(error: unknown): unknown {
  return forbiddenWhen(error, ['42501', '22023'], 'setting the claims of the request');
}

/** A statement run under the claims that the database refused for want of privilege (42501). */
function denied(error: unknown): unknown {
  return forbiddenWhen(error, ['42501'], 'running the statement under the claims of the request');
}

function rethrowDenied(error: unknown): never {
  throw denied(error);
}

/** `rows`, with an error thrown while it is read (its setup, a batch) passed through `denied`. */
async function* deniedIn(rows: AsyncGenerator<Row[], void, undefined>): AsyncGenerator<Row[], void, undefined> {
  try {
    yield* rows;
  } catch (error) {
    throw denied(error);
  }
}
