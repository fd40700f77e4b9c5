import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';

/** The real servers the tests use; override with the environment variables in the README. */
export const mysqlServer = {
  host: process.env.MYSQL_HOST ?? '127.0.0.1',
  port: Number(process.env.MYSQL_PORT ?? 3306),
  user: process.env.MYSQL_USER ?? 'root',
  password: process.env.MYSQL_PASSWORD ?? '',
  database: process.env.MYSQL_DATABASE ?? 'test',
};

export const postgresServer = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
  password: process.env.PGPASSWORD ?? '',
  database: process.env.PGDATABASE ?? 'test',
};

export type Kind = 'mysql' | 'postgres';
export const kinds: Kind[] = ['mysql', 'postgres'];

export const startCommands: Record<Kind, string> = {
  mysql: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd',
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
};

/** A resource configuration for the test server of `kind` (the password only when set). */
export function serverConfig(kind: Kind, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const server = kind === 'mysql' ? mysqlServer : postgresServer;
  const { password, ...rest } = server;
  return { ...rest, ...(password ? { password } : {}), ...extra };
}

/**
 * A resource of `kind` on the local server. `keepAliveInterval` is mysql's alone: it is left out
 * for postgres, whose profile schema refuses it, so one call site serves both kinds.
 */
export function resourceConfig(kind: Kind, server: Record<string, unknown> = {}, options: Record<string, unknown> = {}): Record<string, unknown> {
  const { keepAliveInterval, ...shared } = options;
  return { _class: kind, server: serverConfig(kind, server), ...shared, ...(kind === 'mysql' && keepAliveInterval !== undefined ? { keepAliveInterval } : {}) };
}

/** Runs SQL on a fresh raw driver connection: fixtures and checks that bypass the product. */
export async function rawQuery(kind: Kind, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (kind === 'mysql') {
    const connection = await createConnection({ ...mysqlServer, supportBigNumbers: true, bigNumberStrings: true });
    try {
      const [rows] = await connection.query(sql, params);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    } finally {
      await connection.end();
    }
  }
  const client = new Client(postgresServer);
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function probe(kind: Kind): Promise<void> {
  try {
    await rawQuery(kind, 'SELECT 1');
  } catch (error) {
    const where = kind === 'mysql' ? mysqlServer : postgresServer;
    throw new Error(
      `The ${kind} test server at ${where.host}:${where.port} is not reachable (${(error as Error).message}).\n` +
        `Start it with: ${startCommands[kind]}`,
    );
  }
}

/** A table name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Identifier quoting for fixtures written by hand in tests. */
export function q(kind: Kind, name: string): string {
  return kind === 'mysql' ? '`' + name.replace(/`/g, '``') + '`' : '"' + name.replace(/"/g, '""') + '"';
}

/** Column types that differ by kind, for fixtures. */
export const types: Record<Kind, { serial: string; json: string; bigint: string; text: string; timestamp: string }> = {
  mysql: { serial: 'INT AUTO_INCREMENT PRIMARY KEY', json: 'TEXT', bigint: 'BIGINT', text: 'TEXT', timestamp: 'DATETIME(3)' },
  postgres: { serial: 'SERIAL PRIMARY KEY', json: 'TEXT', bigint: 'BIGINT', text: 'TEXT', timestamp: 'TIMESTAMP(3)' },
};

/** A derived table of the digits 0–9 (column `d`): cross joins of it seed rows on MySQL, which has no generate_series. */
export const digitsTable = `(${Array.from({ length: 10 }, (_, digit) => `SELECT ${digit} AS d`).join(' UNION ALL ')})`;

/** SQL that fills column `n` of `table` (already quoted) with the integers 1…count. */
export function fillNumbersSql(kind: Kind, table: string, count: number): string {
  if (kind === 'postgres') return `INSERT INTO ${table} (n) SELECT generate_series(1, ${count})`;
  const places = Array.from({ length: Math.max(1, Math.ceil(Math.log10(count))) }, (_, place) => `p${place}`);
  const value = places.map((alias, place) => `${alias}.d * ${10 ** place}`).join(' + ');
  const from = places.map((alias) => `${digitsTable} ${alias}`).join(', ');
  return `INSERT INTO ${table} (n) SELECT n FROM (SELECT ${value} + 1 AS n FROM ${from}) numbers WHERE n <= ${count}`;
}
