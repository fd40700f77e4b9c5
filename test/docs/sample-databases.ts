import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';
import { mysqlServer, postgresServer, q, rawQuery, uniqueName, type Kind } from '../support/servers';

/**
 * A database of its own per kind and run, so samples can use realistic table names
 * (`users`, `orders`) without meeting other tests or concurrent runs.
 */
export interface SampleDatabase {
  kind: Kind;
  name: string;
  /** What the documented profiles read through `{{DB_HOST}}` and friends. */
  env: Record<string, string>;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Drops the databases of earlier runs whose process is gone (a run killed, or a server down at the end). */
async function dropAbandoned(kind: Kind): Promise<void> {
  const sql =
    kind === 'mysql'
      ? "SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'sr\\_docs\\_%'"
      : "SELECT datname AS name FROM pg_database WHERE datname LIKE 'sr\\_docs\\_%'";
  for (const { name } of (await rawQuery(kind, sql)) as { name: string }[]) {
    const pid = Number(/^sr_docs_(\d+)_/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) await dropSampleDatabase({ kind, name, env: {} });
  }
}

export async function createSampleDatabase(kind: Kind): Promise<SampleDatabase> {
  await dropAbandoned(kind);
  const name = uniqueName('sr_docs');
  await rawQuery(kind, `CREATE DATABASE ${q(kind, name)}`);
  const server = kind === 'mysql' ? mysqlServer : postgresServer;
  const env = { DB_HOST: server.host, DB_PORT: String(server.port), DB_USER: server.user, DB_PASSWORD: server.password, DB_NAME: name };
  return { kind, name, env };
}

export async function dropSampleDatabase(database: SampleDatabase): Promise<void> {
  const force = database.kind === 'postgres' ? ' WITH (FORCE)' : '';
  await rawQuery(database.kind, `DROP DATABASE IF EXISTS ${q(database.kind, database.name)}${force}`);
}

/** Drops every table, then runs the page's fixture SQL: each sample starts from the same tables. */
export async function resetSampleDatabase(database: SampleDatabase, fixtureSql: string): Promise<void> {
  if (database.kind === 'mysql') {
    const connection = await createConnection({ ...mysqlServer, database: database.name, multipleStatements: true });
    try {
      const [tables] = await connection.query('SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()');
      const names = (tables as { name: string }[]).map((table) => q('mysql', table.name));
      const drop = names.length > 0 ? `DROP TABLE ${names.join(', ')};` : '';
      await connection.query(`SET FOREIGN_KEY_CHECKS = 0; ${drop} SET FOREIGN_KEY_CHECKS = 1; ${fixtureSql}`);
    } finally {
      await connection.end();
    }
    return;
  }
  const client = new Client({ ...postgresServer, database: database.name });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${fixtureSql}`);
  } finally {
    await client.end();
  }
}
