import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ChildConfig, ChildRequest, CpuReply, RssReply } from './server-child';

export interface ChildOptions {
  /** Node options of the child, e.g. `--cpu-prof`; none by default (not the parent's). */
  execArgv?: string[];
  /** Milliseconds to wait for the server to listen. */
  startTimeoutMs?: number;
}

/** A server under test running in its own process (bench/server-child.ts). */
export class ServerChild {
  readonly port: number;
  readonly #process: ChildProcess;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #serial = 0;
  #exited: Promise<void>;

  private constructor(child: ChildProcess, port: number, exited: Promise<void>) {
    this.#process = child;
    this.port = port;
    this.#exited = exited;
    child.on('message', (message: { id?: number; error?: string }) => {
      const waiting = message.id === undefined ? undefined : this.#pending.get(message.id);
      if (!waiting) return;
      this.#pending.delete(message.id!);
      if (message.error !== undefined) waiting.reject(new Error(`server child: ${message.error}`));
      else waiting.resolve(message);
    });
    void exited.then(() => {
      for (const waiting of this.#pending.values()) waiting.reject(new Error('server child exited'));
      this.#pending.clear();
    });
  }

  get pid(): number {
    return this.#process.pid!;
  }

  /** Forks the child and waits until its server listens. Its output goes to our stderr. */
  static start(config: ChildConfig, options: ChildOptions = {}): Promise<ServerChild> {
    const child = fork(join(__dirname, 'server-child.js'), [JSON.stringify(config)], {
      execArgv: options.execArgv ?? [],
      stdio: ['ignore', 2, 2, 'ipc'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // A message sent to a child that has just died fails here (EPIPE); unheard, it would end the bench before its tables are dropped.
    child.on('error', (error) => console.error(`server child (${config.role}): ${error.message}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`server child (${config.role}) did not start in time`));
      }, options.startTimeoutMs ?? 20_000);
      const onExit = (code: number | null): void => {
        clearTimeout(timer);
        reject(new Error(`server child (${config.role}) exited with code ${code} before listening`));
      };
      child.once('exit', onExit);
      child.once('message', (message: { ready?: boolean; port?: number }) => {
        clearTimeout(timer);
        child.off('exit', onExit);
        if (message.ready && typeof message.port === 'number') resolve(new ServerChild(child, message.port, exited));
        else reject(new Error(`server child (${config.role}): unexpected first message ${JSON.stringify(message)}`));
      });
    });
  }

  #call<T>(type: ChildRequest['type']): Promise<T> {
    const id = ++this.#serial;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#process.send({ id, type } satisfies ChildRequest);
    });
  }

  /** CPU time the child has used so far (user + system), microseconds. */
  async cpuMicros(): Promise<number> {
    const { user, system } = await this.#call<CpuReply>('cpu');
    return user + system;
  }

  rss(): Promise<RssReply> {
    return this.#call<RssReply>('rss');
  }

  /** Starts peak-RSS tracking in the child; answers its RSS at that moment. */
  rssBegin(): Promise<RssReply> {
    return this.#call<RssReply>('rss-begin');
  }

  /** Ends peak-RSS tracking; answers the sampled peak and the kernel's. */
  rssEnd(): Promise<RssReply> {
    return this.#call<RssReply>('rss-end');
  }

  /** Stops the server cleanly and waits for the process to end; killed (and said so) after 10 s. */
  async stop(): Promise<void> {
    if (this.#process.exitCode !== null || this.#process.signalCode !== null) return;
    const killer = setTimeout(() => {
      console.error(`server child ${this.pid}: did not stop within 10 s (a request or a query still in flight?); killed`);
      this.#process.kill('SIGKILL');
    }, 10_000);
    try {
      await this.#call('stop').catch(() => undefined);
      await this.#exited;
    } finally {
      clearTimeout(killer);
    }
  }
}
