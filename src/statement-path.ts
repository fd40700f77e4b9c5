import createDebug, { type Debugger } from 'debug';
import type { DialectErrors } from './dialect';
import type { Row } from './driver-adapter';
import { fromDriverError, redact, type SqlResourceError } from './errors';
import { deliver, settle, type Callback } from './callback';
import type { Executor, Statement, StreamingExecutor } from './statement';

/** What the `query` event reports for each call and stream. */
export interface QueryEvent {
  operation: string;
  table?: string;
  durationMs: number;
  rowCount: number;
  error?: SqlResourceError;
}

/** The resource the path reports to: its `query` event, built only when someone listens. */
export interface QueryEventSink {
  listenerCount(event: 'query'): number;
  emit(event: 'query', payload: QueryEvent): boolean;
}

/** What a call's outcome goes to besides its promise. */
export const enum Delivery {
  /** Nothing: internal calls (`columns`, `ping`), whose callers handle the promise. */
  None,
  /** The callback gets `(error)` or `(null, response)`; without one, the outcome is logged. */
  Response,
  /** The callback gets `(error)` or `(null)`: `delete`. */
  ErrorOnly,
}

/** One call of a resource method: what it runs, what it answers, where the answer goes. */
export interface Call<E, R, T> {
  /** Named in the `query` event, in error messages and in the debug log. */
  readonly operation: string;
  readonly table?: string;
  /** Runs the call's statements on `executor`, each through `StatementPath.run`. */
  readonly work: (executor: E) => Promise<R>;
  /** Turns the work's result into the call's response. */
  readonly respond: (result: R) => T;
  /** The `rowCount` of the `query` event. */
  readonly count: (response: T) => number;
  readonly callback?: Callback<T>;
  readonly delivery: Delivery;
}

/** How a stream is let in: at most so many at once, so point calls always find a connection. */
export interface StreamAdmission {
  take(signal: AbortSignal | undefined): Promise<void> | void;
  give(): void;
}

export interface StreamOptions {
  readonly batchSize: number;
  readonly signal?: AbortSignal;
  readonly admission?: StreamAdmission;
}

export interface StatementPathOptions<E> {
  readonly sink: QueryEventSink;
  /** The debug namespace: `sql-resources:<kind>:<id>`, with `:sql` and `:params` lines below it. */
  readonly namespace: string;
  readonly secret?: string;
  readonly errors: DialectErrors;
  /** The executor of a started resource; throws NOT_STARTED otherwise. */
  readonly executor: () => E;
}

/**
 * The one path every statement of a resource takes, whether it answers a promise, a stream of
 * batches or a keep-alive, and whatever runs it (the pool; a transaction's connection). Written
 * once here: the `:sql`/`:params` debug lines, the count of calls in flight that `stop()` waits
 * for, timing, the `query` event, and the mapping of driver errors to the catalogue.
 */
export class StatementPath<E extends StreamingExecutor> {
  readonly log: Debugger;
  readonly #logSql: Debugger;
  readonly #logParams: Debugger;
  readonly #sink: QueryEventSink;
  readonly #secret?: string;
  readonly #errors: DialectErrors;
  readonly #executor: () => E;
  /**
   * Calls and streams not settled yet. A count, not a Set of their promises: adding and deleting
   * a promise per call made young-generation GCs keep copying recent results (measured: twice
   * the CPU per `query` of 100 rows at 32 callers).
   */
  #inFlight = 0;
  #whenIdle: (() => void)[] = [];

  constructor(options: StatementPathOptions<E>) {
    this.log = createDebug(options.namespace);
    this.#logSql = createDebug(`${options.namespace}:sql`);
    this.#logParams = createDebug(`${options.namespace}:params`);
    this.#sink = options.sink;
    this.#secret = options.secret;
    this.#errors = options.errors;
    this.#executor = options.executor;
  }

  /**
   * Runs one statement on `executor`, with its debug lines; calls run theirs here. A statement
   * still being built (waiting for the catalogue) runs once built: no extra turn when it is not.
   */
  run(executor: Executor, statement: Statement | Promise<Statement>, signal?: AbortSignal): ReturnType<Executor['run']> {
    if (statement instanceof Promise) return statement.then((built) => this.run(executor, built, signal));
    this.#trace(statement);
    return executor.run(statement.sql, statement.values, signal);
  }

