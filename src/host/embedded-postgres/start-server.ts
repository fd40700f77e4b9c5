/**
 * Embedded PostgreSQL for local development: lets a newcomer run the demo with
 * no database installed. startEmbeddedPostgres() forks the server and hands back its address.
 *
 * DEVELOPMENT CONVENIENCE ONLY, not for production. It is PGlite (Postgres
 * compiled to WebAssembly) served over the PostgreSQL wire protocol by
 * pglite-socket, in a child process (server-process.ts), so the
 * ordinary `pg` driver connects to it over TCP. Limits to keep in mind:
 * - every connection shares ONE backend session: named prepared statements of
 *   different connections clash, and an open transaction makes all other
 *   connections wait until it ends;
 * - queries run one at a time;
 * - the first start runs initdb (seconds, several hundred MB of RAM); later
 *   starts on the same data dir take well under a second. `npm install` saves an initialised
 *   data folder (template.ts), which makes the first start a ~1 s copy.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { extname, join } from 'node:path';
import createDebug from 'debug';
import { existsSync } from 'node:fs';
import { SqlResourceError } from '../../errors';
import {
  DEBUG_NAMESPACE,
  DEFAULT_HOST,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_PORT,
  DEFAULT_START_TIMEOUT_MS,
  DEFAULT_STOP_TIMEOUT_MS,
  MAX_CONNECTIONS_RANGE,
  OUTPUT_TAIL_CHARS,
  PGLITE_DATABASE,
  PGLITE_PASSWORD,
  PGLITE_USER,
  PORT_RANGE,
  SERVER_PROCESS_FILE,
} from './constants';
import { integerSetting } from '../../integers';
import { serverArgs, type Initialization, type ServerToParentMessage } from './ipc';
import { defaultTemplatePath } from './template';

const log = createDebug(DEBUG_NAMESPACE);
const logChildOutput = createDebug(`${DEBUG_NAMESPACE}:child`);
/** Start and stop timeouts: at least a millisecond, at most a day. */
const TIMEOUT_RANGE = { min: 1, max: 86_400_000 } as const;

export interface EmbeddedPostgresOptions {
  /** Persistent data folder, created if missing; reusing it makes later starts fast. */
  dataDir: string;
  /** TCP port; 0 or omitted lets the OS pick a free one. */
  port?: number;
  host?: string;
  /** Socket limit of the server; give it at least twice the client pool size. */
  maxConnections?: number;
  /**
   * Tar of an initialised data folder, copied into an empty dataDir instead of running initdb.
   * Default: the one `npm install` made (template.ts), if present; false: never.
   */
  template?: string | false;
  startTimeoutMs?: number;
  /** How long stop() waits for a graceful exit before SIGKILL. */
  stopTimeoutMs?: number;
}

export interface EmbeddedPostgres {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  readonly password: string;
  /** postgres://user:password@host:port/database */
  readonly connectionString: string;
  /** Process id of the child hosting PGlite. */
  readonly pid: number;
  /** How the data dir got its database on this start: reopened, copied from the template, or initdb. */
  readonly initialized: Initialization;
  /** Settles when the child exits, whether stop() asked it to or not. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the child and waits until it has exited; safe to call more than once. */
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const where = 'startEmbeddedPostgres';
  if (typeof options.dataDir !== 'string' || options.dataDir === '') throw new SqlResourceError('CONFIG_INVALID', `${where}: dataDir must be a folder path`);
  const host = options.host || DEFAULT_HOST;
  const stopTimeoutMs = integerSetting(where, 'stopTimeoutMs', options.stopTimeoutMs, DEFAULT_STOP_TIMEOUT_MS, TIMEOUT_RANGE, true);
  const startTimeoutMs = integerSetting(where, 'startTimeoutMs', options.startTimeoutMs, DEFAULT_START_TIMEOUT_MS, TIMEOUT_RANGE, true);
  const startedAt = Date.now();
  const template = options.template === false ? undefined : options.template ?? installedTemplate();
  const child = forkServer(serverArgs({
    dataDir: options.dataDir,
    host,
    port: integerSetting(where, 'port', options.port, DEFAULT_PORT, PORT_RANGE, true),
    maxConnections: integerSetting(where, 'maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS, MAX_CONNECTIONS_RANGE, true),
    template,
  }));
  const output = captureOutput(child);

  let ready: { host: string; port: number; initialized: Initialization };
  try {
    ready = await waitUntilReady(child, startTimeoutMs, output);
  } catch (error) {
    await terminate(child, stopTimeoutMs);
    throw error;
  }
  log('child %d ready on %s:%d after %d ms (%s)', child.pid, ready.host, ready.port, Date.now() - startedAt, ready.initialized);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      log('child %d exited (code %s, signal %s)', child.pid, code, signal);
      resolveExit({ code, signal });
    };
    if (hasExited(child)) onExit(child.exitCode, child.signalCode);
    else child.once('exit', onExit);
  });

  let stopping: Promise<void> | undefined;
  return {
    host: ready.host,
    port: ready.port,
    database: PGLITE_DATABASE,
    user: PGLITE_USER,
    password: PGLITE_PASSWORD,
    connectionString: `postgres://${PGLITE_USER}:${PGLITE_PASSWORD}@${ready.host}:${ready.port}/${PGLITE_DATABASE}`,
    pid: child.pid as number,
    initialized: ready.initialized,
    exited,
    stop: () => (stopping ??= terminate(child, stopTimeoutMs)),
  };
}

