import { createConnection, createPool } from 'mysql2';
import { callerGone, CancellableConnection, refuseIfGone, watchCancel } from '../../cancellation';
import { poolClosed, SqlResourceError } from '../../errors';
import type { ServerSettings } from '../../config';
import type { ServerFeatures } from '../../dialect';
import type { IntegerRange } from '../../integers';
import type { AdapterHooks, ColumnInfo, ColumnType, DescribedStatement, DriverAdapter, PoolWait, Row, StatementResult } from '../../driver-adapter';
import type { Executor, Statement } from '../../statement';
import { mysqlTypeName, type MysqlColumnDefinition } from './mysql-type-names';

/** What runs a statement: the pool, or one connection of it. */
interface MysqlQueryable {
  execute(sql: string, params: unknown[], callback: MysqlCallback): void;
  query(sql: string, params: unknown[], callback: MysqlCallback): void;
}
/** The slice of a mysql2 pool this adapter uses. */
interface MysqlPool extends MysqlQueryable {
  getConnection(callback: (error: Error | null, connection: MysqlConnection) => void): void;
  end(callback: (error: Error | null) => void): void;
}
interface MysqlConnection extends MysqlQueryable, Pick<NodeJS.EventEmitter, 'on' | 'off'> {
  readonly threadId: number | null;
  /** Without a callback, the statement reports through events: `result` per row, then `end`, or `error`. */
  execute(sql: string, params: unknown[]): NodeJS.EventEmitter;
  execute(sql: string, params: unknown[], callback: MysqlCallback): void;
  /** Stops and restarts reading the socket, so a slow reader holds back a large result. */
  pause(): void;
  resume(): void;
  /** Prepares on the server and keeps the statement in the connection's cache (`execute` uses it too). */
  prepare(sql: string, callback: (error: MysqlError | null, statement: MysqlPreparedStatement) => void): void;
  /** Drops a statement from that cache and closes it on the server. */
  unprepare(sql: string): void;
  release(): void;
  destroy(): void;
  /** The socket: mysql2's `destroy()` only half-closes it. */
  readonly stream?: Pick<NodeJS.EventEmitter, 'on' | 'off'> & { destroy(): void };
}
type MysqlCallback = (error: MysqlError | null, result: unknown) => void;
/** What mysql2's `prepare` answers: the result's column definitions. */
interface MysqlPreparedStatement {
  readonly columns: readonly MysqlColumnDefinition[];
}
interface MysqlError extends Error {
  errno?: number;
}
interface ResultHeader {
  affectedRows?: number;
  insertId?: number | string;
}

const defaultPoolSize = 10;
/** Longest delay a Node timer takes (2^31 − 1 ms); longer ones fire at once. */
const maxTimerMs = 2_147_483_647;

/** mysql2 options this adapter reads as integers, with what each may be. */
export const mysqlIntegerOptions: Readonly<Record<string, IntegerRange>> = Object.freeze({
  connectionLimit: { min: 1, max: 10_000 },
  queueLimit: { min: 0, max: Number.MAX_SAFE_INTEGER },
  connectTimeout: { min: 0, max: maxTimerMs },
  maxIdle: { min: 0, max: 10_000 },
  idleTimeout: { min: 0, max: maxTimerMs },
});

/** ER_UNSUPPORTED_PS: a statement the binary protocol refuses; without values it runs as text. */
const ER_UNSUPPORTED_PS = 1295;

/** Prepared statements kept per connection; mysql2's LRU closes the oldest past this. */
const statementCacheSize = 256;

export class MysqlAdapter implements DriverAdapter {
  readonly poolSize: number;
  readonly poolWait: PoolWait;
  readonly #settings: ServerSettings;
  readonly #hooks: AdapterHooks;
  readonly #multipleStatements: boolean;
  readonly #integers: Readonly<Record<string, number>>;
  #pool?: MysqlPool;
  /** The pool's connection options, for the short-lived connection that sends `KILL QUERY`. */
  #connectionOptions?: Record<string, unknown>;

