/** The local servers the bench runs against; the same environment overrides as the tests. */
export type Kind = 'mysql' | 'postgres';
export const kinds: Kind[] = ['mysql', 'postgres'];

export interface ServerAddress {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

export const servers: Record<Kind, ServerAddress> = {
  mysql: {
    host: process.env.MYSQL_HOST ?? '127.0.0.1',
    port: Number(process.env.MYSQL_PORT ?? 3306),
    user: process.env.MYSQL_USER ?? 'root',
    password: process.env.MYSQL_PASSWORD || undefined,
    database: process.env.MYSQL_DATABASE ?? 'test',
  },
  postgres: {
    host: process.env.PGHOST ?? '127.0.0.1',
    port: Number(process.env.PGPORT ?? 5432),
    user: process.env.PGUSER ?? 'postgres',
    password: process.env.PGPASSWORD || undefined,
    database: process.env.PGDATABASE ?? 'test',
  },
};

/** Pool size of every pool in the bench: the resources' default, and the raw drivers'. */
export const poolSize = 10;

/** Identifier quoting as each dialect does it (the bench writes the raw SQL by hand). */
export function quote(kind: Kind, identifier: string): string {
  return kind === 'mysql' ? '`' + identifier.replace(/`/g, '``') + '`' : '"' + identifier.replace(/"/g, '""') + '"';
}

/** Bound-parameter marker `index` (1-based). */
export function marker(kind: Kind, index: number): string {
  return kind === 'mysql' ? '?' : `$${index}`;
}

/** A table name nobody else uses, so parallel runs and tests never collide. */
export function uniqueTable(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}`;
}
