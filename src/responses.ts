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

export function rowsOf(result: StatementResult): Row[] {
  return result.rows;
}

export function firstRow(result: StatementResult): Row {
  return result.rows[0];
}

export function affectedRowsOf(result: StatementResult): AffectedRows {
  return { affectedRows: result.affectedRows };
}

export function countAffected(response: AffectedRows): number {
  return response.affectedRows;
}

export function countOne(row: Row | undefined): number {
  return row === undefined ? 0 : 1;
}

export function countRows(result: Row[] | WriteResult): number {
  return Array.isArray(result) ? result.length : result.affectedRows;
}

export function toQueryResponse(result: StatementResult): Row[] | WriteResult {
  if (result.hasResultSet) return result.rows;
  return result.insertId === undefined ? { affectedRows: result.affectedRows } : { affectedRows: result.affectedRows, insertId: result.insertId };
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
