import { SqlResourceError } from './errors';

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

/** Runs `cancel` once if `signal` aborts before `dispose()`; its failure goes to `report`. */
export function watchCancel(signal: AbortSignal | undefined, cancel: () => Promise<void>, report: (error: Error) => void): CancelWatch {
  if (signal === undefined) return idle;
  let fired = false;
  const onAbort = (): void => {
    fired = true;
    cancel().catch(report);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    get fired() {
      return fired;
    },
    dispose: () => signal.removeEventListener('abort', onAbort),
  };
}

/** The error a statement ends with when its caller left before it could start. */
export function callerGone(): SqlResourceError {
  return new SqlResourceError('CANCELLED', 'the caller is gone; the statement was not run');
}
