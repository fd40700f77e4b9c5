import { createPool, type ExecuteValues, type Pool as MysqlPool, type ResultSetHeader, type RowDataPacket } from 'mysql2';
import { Pool as PgPool } from 'pg';
import { poolSize, servers, type Kind } from './servers';

/** Runs one fixed statement with fresh parameters. */
export type RawStatement = (params: unknown[]) => Promise<unknown>;

/**
 * The bare driver pool in its fastest mode: mysql2 `execute` (binary protocol, statements
 * prepared once per connection and cached by the driver) and pg named prepared statements
 * (one fixed name per statement, parsed once per connection). Answers the driver's own
 * result — rows, or the header of a write — with nothing mapped on top.
 */
export interface RawDriver {
  prepare(sql: string): RawStatement;
  close(): Promise<void>;
}

export interface RawOptions {
  /** Text protocol / unnamed statements and a small pool: for fixtures, not for measuring. */
  plain?: boolean;
}

export function rawDriver(kind: Kind, options: RawOptions = {}): RawDriver {
  return kind === 'mysql' ? rawMysql(options) : rawPostgres(options);
}

function rawMysql({ plain = false }: RawOptions): RawDriver {
  const pool: MysqlPool = createPool({
    ...servers.mysql,
    connectionLimit: plain ? 2 : poolSize,
    // The same decoding settings as the resource, so both sides build the same rows.
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'UTF8MB4_GENERAL_CI',
  });
  return {
    prepare: (sql) => (params) =>
      new Promise((resolve, reject) => {
        if (plain) return pool.query<RowDataPacket[] | ResultSetHeader>(sql, params, (error, result) => (error ? reject(error) : resolve(result)));
        pool.execute<RowDataPacket[] | ResultSetHeader>(sql, params as ExecuteValues, (error, result) => (error ? reject(error) : resolve(result)));
      }),
    close: () => new Promise((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve()))),
  };
}

function rawPostgres({ plain = false }: RawOptions): RawDriver {
  const pool = new PgPool({ ...servers.postgres, max: plain ? 2 : poolSize });
  // An idle client losing its server (a restart) emits here; unheard, it would end the process.
  pool.on('error', (error) => console.error(`raw postgres pool: ${error.message}`));
  let statements = 0;
  return {
    prepare: (sql) => {
      const name = plain ? undefined : `raw_${++statements}`;
      return async (values) => (await pool.query({ name, text: sql, values })).rows;
    },
    close: () => pool.end(),
  };
}
