import { callerGone } from './cancellation';
import type { PoolWait } from './driver-adapter';
import { SqlResourceError } from './errors';
import type { StreamAdmission } from './statement-path';

/**
 * Streams may hold at most the pool's size less two connections, so point reads and writes
 * always find one however many slow readers a list has. Streams past that wait here, within
 * the pool's own wait limits (the wait for a connection moved here).
 */
export class StreamSlots implements StreamAdmission {
  #free: number;
  #waiters: (() => void)[] = [];

  constructor(
    private readonly resourceId: string,
    poolSize: number,
    private readonly wait: PoolWait,
  ) {
    // A pool of one or two is too small to keep any back (tests, development): streams may take it all.
    this.#free = poolSize > 2 ? poolSize - 2 : Math.max(1, poolSize);
  }

  take(signal: AbortSignal | undefined): Promise<void> | void {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    if (signal?.aborted) throw callerGone();
    const { timeoutMs, maxWaiting } = this.wait;
    if (maxWaiting !== undefined && this.#waiters.length >= maxWaiting) throw this.#exhausted('its wait queue is full');
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (error: Error): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        this.#waiters = this.#waiters.filter((waiter) => waiter !== granted);
        reject(error);
      };
      const granted = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        resolve();
      };
      const gone = (): void => leave(callerGone());
      if (timeoutMs !== undefined) timer = setTimeout(() => leave(this.#exhausted(`no connection for a stream within ${timeoutMs} ms`)), timeoutMs);
      signal?.addEventListener('abort', gone, { once: true });
      this.#waiters.push(granted);
    });
  }

  give(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }

  #exhausted(why: string): SqlResourceError {
    return new SqlResourceError('DB_UNAVAILABLE', `stream of resource '${this.resourceId}' refused: the pool is exhausted (${why})`);
  }
}
