import { Client, Pool, types as pgTypes, type PoolClient, type PoolConfig, type QueryConfig, type QueryResult } from 'pg';
import Cursor from 'pg-cursor';
import type { ServerSettings } from '../../config';
import { callerGone, CancellableConnection, refuseIfGone, watchCancel } from '../../cancellation';
import { poolClosed } from '../../errors';
import type { ServerFeatures } from '../../dialect';
import type { IntegerRange } from '../../integers';
import type { AdapterHooks, ColumnInfo, ColumnType, DescribedStatement, DriverAdapter, PoolWait, Row, StatementResult } from '../../driver-adapter';
import type { Executor, Statement } from '../../statement';
import { postgresDialect } from './dialect';
import { describeOn } from './postgres-describe';

/** What runs a statement: the pool, or one client of it (the slice of both this adapter uses). */
interface PgQueryable {
  query(query: QueryConfig, callback: (error: Error | undefined, result: QueryResult | undefined) => void): void;
}

const INT8_OID = 20;
const defaultPoolSize = 10;
/** Longest delay a Node timer takes (2^31 − 1 ms); longer ones fire at once. */
const maxTimerMs = 2_147_483_647;

/** pg options this adapter reads as integers (`connectTimeout`: ours, pg's `connectionTimeoutMillis`). */
export const postgresIntegerOptions: Readonly<Record<string, IntegerRange>> = Object.freeze({
  max: { min: 1, max: 10_000 },
  connectTimeout: { min: 0, max: maxTimerMs },
  connectionTimeoutMillis: { min: 0, max: maxTimerMs },
  idleTimeoutMillis: { min: 0, max: maxTimerMs },
});
const TIMESTAMP_OID = 1114;

/** Distinct statements given a server-side name; later ones run unnamed, so memory stays bounded. */
const namedStatementLimit = 256;

const wallClockPattern = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/;

/** The pg client encoding for a MySQL-style charset name; pg itself only decodes UTF-8. */
export function clientEncodingOf(charset: string): string | undefined {
  return /^utf-?8/i.test(charset) ? 'UTF8' : undefined;
}

