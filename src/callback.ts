import type { Debugger } from 'debug';

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
