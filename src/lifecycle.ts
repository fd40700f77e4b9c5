import { SqlResourceError } from './errors';

type State = 'new' | 'starting' | 'started' | 'stopping' | 'stopped';

/**
 * The states of a resource's pool: new → starting → started → stopping → stopped, and back to
 * new when opening fails. A second `start` joins the first; a second `stop` is harmless.
 */
export class Lifecycle {
  #state: State = 'new';
  #starting?: Promise<void>;
  #stopping?: Promise<void>;

  constructor(private readonly resourceId: string) {}

  get started(): boolean {
    return this.#state === 'started';
  }

  /** The error of a call made while the pool is not started, naming the state. */
  notStarted(): SqlResourceError {
    return new SqlResourceError('NOT_STARTED', `resource '${this.resourceId}' is ${this.#state === 'new' ? 'not started' : this.#state}`);
  }

  /** Runs `open`; once the state is `started`, runs `onStarted` (timers, the `connect` event). */
  start(open: () => Promise<void>, onStarted: () => void): Promise<void> {
    if (this.#state === 'started') return Promise.resolve();
    if (this.#state === 'starting' && this.#starting) return this.#starting;
    if (this.#state === 'stopping') return Promise.reject(this.notStarted());
    this.#state = 'starting';
    this.#stopping = undefined;
    this.#starting = open().then(
      () => {
        this.#state = 'started';
        onStarted();
      },
      (error: unknown) => {
        this.#state = 'new';
        throw error;
      },
    );
    return this.#starting;
  }

  /** Waits for a start under way, then runs `close` once. */
  stop(close: () => Promise<void>): Promise<void> {
    this.#stopping ??= (async () => {
      if (this.#state === 'starting') await this.#starting?.catch(() => undefined);
      this.#state = 'stopping';
      await close();
      this.#state = 'stopped';
    })();
    return this.#stopping;
  }
}
