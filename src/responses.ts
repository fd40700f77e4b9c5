import type { ColumnInfo, Row, StatementResult } from './driver-adapter';
import { SqlResourceError } from './errors';
import { toStoredValue, type Filter } from './sql-builder';

/**
 * What the resource methods answer, made from a statement's result: small pure functions the
 * statement path calls as a call's `respond` and `count`.
 */

/** What `query` answers for a statement that returns no rows. */
export interface WriteResult {
  affectedRows: number;
  insertId?: number | string;
}

export interface AffectedRows {
  affectedRows: number;
}

export function same<T>(result: T): T {
  return result;
}

/**
 * The rows as the caller's row type `T`. A type argument is the caller's promise about the SQL or
 * the table, not a check made at run time (docs/typescript.md).
 */
export function rowsOf<T extends object = Row>(result: StatementResult): T[] {
  return result.rows as T[];
}

export function firstRow<T extends object = Row>(result: StatementResult): T {
  return result.rows[0] as T;
}

/** `select` promised rows: a statement that returned no result set fails, though it has run. */
export function requireResultSet(result: StatementResult): StatementResult {
  if (result.hasResultSet) return result;
  throw new SqlResourceError(
    'INVALID_ARGUMENT',
    `select needs a statement that returns rows; this one returned none and has run (${result.affectedRows} rows affected): use execute for statements that write`,
  );
}

export function affectedRowsOf(result: StatementResult): AffectedRows {
  return { affectedRows: result.affectedRows };
}

export function countAffected(response: AffectedRows): number {
  return response.affectedRows;
}

export function countOne(row: object | undefined): number {
  return row === undefined ? 0 : 1;
}

export function countRows(result: object[] | WriteResult): number {
  return Array.isArray(result) ? result.length : result.affectedRows;
}

/** What `execute` answers for any statement, and `query` for one that returns no rows. */
export function writeResultOf(result: StatementResult): WriteResult {
  return result.insertId === undefined ? { affectedRows: result.affectedRows } : { affectedRows: result.affectedRows, insertId: result.insertId };
}

export function toQueryResponse<T extends object = Row>(result: StatementResult): T[] | WriteResult {
  return result.hasResultSet ? rowsOf<T>(result) : writeResultOf(result);
}

/** An entry as the database receives it: defined values only, objects and arrays as JSON. */
export function storedForm(entry: Row): Row {
  const stored: Row = {};
  for (const [column, value] of Object.entries(entry)) if (value !== undefined) stored[column] = toStoredValue(value);
  return stored;
}

/** The primary key of a row just inserted, when the entry or the insert id gives all of it. */
export function keyOfInsertedRow(columns: readonly ColumnInfo[], entry: Row, insertId: number | string | undefined): Filter | undefined {
  const primary = columns.filter((column) => column.primaryKey);
  const key: Filter = {};
  for (const column of primary) {
    if (entry[column.name] !== undefined) key[column.name] = toStoredValue(entry[column.name]);
    else if (column.generated && insertId !== undefined) key[column.name] = insertId;
  }
  return primary.length > 0 && Object.keys(key).length === primary.length ? key : undefined;
}

export function notUnique(operation: string, table: string, matched: number): SqlResourceError {
  return new SqlResourceError('NOT_UNIQUE', `${operation} on ${table} refused: the key matches ${matched} rows, so nothing was changed`);
}