/** BIGINT as a number when exact, as its decimal text beyond 2^53. */
function parseBigint(text: string): number | string {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

/** `±HH:MM` → minutes east of UTC. */
function offsetMinutes(timezone: string): number {
  if (timezone === 'Z') return 0;
  const sign = timezone.startsWith('-') ? -1 : 1;
  return sign * (Number(timezone.slice(1, 3)) * 60 + Number(timezone.slice(4, 6)));
}

/**
 * With a fixed `timezone`, `timestamp without time zone` values are wall-clock times in that
 * zone, both when read and when a Date is sent. Done client-side so no session state is
 * needed (PgBouncer transaction pooling).
 */
function timezoneCodec(timezone: string): { parse: (text: string) => Date | string; encode: (date: Date) => string } {
  const suffix = timezone === 'Z' ? 'Z' : timezone;
  const shift = offsetMinutes(timezone) * 60_000;
  const defaultParse = pgTypes.getTypeParser(TIMESTAMP_OID, 'text') as (text: string) => Date | string;
  return {
    parse: (text) => (wallClockPattern.test(text) ? new Date(text.replace(' ', 'T') + suffix) : defaultParse(text)),
    encode: (date) => new Date(date.getTime() + shift).toISOString().slice(0, -1) + suffix,
  };
}

const postgresTypes: Readonly<Record<string, ColumnType>> = {
  smallint: 'integer',
  integer: 'integer',
  bigint: 'integer',
  numeric: 'number',
  real: 'number',
  'double precision': 'number',
  boolean: 'boolean',
  text: 'text',
  'character varying': 'text',
  character: 'text',
  name: 'text',
  citext: 'text',
  json: 'json',
  jsonb: 'json',
};

function postgresColumnType(dataType: string): ColumnType {
  return postgresTypes[dataType] ?? 'other';
}

/** PostgreSQL has had `RETURNING` on every write since 8.2. */
const postgresFeatures: ServerFeatures = Object.freeze({ insertReturning: true });

/** The columns of one table (`$1`: its quoted, maybe schema-qualified name), in table order. */
const columnsQuery = `SELECT a.attname AS name,
       COALESCE(i.indisprimary, false) AS primary_key,
       format_type(COALESCE(NULLIF(t.typbasetype, 0), a.atttypid), NULL) AS data_type,
       EXISTS (SELECT 1 FROM pg_index u
                WHERE u.indrelid = a.attrelid AND u.indisunique AND u.indnkeyatts = 1
                  AND u.indkey[0] = a.attnum AND u.indpred IS NULL) AS is_unique,
       (a.attidentity <> '' OR a.attgenerated <> ''
          OR COALESCE(pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%') AS generated,
       NOT a.attnotnull AS nullable
  FROM pg_attribute a
  JOIN pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY(i.indkey)
 WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum`;

function toStatementResult(result: QueryResult): StatementResult {
  return { rows: result.rows, hasResultSet: result.fields.length > 0, affectedRows: result.rowCount ?? result.rows.length };
}

export class PostgresAdapter implements DriverAdapter {
  readonly poolSize: number;
  readonly poolWait: PoolWait;
  readonly #settings: ServerSettings;
  readonly #hooks: AdapterHooks;
  readonly #statementNames = new Map<string, string>();
  #namedCount = 0;
  /** Type names by OID, for `describe`. */
  readonly #typeNames = new Map<number, string>();
  readonly #encodeDate?: (date: Date) => string;
  readonly #parseTimestamp?: (text: string) => Date | string;
  readonly #integers: Readonly<Record<string, number>>;
  #pool?: Pool;
  /** The pool's connection settings, for the short-lived connection that sends a cancel. */
  #clientConfig?: PoolConfig;

  /** `integers`: the options of `postgresIntegerOptions`, checked when the resource was built. */
  constructor(settings: ServerSettings, hooks: AdapterHooks, integers: Readonly<Record<string, number>>) {
    this.#settings = settings;
    this.#hooks = hooks;
    this.#integers = integers;
    this.poolSize = integers.max ?? defaultPoolSize;
    // pg waits `connectionTimeoutMillis` (our `connectTimeout`) for a pooled client; 0 or none: no limit.
    const waitMs = integers.connectionTimeoutMillis ?? integers.connectTimeout ?? 0;
    this.poolWait = waitMs > 0 ? { timeoutMs: waitMs } : {};
    if (settings.timezone !== 'local') {
      const codec = timezoneCodec(settings.timezone);
      this.#encodeDate = codec.encode;
      this.#parseTimestamp = codec.parse;
    }
  }

  async open(): Promise<ServerFeatures> {
    const { connectTimeout, ...integers } = this.#integers;
    // `connectTimeout` is ours (the name mysql2 uses); pg calls it connectionTimeoutMillis.
    const driverOptions: Record<string, unknown> = { ...this.#settings.driverOptions };
    delete driverOptions.connectTimeout;
    const parseTimestamp = this.#parseTimestamp;
    const config: PoolConfig = {
      max: defaultPoolSize,
      ...(connectTimeout === undefined ? {} : { connectionTimeoutMillis: connectTimeout }),
      ...driverOptions,
      ...integers,
      host: this.#settings.host,
      port: this.#settings.port,
      database: this.#settings.database,
      user: this.#settings.user,
      password: this.#settings.password,
      client_encoding: clientEncodingOf(this.#settings.charset),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === INT8_OID) return parseBigint;
          if (oid === TIMESTAMP_OID && parseTimestamp) return parseTimestamp;
          return pgTypes.getTypeParser(oid, format);
        }) as typeof pgTypes.getTypeParser,
      },
    };
    this.#clientConfig = config;
    const pool = new Pool(config);
    // An idle client that loses its server emits here; without a listener it would crash the process.
    pool.on('error', (error) => this.#hooks.onPoolError(error));
    // A checked-out client (a stream, a transaction, a cancellable statement) emits on itself, and
    // pg-pool listens only to idle ones: a server restart under a list would crash the process.
    // The error reaches the client's running statement, or its next one, which fails as DB_UNAVAILABLE.
    pool.on('connect', (client) => client.on('error', ignoreCheckedOutError));
    this.#pool = pool;
    await pool.query('SELECT 1');
    return postgresFeatures;
  }

  #statementName(sql: string): string | undefined {
    const known = this.#statementNames.get(sql);
    if (known !== undefined || this.#statementNames.size >= namedStatementLimit) return known;
    this.#namedCount += 1;
    const name = `sr_${this.#namedCount}`;
    this.#statementNames.set(sql, name);
    return name;
  }

  #values(params: readonly unknown[]): unknown[] {
    const encodeDate = this.#encodeDate;
    return encodeDate ? params.map((value) => (value instanceof Date ? encodeDate(value) : value)) : (params as unknown[]);
  }

  run(sql: string, params: readonly unknown[], signal?: AbortSignal): Promise<StatementResult> {
    const pool = this.#pool;
    if (!pool) return Promise.reject(poolClosed());
    if (signal) return this.#runCancellable(pool, sql, params, signal);
    return this.#runOn(pool as unknown as PgQueryable, sql, params);
  }

  /** `run` on a client of its own, so that the statement can be cancelled by its backend's pid. */
  async #runCancellable(pool: Pool, sql: string, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
    if (signal.aborted) throw callerGone();
    const client = await pool.connect();
    refuseIfGone(signal, client);
    const watch = watchCancel(signal, () => this.#cancel(client), (error) => this.#hooks.onPoolError(error));
    try {
      return await this.#runOn(client as unknown as PgQueryable, sql, params);
    } finally {
      watch.dispose();
      client.release(watch.fired ? true : undefined);
    }
  }

  /** Cancels what `client` runs, from a connection of its own (the pool may have none to spare). */
  async #cancel(client: PoolClient): Promise<void> {
    const pid = (client as unknown as { processID?: number }).processID;
    if (typeof pid !== 'number') return;
    const canceller = new Client(this.#clientConfig);
    await canceller.connect();
    try {
      await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    } finally {
      await canceller.end();
    }
  }

  async transaction<T>(work: (executor: Executor) => Promise<T>): Promise<T> {
    const pool = this.#pool;
    if (!pool) throw poolClosed();
    const client: PoolClient = await pool.connect();
    const target = client as unknown as PgQueryable;
    const executor = new CancellableConnection(
      (sql, values) => this.#runOn(target, sql, values),
      () => this.#cancel(client),
      (error) => this.#hooks.onPoolError(error),
    );
    let result: T;
    try {
      await client.query('BEGIN');
      result = await work(executor);
      await client.query('COMMIT');
    } catch (error) {
      // Discarded (closing rolls back) when a cancel was sent, or when ROLLBACK failed and may have left the transaction open.
      if (executor.cancelled) client.release(true);
      else {
        await client.query('ROLLBACK').then(
          () => client.release(),
          (rollbackError: Error) => client.release(rollbackError),
        );
      }
      throw error;
    }
    client.release(executor.cancelled || undefined);
    return result;
  }

  #runOn(target: PgQueryable, sql: string, params: readonly unknown[]): Promise<StatementResult> {
    let values: unknown[];
    try {
      values = this.#values(params);
    } catch (error) {
      return Promise.reject(error);
    }
    const query: QueryConfig = { text: sql, values };
    if (this.#settings.preparedStatements) query.name = this.#statementName(sql);
    // pg's callback form: one promise per statement (ours) instead of pg-pool's plus an async wrapper.
    return new Promise((resolve, reject) => {
      const settle = (error: Error | undefined, result: QueryResult | undefined): void => {
        if (error) return reject(error);
        try {
          resolve(toStatementResult(result as QueryResult));
        } catch (shapeError) {
          reject(shapeError);
        }
      };
      target.query(query, (error: Error | undefined, result: QueryResult | undefined) => {
        // After a schema change a prepared `SELECT *` fails once per connection ("cached plan must
        // not change result type"): run it unnamed and give the text a fresh name for next time.
        if (error && query.name !== undefined && (error as { code?: string }).code === '0A000') {
          this.#statementNames.delete(sql);
          target.query({ text: sql, values }, settle);
          return;
        }
        settle(error, result);
      });
    });
  }

  async *stream(sql: string, params: readonly unknown[], batchSize: number, signal?: AbortSignal, setup?: (executor: Executor) => Promise<void>): AsyncGenerator<Row[], void, undefined> {
    const pool = this.#pool;
    if (!pool) throw poolClosed();
    const values = this.#values(params);
    if (signal?.aborted) throw callerGone();
    const client = await pool.connect();
    refuseIfGone(signal, client);
    const watch = watchCancel(signal, () => this.#cancel(client), (error) => this.#hooks.onPoolError(error));
    const inTransaction = setup !== undefined;
    let complete = false;
    let failed: Error | undefined;
    try {
      if (inTransaction) {
        await client.query('BEGIN');
        const target = client as unknown as PgQueryable;
        await setup({ run: (sql, values) => this.#runOn(target, sql, values) });
      }
      // A cursor (a portal read `batchSize` rows per round trip) keeps memory flat however large the result.
      const cursor = client.query(new Cursor<Row>(sql, values));
      for (;;) {
        const rows = await cursor.read(batchSize);
        // A short batch means the server reported the end of the result: the connection is idle again.
        const last = rows.length < batchSize;
        if (last && inTransaction) await client.query('COMMIT');
        complete = last;
        if (rows.length > 0) yield rows;
        if (complete) return;
      }
    } catch (error) {
      failed = error as Error;
      throw error;
    } finally {
      watch.dispose();
      // A cursor cut short or failed may leave the connection mid-protocol (or mid-transaction): discard it then.
      client.release(complete && !watch.fired ? undefined : (failed ?? true));
    }
  }

  columnsStatement(schema: string | undefined, table: string): Statement {
    const qualified = (schema === undefined ? '' : postgresDialect.quoteIdentifier(schema) + '.') + postgresDialect.quoteIdentifier(table);
    return { sql: columnsQuery, values: [qualified] };
  }

  columnsFrom(rows: readonly Row[]): ColumnInfo[] {
    return rows.map((row) => ({
      name: String(row.name),
      primaryKey: row.primary_key === true,
      generated: row.generated === true,
      type: postgresColumnType(String(row.data_type)),
      unique: row.is_unique === true,
      nullable: row.nullable === true,
    }));
  }

  async describe(sql: string): Promise<DescribedStatement> {
    const pool = this.#pool;
    if (!pool) throw poolClosed();
    const client = await pool.connect();
    try {
      return await describeOn(client, sql, this.#typeNames);
    } finally {
      // The server's error ends with its ReadyForQuery: the client stays usable.
      client.release();
    }
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.end();
  }
}

/** The client's own statement reports the error; this only keeps it from being an uncaught 'error' event. */
function ignoreCheckedOutError(): void {}