/** The template `npm install` made, when it is there. */
function installedTemplate(): string | undefined {
  try {
    const path = defaultTemplatePath();
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Forks server-process, this file's sibling in the same folder. From compiled code (dist/,
 * the bench's build) it is plain .js; from sources (ts-jest, ts-node) it is .ts and needs
 * ts-node in the child.
 */
function forkServer(args: string[]): ChildProcess {
  const extension = extname(__filename);
  const entry = join(__dirname, `${SERVER_PROCESS_FILE}${extension}`);
  // Nothing imports it, so a build that compiles only what is imported leaves it out.
  if (!existsSync(entry)) throw new SqlResourceError('INTERNAL_ERROR', `embedded PostgreSQL: ${entry} is missing (not built?)`);
  const execArgv = extension === '.ts' ? ['-r', 'ts-node/register/transpile-only'] : [];
  // Piped output is forwarded to debug, so PGlite's chatter stays out of the host's console.
  // Its own process group keeps a terminal's Ctrl-C away from it: the parent stops it after
  // its own resources, so in-flight queries can finish. It still dies with the parent (the
  // IPC channel closes). Windows has no process groups; there `detached` opens a console.
  return fork(entry, args, {
    execArgv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: process.platform !== 'win32',
  });
}

interface OutputTail {
  text(): string;
}

function captureOutput(child: ChildProcess): OutputTail {
  let tail = '';
  const record = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    logChildOutput('%s', text.trimEnd());
    tail = (tail + text).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', record);
  child.stderr?.on('data', record);
  return { text: () => tail.trim() };
}

function waitUntilReady(
  child: ChildProcess,
  timeoutMs: number,
  output: OutputTail,
): Promise<{ host: string; port: number; initialized: Initialization }> {
  return new Promise((resolve, reject) => {
    const withOutput = (message: string) => {
      const tail = output.text();
      return new SqlResourceError('DB_UNAVAILABLE', tail ? `${message}\n--- child output ---\n${tail}` : message);
    };
    const onMessage = (message: ServerToParentMessage) => {
      if (message.type === 'ready') settle(() => resolve({ host: message.host, port: message.port, initialized: message.initialized }));
      else if (message.type === 'failed') settle(() => reject(withOutput(`Embedded PostgreSQL failed to start: ${message.message}`)));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      // Let the last output arrive before quoting it.
      setImmediate(() => settle(() => reject(withOutput(
        `Embedded PostgreSQL exited before it was ready (code ${code}, signal ${signal})`,
      ))));
    };
    const onError = (error: Error) =>
      settle(() => reject(new SqlResourceError('DB_UNAVAILABLE', `Embedded PostgreSQL could not be started: ${error.message}`, { cause: error })));
    const timer = setTimeout(() => settle(() => reject(withOutput(
      `Embedded PostgreSQL was not ready within ${timeoutMs} ms`,
    ))), timeoutMs);

    let settled = false;
    function settle(finish: () => void): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
      finish();
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.on('error', onError);
  });
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Asks the child to stop, SIGKILLs it if it takes longer than timeoutMs, resolves once it has exited. */
function terminate(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const killTimer = setTimeout(() => {
      log('child %d did not stop within %d ms, sending SIGKILL', child.pid, timeoutMs);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(killTimer);
      resolve();
    });
    if (child.connected) child.send({ type: 'stop' });
    else child.kill('SIGTERM');
  });
}
