import type { Connection, PoolClient, Submittable } from 'pg';
import type { DescribedStatement } from '../../driver-adapter';

/** A result column as the server's RowDescription gives it: its type is an OID. */
interface DescribedField {
  name: string;
  dataTypeID: number;
}

type DescribeCallback = (error: Error | undefined, fields: readonly DescribedField[]) => void;

/**
 * Parse and Describe of one statement, then Sync: no Bind, no Execute, so the server checks the
 * SQL (syntax, tables, columns, types) and says what its result would be without running it.
 * The statement is unnamed and the exchange ends with its own Sync, so it also works through
 * PgBouncer in transaction mode. Handed to `client.query()` as pg-cursor is; the `handle*`
 * methods are what pg's client calls on the query it is running.
 */
class DescribeSubmittable implements Submittable {
  /** pg's client may wrap it (`query_timeout`), so it is a public field, as in pg's own queries. */
  callback: DescribeCallback | undefined;
  #fields: readonly DescribedField[] = [];

  constructor(
    readonly text: string,
    callback: DescribeCallback,
  ) {
    this.callback = callback;
  }

  submit(connection: Connection): void {
    connection.parse({ text: this.text, name: '', types: [] }, true);
    connection.describe({ type: 'S', name: '' }, true);
    connection.sync();
  }

  handleRowDescription(message: { fields: DescribedField[] }): void {
    this.#fields = message.fields;
  }

  /** The end of the exchange. A statement that returns no rows gets NoData, which pg does not pass on: no fields. */
  handleReadyForQuery(): void {
    this.#settle(undefined, this.#fields);
  }

  /** Settles at once: pg forgets the query on an error, and its ReadyForQuery then reaches no one. */
  handleError(error: Error): void {
    this.#settle(error, []);
  }

  // Answers to Execute: never sent here, but pg calls them on whatever query is active.
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handlePortalSuspended(): void {}
  handleEmptyQuery(): void {}

  #settle(error: Error | undefined, fields: readonly DescribedField[]): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(error, fields);
  }
}

/** The server's name of each type OID, as `format_type` writes it (`integer`, `character varying`). */
const typeNamesQuery = 'SELECT oid::int8 AS oid, format_type(oid, NULL) AS name FROM pg_type WHERE oid = ANY($1::oid[])';

/**
 * Describes `sql` on `client` without running it, naming each column's type. `typeNames` caches
 * the names per pool: a type's OID stays its own while the type exists.
 */
export async function describeOn(client: PoolClient, sql: string, typeNames: Map<number, string>): Promise<DescribedStatement> {
  const fields = await new Promise<readonly DescribedField[]>((resolve, reject) => {
    client.query(new DescribeSubmittable(sql, (error, described) => (error ? reject(error) : resolve(described))));
  });
  const unknown = [...new Set(fields.map((field) => field.dataTypeID).filter((oid) => !typeNames.has(oid)))];
  if (unknown.length > 0) {
    const { rows } = await client.query<{ oid: number; name: string }>(typeNamesQuery, [unknown]);
    for (const row of rows) typeNames.set(Number(row.oid), row.name);
  }
  return { columns: fields.map((field) => ({ name: field.name, type: typeNames.get(field.dataTypeID) ?? `oid ${field.dataTypeID}` })) };
}