  /** `integers`: the options of `mysqlIntegerOptions`, checked when the resource was built. */
  constructor(settings: ServerSettings, hooks: AdapterHooks, integers: Readonly<Record<string, number>>) {
    this.#settings = settings;
    this.#hooks = hooks;
    this.#integers = integers;
    this.#multipleStatements = settings.driverOptions.multipleStatements === true;
    this.poolSize = integers.connectionLimit ?? defaultPoolSize;
    // mysql2: `waitForConnections: false` refuses at once; `queueLimit` (0: no limit) bounds the waiting calls.
    const queueLimit = integers.queueLimit ?? 0;
    this.poolWait = settings.driverOptions.waitForConnections === false ? { maxWaiting: 0 } : queueLimit > 0 ? { maxWaiting: queueLimit } : {};
  }

  async open(): Promise<ServerFeatures> {
    const settings = this.#settings;
    const options = {
      connectionLimit: defaultPoolSize,
      maxPreparedStatements: statementCacheSize,
      // Numbers that fit a double come back as numbers, larger BIGINTs as exact strings.
      supportBigNumbers: true,
      bigNumberStrings: false,
      ...settings.driverOptions,
      ...this.#integers,
      host: settings.host,
      port: settings.port,
      database: settings.database,
      user: settings.user,
      password: settings.password,
      charset: settings.charset,
      timezone: settings.timezone,
    };
    const single: Record<string, unknown> = { ...options };
    for (const poolOnly of ['connectionLimit', 'maxPreparedStatements', 'waitForConnections', 'queueLimit', 'maxIdle', 'idleTimeout']) delete single[poolOnly];
    this.#connectionOptions = single;
    this.#pool = createPool(options) as unknown as MysqlPool;
    const [{ version }] = (await this.run('SELECT VERSION() AS version', [])).rows as [{ version: string }];
    return Object.freeze({ insertReturning: mariadbHasReturning(version) });
  }

  run(sql: string, params: readonly unknown[], signal?: AbortSignal): Promise<StatementResult> {
    const pool = this.#pool;
    if (!pool) return Promise.reject(poolClosed());
    if (signal) return this.#runCancellable(sql, params, signal);
    return this.#runOn(pool, sql, params);
  }

  /** `run` on a connection of its own, so that the statement can be killed by its thread id. */
  async #runCancellable(sql: string, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
    if (signal.aborted) throw callerGone();
    const connection = await this.#connection();
    refuseIfGone(signal, connection);
    const watch = watchCancel(signal, () => this.#kill(connection), (error) => this.#hooks.onPoolError(error));
    try {
      return await this.#runOn(connection, sql, params);
    } finally {
      watch.dispose();
      if (watch.fired) connection.destroy();
      else connection.release();
    }
  }