  /**
   * Runs a call: tracked for `stop()`, timed for the `query` event, driver errors mapped to the
   * catalogue, the outcome handed to the callback (or the log) in the same promise reaction. The
   * promise is marked handled only when it rejects, so a successful call costs one reaction on
   * the driver's promise besides the caller's own.
   */
  call<R, T>(call: Call<E, R, T>): Promise<T> {
    const { operation, table, callback, delivery } = call;
    let executor: E;
    try {
      executor = this.#executor();
    } catch (error) {
      const refused = Promise.reject(error);
      return delivery === Delivery.None ? refused : settle(refused, callback, this.log, operation, delivery === Delivery.ErrorOnly);
    }
    const startedAt = performance.now();
    let pending: Promise<R>;
    try {
      pending = call.work(executor);
    } catch (error) {
      pending = Promise.reject(error);
    }
    this.#inFlight++;
    const promise: Promise<T> = pending.then(
      (result): T => {
        this.#settled();
        let response: T;
        try {
          response = call.respond(result);
          this.#report(operation, table, startedAt, call.count, response);
        } catch (error) {
          return this.#fail(promise, call, error);
        }
        if (delivery !== Delivery.None) deliver(callback, this.log, operation, delivery === Delivery.ErrorOnly, false, response);
        return response;
      },
      (error: unknown): never => {
        this.#settled();
        const wrapped = this.wrap(table === undefined ? operation : `${operation} on ${table}`, error);
        try {
          this.#report(operation, table, startedAt, noRows, undefined, wrapped);
        } catch (listenerError) {
          return this.#fail(promise, call, listenerError);
        }
        return this.#fail(promise, call, wrapped);
      },
    );
    return promise;
  }

  /**
   * Runs a row-returning statement and yields its rows in batches as they are read, tracked,
   * timed and mapped like a call. Waits for `admission` first; ending the iteration early frees
   * the connection.
   */
  async *stream(operation: string, statement: Statement, options: StreamOptions): AsyncGenerator<Row[], void, undefined> {
    const executor = this.#executor();
    const startedAt = performance.now();
    this.#inFlight++;
    let rowCount = 0;
    let admitted = false;
    try {
      await options.admission?.take(options.signal);
      admitted = true;
      this.#trace(statement);
      for await (const batch of executor.stream(statement.sql, statement.values, options.batchSize, options.signal)) {
        rowCount += batch.length;
        yield batch;
      }
      this.#report(operation, undefined, startedAt, same, rowCount);
    } catch (error) {
      // Named `query failed: …` as the statement a stream runs is the caller's own query.
      const wrapped = this.wrap('query', error);
      this.#report(operation, undefined, startedAt, same, rowCount, wrapped);
      throw wrapped;
    } finally {
      if (admitted) options.admission?.give();
      this.#settled();
    }
  }

  /** A driver error as a catalogue error, the secret redacted; catalogue errors pass unchanged. */
  wrap(operation: string, error: unknown): SqlResourceError {
    return fromDriverError(operation, error, { secret: this.#secret, errors: this.#errors });
  }

  /** Resolves once no call or stream is in flight. */
  idle(): Promise<void> {
    return this.#inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.#whenIdle.push(resolve));
  }

  /** The `query` event: the object is only built for someone to hear it. */
  #report<T>(operation: string, table: string | undefined, startedAt: number, count: (response: T) => number, response: T, error?: SqlResourceError): void {
    if (this.#sink.listenerCount('query') === 0) return;
    const event: QueryEvent = { operation, table, durationMs: performance.now() - startedAt, rowCount: count(response) };
    if (error !== undefined) event.error = error;
    this.#sink.emit('query', event);
  }

  /** Rejects a call's promise with `error`, after handing it to the callback (or the log). */
  #fail<R, T>(promise: Promise<T>, call: Call<E, R, T>, error: unknown): never {
    if (call.delivery !== Delivery.None) {
      // Marked handled before it rejects: a caller that only uses the callback sees no unhandled rejection.
      promise.catch(ignore);
      deliver(call.callback, this.log, call.operation, call.delivery === Delivery.ErrorOnly, true, error);
    }
    throw error;
  }

  /** One call or stream settled; wakes `idle()` when it was the last. */
  #settled(): void {
    if (--this.#inFlight > 0 || this.#whenIdle.length === 0) return;
    const waiting = this.#whenIdle;
    this.#whenIdle = [];
    for (const resolve of waiting) resolve();
  }

  /** The `:sql` and `:params` debug lines of a statement about to run. */
  #trace(statement: Statement): void {
    if (this.#logSql.enabled) this.#logSql('%s', statement.sql);
    if (this.#logParams.enabled) this.#logParams('%o', statement.values.map((value) => (typeof value === 'string' ? redact(value, this.#secret) : value)));
  }
}

function ignore(): void {}

function same(rowCount: number): number {
  return rowCount;
}

function noRows(): number {
  return 0;
}
