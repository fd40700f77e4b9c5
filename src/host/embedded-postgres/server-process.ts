/**
 * Child-process entry point of the embedded PostgreSQL; start-server.ts forks it.
 *
 * DEVELOPMENT CONVENIENCE ONLY, not for production: PGlite is a single-session
 * WebAssembly Postgres, exposed over the wire protocol by pglite-socket.
 *
 * It runs in its own process because a long PGlite query blocks the event loop
 * of whatever process hosts it. It is started with an IPC channel and never
 * outlives its parent: losing the channel means the parent is gone, so it shuts down.
 *
 * Its arguments and messages are in ipc.ts. A data dir without a database is created from
 * --template when that file exists (see template.ts), else by initdb.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import createDebug from 'debug';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { SqlResourceError } from '../../errors';
import { DATA_DIR_MARKER, DEBUG_NAMESPACE, SHUTDOWN_DEADLINE_MS } from './constants';
import {
  parseServerSettings,
  type EmbeddedServerSettings,
  type Initialization,
  type ParentToServerMessage,
  type ServerToParentMessage,
} from './ipc';

const log = createDebug(`${DEBUG_NAMESPACE}:server`);

class EmbeddedServer {
  private opening: Promise<PGlite> | undefined;
  private socketServer: PGLiteSocketServer | undefined;
  private shuttingDown = false;

  constructor(private readonly settings: EmbeddedServerSettings) {}

  async start(): Promise<void> {
    const { dataDir, host, port, maxConnections } = this.settings;
    const startedAt = Date.now();
    const { db, initialized } = await this.open();
    log('PGlite ready in %d ms (data dir %s, %s)', Date.now() - startedAt, dataDir, initialized);
    if (this.shuttingDown) return;

    // pg pools open several sockets; the server's default of 1 would refuse all but the first.
    this.socketServer = new PGLiteSocketServer({ db: withExtendedQueryAffinity(db), host, port, maxConnections });
    const boundPort = await listen(this.socketServer);
    log('listening on %s:%d (max %d connections)', host, boundPort, maxConnections);
    if (this.shuttingDown) return;
    sendToParent({ type: 'ready', host, port: boundPort, initialized });
  }

  /**
   * A persistent data dir turns the first start's initdb (5-8 s) into a reopen (~0.5 s) on
   * later starts; the template makes the first start a ~1 s copy too.
   */
  private async open(): Promise<{ db: PGlite; initialized: Initialization }> {
    const { dataDir, template } = this.settings;
    if (existsSync(join(dataDir, DATA_DIR_MARKER))) return { db: await (this.opening = PGlite.create({ dataDir })), initialized: 'existing' };
    const empty = !existsSync(dataDir) || readdirSync(dataDir).length === 0;
    mkdirSync(dataDir, { recursive: true });
    // Only an empty folder is filled from the template: it could otherwise mix with other files.
    if (empty && template && existsSync(template)) {
      try {
        const loadDataDir = new Blob([readFileSync(template)]);
        return { db: await (this.opening = PGlite.create({ dataDir, loadDataDir })), initialized: 'template' };
      } catch (error) {
        log('template %s failed, running initdb instead: %O', template, error);
        await this.opening?.then((db) => db.close()).catch(() => undefined);
        for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
      }
    }
    return { db: await (this.opening = PGlite.create({ dataDir })), initialized: 'initdb' };
  }

  async shutdown(reason: string, exitCode = 0): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    log('shutting down: %s', reason);
    setTimeout(() => process.exit(exitCode === 0 ? 1 : exitCode), SHUTDOWN_DEADLINE_MS).unref();
    try {
      await this.socketServer?.stop();
      // A PGlite still running initdb is left to finish, then closed, so the data dir stays sound.
      const db = await this.opening?.catch(() => undefined);
      if (db && !db.closed) await db.close();
    } catch (error) {
      log('error while shutting down: %O', error);
      exitCode = exitCode || 1;
    }
    process.exit(exitCode);
  }
}

/** Extended-protocol messages that leave the session mid-batch until the client's Sync. */
const MID_BATCH_MESSAGE_TYPES = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((type) => type.charCodeAt(0)));
const SYNC_MESSAGE = Uint8Array.of('S'.charCodeAt(0), 0, 0, 0, 4);

/**
 * Keeps each client's Parse..Sync batch together on the one shared PGlite session.
 *
 * pglite-socket queues single protocol messages from all connections FIFO, so when a
 * client's batch arrives in several TCP chunks (large parameters), another client's
 * Parse can slip in between and replace the unnamed statement: the first client's Bind
 * then runs the OTHER client's SQL with its own parameters (measured: silent wrong rows).
 * The queue keeps serving one connection while isInTransaction() is true, so we report
 * true from the first message of a batch until its Sync. This leans on pglite-socket
 * 0.2.x internals; test/e2e/embedded-postgres.test.ts catches a regression.
 */
function withExtendedQueryAffinity(db: PGlite): PGlite {
  let midBatch = false;
  const overrides: Partial<PGlite> = {
    isInTransaction: () => midBatch || db.isInTransaction(),
    execProtocolRawStream: (message, options) => {
      midBatch = MID_BATCH_MESSAGE_TYPES.has(message[0]);
      return db.execProtocolRawStream(message, options);
    },
    // Called with ROLLBACK when the connection owning the session goes away. A batch it
    // left unfinished must be closed first, or Postgres would skip the ROLLBACK and every
    // message after it until some Sync arrives.
    exec: async (query, options) => {
      if (midBatch) {
        midBatch = false;
        await db.runExclusive(() => db.execProtocolRawStream(SYNC_MESSAGE, { onRawData: () => undefined }));
      }
      return db.exec(query, options);
    },
  };
  return new Proxy(db, {
    get(target, property) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) {
        return overrides[property as keyof PGlite];
      }
      // PGlite uses #private fields, so its methods must run with the real instance as `this`.
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Starts the socket server and resolves with the port it really bound (matters for port 0). */
async function listen(socketServer: PGLiteSocketServer): Promise<number> {
  let boundPort: number | undefined;
  socketServer.addEventListener('listening', (event) => {
    boundPort = (event as CustomEvent<{ port?: number }>).detail.port;
  });
  await socketServer.start();
  if (boundPort === undefined) throw new SqlResourceError('INTERNAL_ERROR', 'embedded PostgreSQL: the socket server did not report its port');
  return boundPort;
}

function sendToParent(message: ServerToParentMessage): void {
  if (process.connected) process.send?.(message);
}

function isStopMessage(message: unknown): message is ParentToServerMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'stop';
}

function stopWithParent(server: EmbeddedServer): void {
  const shutdownOn = (reason: string) => () => void server.shutdown(reason);
  process.on('SIGTERM', shutdownOn('SIGTERM'));
  process.on('SIGINT', shutdownOn('SIGINT'));
  // The IPC channel closes when the parent exits or dies, even by SIGKILL.
  process.on('disconnect', shutdownOn('parent disconnected'));
  process.on('message', (message) => {
    if (isStopMessage(message)) void server.shutdown('stop requested');
  });
}

async function main(): Promise<void> {
  if (!process.send) {
    throw new SqlResourceError('INTERNAL_ERROR', 'embedded-postgres server-process must be started by child_process.fork (it needs an IPC channel)');
  }
  const server = new EmbeddedServer(parseServerSettings(process.argv.slice(2)));
  stopWithParent(server);
  try {
    await server.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    sendToParent({ type: 'failed', message });
    await server.shutdown(`start failed: ${message}`, 1);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