  /** `KILL QUERY` for what `connection` runs, from a connection of its own (the pool may have none to spare). */
  #kill(connection: MysqlConnection): Promise<void> {
    const threadId = connection.threadId;
    if (!Number.isSafeInteger(threadId)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const killer = createConnection(this.#connectionOptions ?? {});
      killer.on('error', reject);
      killer.query(`KILL QUERY ${Number(threadId)}`, (error) => {
        killer.end(() => undefined);
        // The thread may have ended first (its socket closed): nothing left to cancel.
        if (error && (error as { code?: string }).code !== 'ER_NO_SUCH_THREAD') reject(error);
        else resolve();
      });
    });
  }

  #runOn(target: MysqlQueryable, sql: string, params: readonly unknown[]): Promise<StatementResult> {
    return new Promise((resolve, reject) => {
      const done: MysqlCallback = (error, result) => (error ? reject(error) : resolve(toStatementResult(result)));
      const values = params as unknown[];
      // Values are always bound server-side (binary protocol); only value-free SQL may go as text,
      // which several statements in one text need.
      if (values.length === 0 && this.#multipleStatements) return target.query(sql, values, done);
      target.execute(sql, values, (error, result) => {
        if (values.length === 0 && error?.errno === ER_UNSUPPORTED_PS) target.query(sql, values, done);
        else done(error, result);
      });
    });
  }

  #connection(): Promise<MysqlConnection> {
    const pool = this.#pool;
    if (!pool) return Promise.reject(poolClosed());
    return new Promise<MysqlConnection>((resolve, reject) => pool.getConnection((error, pooled) => (error ? reject(error) : resolve(pooled))));
  }

  /** A statement without values, as text: transaction control. */
  #control(connection: MysqlConnection, sql: string): Promise<StatementResult> {
    return new Promise((resolve, reject) => connection.query(sql, [], (error, result) => (error ? reject(error) : resolve(toStatementResult(result)))));
  }

  async transaction<T>(work: (executor: Executor) => Promise<T>): Promise<T> {
    const connection = await this.#connection();
    const executor = new CancellableConnection(
      (sql, values) => this.#runOn(connection, sql, values),
      () => this.#kill(connection),
      (error) => this.#hooks.onPoolError(error),
    );
    let result: T;
    try {
      await this.#control(connection, 'START TRANSACTION');
      result = await work(executor);
      await this.#control(connection, 'COMMIT');
    } catch (error) {
      // Destroyed (closing rolls back) when a kill was sent, or when ROLLBACK failed and may have left the transaction open.
      if (executor.cancelled) connection.destroy();
      else {
        await this.#control(connection, 'ROLLBACK').then(
          () => connection.release(),
          () => connection.destroy(),
        );
      }
      throw error;
    }
    if (executor.cancelled) connection.destroy();
    else connection.release();
    return result;
  }

  async *stream(sql: string, params: readonly unknown[], batchSize: number, signal?: AbortSignal, setup?: (executor: Executor) => Promise<void>): AsyncGenerator<Row[], void, undefined> {
    if (signal?.aborted) throw callerGone();
    const connection = await this.#connection();
    refuseIfGone(signal, connection);
    const inTransaction = setup !== undefined;
    if (inTransaction) {
      try {
        await this.#control(connection, 'START TRANSACTION');
        await setup({ run: (sql, values) => this.#runOn(connection, sql, values) });
      } catch (error) {
        connection.destroy();
        throw error;
      }
    }
    const watch = watchCancel(signal, () => this.#kill(connection), (error) => this.#hooks.onPoolError(error));
    let batch: Row[] = [];
    let ended = false;
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const waiting = wake;
      wake = undefined;
      waiting?.();
    };
    const statement = connection.execute(sql, params as unknown[]);
    statement.on('result', (row: Row) => {
      batch.push(row);
      // The socket stays unread while a full batch waits for its reader: that is the back-pressure.
      if (batch.length >= batchSize) {
        connection.pause();
        notify();
      }
    });
    statement.once('end', () => {
      ended = true;
      notify();
    });
    statement.on('error', (error: Error) => {
      failure ??= error;
      notify();
    });
    // mysql2 ends no statement whose connection the server closes mid-result (KILL, a restart):
    // without this, the stream would wait for its next batch for ever.
    const lost = (error?: Error): void => {
      if (ended) return;
      failure ??= error ?? connectionLost();
      notify();
    };
    const socketClosed = (): void => lost();
    connection.on('error', lost);
    connection.stream?.on('close', socketClosed);
    let complete = false;
    try {
      for (;;) {
        if (batch.length < batchSize && !ended && failure === undefined) await new Promise<void>((resolve) => (wake = resolve));
        if (failure !== undefined) throw failure;
        if (ended && inTransaction) await this.#control(connection, 'COMMIT');
        complete = ended;
        if (batch.length > 0) {
          const full = batch;
          batch = [];
          yield full;
        }
        if (complete) return;
        connection.resume();
      }
    } finally {
      watch.dispose();
      connection.off('error', lost);
      connection.stream?.off('close', socketClosed);
      // A result set read to its end leaves the connection reusable; one cut short, failed or killed does not.
      if (complete && !watch.fired) connection.release();
      else {
        // The server may still be running it (SLEEP, a long sort): it does not notice a closed socket.
        if (!complete && !watch.fired && failure === undefined) this.#kill(connection).catch((error: Error) => this.#hooks.onPoolError(error));
        connection.destroy();
        // mysql2 only ends its side: a server blocked writing rows to a paused socket would wait
        // for net_write_timeout (60 s), holding its locks. A full close fails that write at once.
        connection.stream?.destroy();
      }
    }
  }

  async describe(sql: string): Promise<DescribedStatement> {
    const connection = await this.#connection();
    try {
      const statement = await new Promise<MysqlPreparedStatement>((resolve, reject) =>
        connection.prepare(sql, (error, prepared) => (error ? reject(error) : resolve(prepared))),
      );
      return { columns: statement.columns.map((column) => ({ name: column.name, type: mysqlTypeName(column) })) };
    } finally {
      // Closed, and out of mysql2's cache: `close()` alone would leave a closed statement there for `execute` to find.
      connection.unprepare(sql);
      connection.release();
    }
  }

  columnsStatement(schema: string | undefined, table: string): Statement {
    return { sql: columnsQuery, values: [schema ?? null, table] };
  }

  columnsFrom(rows: readonly Row[]): ColumnInfo[] {
    const keyColumns = rows.filter((row) => row.columnKey === 'PRI').length;
    return rows.map((row) => ({
      name: String(row.name),
      primaryKey: row.columnKey === 'PRI',
      generated: /auto_increment/i.test(String(row.extra)),
      type: mysqlColumnType(String(row.dataType), String(row.columnType)),
      // UNI marks the first column of a unique index that holds it alone.
      unique: (row.columnKey === 'PRI' && keyColumns === 1) || row.columnKey === 'UNI',
      nullable: row.nullable === 'YES',
    }));
  }

  close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    if (!pool) return Promise.resolve();
    return new Promise((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())));
  }
}

