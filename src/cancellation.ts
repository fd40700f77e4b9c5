import type { StatementResult } from './driver-adapter';
import { SqlResourceError } from './errors';
import type { Executor } from './statement';

/**
 * Cancelling a statement whose caller is gone (an HTTP client that left). The adapters send the
 * server its own cancel (PostgreSQL `pg_cancel_backend`, MariaDB/MySQL `KILL QUERY`) on a
 * separate connection, and discard the statement's connection afterwards: a cancel that
 * arrives after the statement ended must not hit whatever that connection runs next.
 */
export interface CancelWatch {
  /** True once the signal fired and the cancel was sent (or is being sent). */
  readonly fired: boolean;
  /** Stops watching; call when the statement has ended. */
  dispose(): void;
}

const idle: CancelWatch = { fired: false, dispose: () => undefined };

/** The abort listeners of a signal made by `callerSignal`, kept beside it instead of on it. */
const callerListeners = Symbol('callerListeners');

type CallerSignal = AbortSignal & { [callerListeners]?: Set<() => void> };

/**
 * An AbortSignal for one request, and the function that aborts it. Its cancel watches do not
 * listen on the signal itself: Node makes the first listener of each AbortSignal cost about
 * 3 µs (and more in the collector), a tenth of a short list's time in the host.
 */
export function callerSignal(): { signal: AbortSignal; abort: () => void } {
  const controller = new AbortController();
  const listeners = new Set<() => void>();
  const signal: CallerSignal = controller.signal;
  signal[callerListeners] = listeners;
  return {
    signal,
    abort: () => {
      controller.abort();
      for (const listener of listeners) listener();
      listeners.clear();
    },
  };
}

/** Runs `cancel` once if `signal` aborts before `dispose()`; its failure goes to `report`. */
export function watchCancel(signal: AbortSignal | undefined, cancel: () => Promise<void>, report: (error: Error) => void): CancelWatch {
  if (signal === undefined) return idle;
  let fired = false;
  const onAbort = (): void => {
    if (fired) return;
    fired = true;
    cancel().catch(report);
  };
  const listeners = (signal as CallerSignal)[callerListeners];
  if (signal.aborted) onAbort();
  else if (listeners) listeners.add(onAbort);
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    get fired() {
      return fired;
    },
    dispose: () => (listeners ? listeners.delete(onAbort) : signal.removeEventListener('abort', onAbort)),
  };
}

/** The error a statement ends with when its caller left before it could start. */
export function callerGone(): SqlResourceError {
  return new SqlResourceError('CANCELLED', 'the caller is gone; the statement was not run');
}

/**
 * After a wait for a pooled connection: when the caller left meanwhile, the connection goes back
 * (it ran nothing) and the statement fails CANCELLED, instead of running only to be cancelled
 * from a connection opened for that.
 */
export function refuseIfGone(signal: AbortSignal | undefined, connection: { release(): void }): void {
  if (!signal?.aborted) return;
  connection.release();
  throw callerGone();
}

/**
 * The executor of a transaction's one connection, whose statements honour their signals: an
 * abort sends `cancel` for that connection. Once one was sent, `cancelled` is true and the
 * connection must be discarded, not pooled: the cancel may arrive after its statement ended.
 */
export class CancellableConnection implements Executor {
  readonly #runOn: (sql: string, values: readonly unknown[]) => Promise<StatementResult>;
  readonly #cancel: () => Promise<void>;
  readonly #report: (error: Error) => void;
  #cancelled = false;

  constructor(runOn: (sql: string, values: readonly unknown[]) => Promise<StatementResult>, cancel: () => Promise<void>, report: (error: Error) => void) {
    this.#runOn = runOn;
    this.#cancel = cancel;
    this.#report = report;
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  run(sql: string, values: readonly unknown[], signal?: AbortSignal): Promise<StatementResult> {
    if (signal === undefined) return this.#runOn(sql, values);
    if (signal.aborted) return Promise.reject(callerGone());
    const watch = watchCancel(signal, this.#cancel, this.#report);
    return this.#runOn(sql, values).finally(() => {
      watch.dispose();
      this.#cancelled ||= watch.fired;
    });
  }
}
