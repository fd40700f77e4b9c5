import { isPlainObject } from './config';
import type { ColumnInfo, ColumnType, Row } from './driver-adapter';
import { SqlResourceError } from './errors';
import { exactIntegerOf } from './integers';
import type { Filter } from './sql-builder';

/**
 * Typed binding from the catalogue. A value is checked against its column's type and bound in
 * the form that column compares exactly: a number given for a text key is bound as its text (so
 * MySQL never compares `'FR' = 0` numerically), an integer key takes integers only, and
 * integers past ±2^53 travel as exact decimal text. Messages name the column and the rule,
 * never the value.
 */

/** A table as the catalogue describes it, indexed for the per-call lookups. */
export interface TableShape {
  readonly columns: readonly ColumnInfo[];
  column(name: string): ColumnInfo | undefined;
}

export function tableShape(columns: readonly ColumnInfo[], ignoreCase: boolean): TableShape {
  const byName = new Map(columns.map((column) => [column.name, column]));
  const byLowerName = ignoreCase ? new Map(columns.map((column) => [column.name.toLowerCase(), column])) : undefined;
  return {
    columns,
    column: (name) => byName.get(name) ?? byLowerName?.get(name.toLowerCase()),
  };
}

const writtenInteger = /^[-+]?[0-9]+$/;
const decimalNumber = /^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$/;

const expected: Readonly<Record<ColumnType, string>> = {
  integer: 'an integer (a JSON integer, or its decimal digits as a string)',
  number: 'a number',
  boolean: 'a boolean',
  text: 'a string or a number',
  json: 'a JSON value',
  other: 'a scalar value',
};

/**
 * One value that names rows (a filter value, an endpoint's id) in the form its column compares
 * exactly; undefined when the column's type cannot take it.
 */
function keyValueOrUndefined(type: ColumnType, value: unknown): unknown {
  switch (type) {
    case 'integer':
      return exactIntegerOf(value);
    case 'number':
      if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
      if (typeof value === 'bigint') return value.toString();
      return typeof value === 'string' && decimalNumber.test(value) ? value : undefined;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 0 || value === 1) return value === 1;
      if (value === 'true' || value === 'false') return value === 'true';
      return value === '0' || value === '1' ? value === '1' : undefined;
    case 'other':
      // Dates, buffers and the like go to the driver as they are; numbers as text, like text keys.
      if (value instanceof Date || Buffer.isBuffer(value) || typeof value === 'boolean') return value;
    // falls through
    default:
      if (typeof value === 'string') return value;
      if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
      return typeof value === 'bigint' ? value.toString() : undefined;
  }
}

/** A filter with every value in its column's form; unknown columns and mistyped values refused. */
export function typedFilter(table: TableShape, tableName: string, filter: Filter): Filter {
  if (!isPlainObject(filter)) return filter; // the builder refuses it with its own message
  const typed: Filter = {};
  const unknown: string[] = [];
  for (const name of Object.keys(filter)) {
    const column = table.column(name);
    const value = filter[name];
    if (column === undefined) {
      unknown.push(name);
      continue;
    }
    if (value === null || value === undefined) typed[name] = value;
    else if (Array.isArray(value)) typed[name] = value.map((item) => filterValue(column, item));
    else typed[name] = filterValue(column, value);
  }
  if (unknown.length > 0) throw unknownColumns(tableName, unknown);
  return typed;
}

function filterValue(column: ColumnInfo, value: unknown): unknown {
  const typed = keyValueOrUndefined(column.type, value);
  if (typed === undefined) {
    throw new SqlResourceError('INVALID_FILTER', `filter value for '${column.name}' must be ${expected[column.type]} (${column.type} column)`, { columns: [column.name] });
  }
  return typed;
}

/**
 * A value to write, checked before any statement runs: integers stay integers (never 1.5 into
 * an INT, never a rounded 2^53+1), numbers stay numbers; objects and arrays are JSON text only
 * in text, JSON and other columns (SPEC §3).
 */
function writableOrUndefined(type: ColumnType, value: unknown): unknown {
  if (value === null) return null;
  switch (type) {
    case 'integer':
      if (typeof value === 'string') return writtenInteger.test(value) ? value : undefined;
      return exactIntegerOf(value);
    case 'number':
      if (typeof value === 'string') return decimalNumber.test(value) ? value : undefined;
      return keyValueOrUndefined('number', value);
    case 'boolean':
      return keyValueOrUndefined('boolean', value);
    default:
      return typeof value === 'number' && !Number.isFinite(value) ? undefined : value;
  }
}

/** An entry to insert or data to update: every column known, every value writable to it. */
export function typedEntry(table: TableShape, tableName: string, entry: Row): Row {
  if (!isPlainObject(entry)) return entry; // the builder refuses it with its own message
  const typed: Row = {};
  const unknown: string[] = [];
  for (const name of Object.keys(entry)) {
    const value = entry[name];
    if (value === undefined) continue;
    const column = table.column(name);
    if (column === undefined) {
      unknown.push(name);
      continue;
    }
    const writable = writableOrUndefined(column.type, value);
    if (writable === undefined) {
      throw new SqlResourceError('INVALID_VALUE', `value for '${column.name}' must be ${expected[column.type]} (${column.type} column)`, { columns: [column.name] });
    }
    typed[name] = writable;
  }
  if (unknown.length > 0) throw unknownColumns(tableName, unknown);
  return typed;
}

/**
 * Where `data` writes a column that `filter` names the row by, the value written must itself
 * name one row (a scalar of the key's type): the row is read back by it.
 */
export function writtenKey(table: TableShape, data: Row, filter: Filter): Filter {
  const key: Filter = { ...filter };
  for (const name of Object.keys(filter)) {
    if (data[name] === undefined) continue;
    const column = table.column(name);
    const value = column && data[name] !== null ? keyValueOrUndefined(column.type, data[name]) : undefined;
    if (column === undefined || value === undefined) {
      throw new SqlResourceError('INVALID_VALUE', `value for the key column '${name}' must be ${column ? expected[column.type] : 'a scalar'}`, { columns: column ? [column.name] : [] });
    }
    key[name] = value;
  }
  return key;
}

/** Names that look like identifiers are listed; anything else is only counted, never echoed. */
const printableName = /^[A-Za-z_][A-Za-z0-9_$]{0,63}$/;

function unknownColumns(table: string, names: string[]): SqlResourceError {
  const printable = names.filter((name) => printableName.test(name));
  const others = names.length - printable.length;
  const listed = [...printable, ...(others > 0 ? [`${others} other${others > 1 ? 's' : ''}`] : [])].join(', ');
  return new SqlResourceError('UNKNOWN_COLUMN', `unknown column${names.length > 1 ? 's' : ''} in ${table}: ${listed}`, { columns: printable });
}

/**
 * A call's values checked and typed by its table's shape, or passed as given when the catalogue
 * does not know the table (the statement then fails as the database says). One per table.
 */
export class TypedValues {
  constructor(
    private readonly shape: TableShape | undefined,
    private readonly table: string,
  ) {}

  filter(filter: Filter): Filter {
    return this.shape ? typedFilter(this.shape, this.table, filter) : filter;
  }

  entry(entry: Row): Row {
    return this.shape ? typedEntry(this.shape, this.table, entry) : entry;
  }

  /** The key of the row `key` names once `data` is written to it (see `writtenKey`). */
  keyAfter(data: Row, key: Filter): Filter {
    return this.shape ? writtenKey(this.shape, data, key) : key;
  }
}