/** The columns of one table (`?`: its schema, or NULL for the connection's database; `?`: its name). */
const columnsQuery = `SELECT COLUMN_NAME AS name, COLUMN_KEY AS columnKey, EXTRA AS extra, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType, IS_NULLABLE AS nullable
  FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?
 ORDER BY ORDINAL_POSITION`;

const mysqlTypes: Readonly<Record<string, ColumnType>> = {
  tinyint: 'integer',
  smallint: 'integer',
  mediumint: 'integer',
  int: 'integer',
  integer: 'integer',
  bigint: 'integer',
  decimal: 'number',
  numeric: 'number',
  float: 'number',
  double: 'number',
  real: 'number',
  char: 'text',
  varchar: 'text',
  tinytext: 'text',
  text: 'text',
  mediumtext: 'text',
  longtext: 'text',
  // An ENUM compared with a number matches by index: its values are bound as text.
  enum: 'text',
  set: 'text',
  json: 'json',
};

function mysqlColumnType(dataType: string, columnType: string): ColumnType {
  // BOOLEAN is TINYINT(1).
  if (/^tinyint\(1\)/i.test(columnType)) return 'boolean';
  return mysqlTypes[dataType.toLowerCase()] ?? 'other';
}

/** MariaDB has had `INSERT … RETURNING` since 10.5; MySQL has none. */
function mariadbHasReturning(version: string): boolean {
  const match = /^(\d+)\.(\d+).*mariadb/i.exec(version);
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 10 || (major === 10 && minor >= 5);
}

function toStatementResult(result: unknown): StatementResult {
  if (Array.isArray(result)) return { rows: result as Row[], hasResultSet: true, affectedRows: result.length };
  const header = (result ?? {}) as ResultHeader;
  const insertId = header.insertId === 0 || header.insertId === undefined ? undefined : header.insertId;
  return { rows: [], hasResultSet: false, affectedRows: header.affectedRows ?? 0, insertId };
}

/** For a statement mysql2 left waiting when the server ended its connection: unavailable, as its own loss would be. */
function connectionLost(): SqlResourceError {
  return new SqlResourceError('DB_UNAVAILABLE', 'stream failed: the server closed the connection in the middle of the result (PROTOCOL_CONNECTION_LOST)', {
    driverCode: 'PROTOCOL_CONNECTION_LOST',
  });
}
