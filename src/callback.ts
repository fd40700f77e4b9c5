import type { Debugger } from 'debug';
import { isPlainObject } from './config';
import { SqlResourceError } from './errors';

export type Callback<T> = (error: Error | null, response?: T) => void;

/** A throwing callback is the caller's bug: surface it like Node does, outside our promise chain. */
function rethrowOutside(error: unknown): void {
  process.nextTick(() => {
    throw error;
  });
}

/**
 * Hands one outcome to `callback`, or without one logs it through `debug`; `errorOnly` calls
 * the callback with the error alone on success too, as `delete` does. A throwing callback
 * never reaches the caller's promise chain.
 */
export function deliver<T>(
  callback: Callback<T> | undefined,
  log: Debugger,
  operation: string,
  errorOnly: boolean,
  failed: boolean,
  errorOrResponse: unknown,
): void {
  try {
    if (callback === undefined) {
      if (failed && errorOrResponse) log('%s failed: %s', operation, (errorOrResponse as Error).message);
      else log('%s succeeded', operation);
    } else if (failed) callback(errorOrResponse as Error);
    else if (errorOnly) (callback as (error: null) => void)(null);
    else callback(null, errorOrResponse as T);
  } catch (thrown) {
    rethrowOutside(thrown);
  }
}

/**
 * Settles `callback` (or a default that logs) from `promise` exactly once and returns the
 * promise, marked handled so a caller that only uses the callback sees no unhandled rejection.
 * `errorOnly` calls the callback with the error alone, as `delete` does.
 */
export function settle<T>(
  promise: Promise<T>,
  callback: Callback<T> | undefined,
  log: Debugger,
  operation: string,
  errorOnly = false,
): Promise<T> {
  promise.then(
    (response) => deliver(callback, log, operation, errorOnly, false, response),
    (error: unknown) => deliver(callback, log, operation, errorOnly, true, error),
  );
  return promise;
}

/** Splits trailing optional arguments: the last function is the callback. */
export function callbackOf<T>(value: unknown): Callback<T> | undefined {
  return typeof value === 'function' ? (value as Callback<T>) : undefined;
}

/** The arguments of `query`, `select` and `execute` sorted out: `(sql, [params], [options], [callback])`, each but the SQL optional. */
export interface QueryArguments<T> {
  readonly values: readonly unknown[];
  readonly signal?: AbortSignal;
  readonly callback?: Callback<T>;
  /** Why the call is refused before anything runs. */
  readonly refused?: SqlResourceError;
}

export function queryArguments<T>(
  sql: unknown,
  paramsOrCallback: unknown,
  optionsOrCallback: unknown,
  callback: Callback<T> | undefined,
  operation = 'query',
): QueryArguments<T> {
  const values: readonly unknown[] = Array.isArray(paramsOrCallback) ? paramsOrCallback : [];
  const signal = isPlainObject(optionsOrCallback) ? (optionsOrCallback.signal as AbortSignal | undefined) : undefined;
  const deliverTo = callback ?? callbackOf<T>(optionsOrCallback) ?? callbackOf<T>(paramsOrCallback);
  const undefinedAt = values.indexOf(undefined);
  let refused: SqlResourceError | undefined;
  if (typeof sql !== 'string' || sql.trim() === '') refused = new SqlResourceError('INVALID_ARGUMENT', `${operation} needs SQL text`);
  else if (undefinedAt >= 0) refused = new SqlResourceError('INVALID_ARGUMENT', `${operation} parameter ${undefinedAt + 1} is undefined (use null for SQL NULL)`);
  return { values, signal, callback: deliverTo, refused };
}
