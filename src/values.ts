import { isPlainObject } from './config';
import type { ColumnInfo, ColumnType, Row } from './driver-adapter';
import { SqlResourceError } from './errors';
import { exactIntegerOf } from './integers';
import type { OrderTerm } from './filters';
import type { Filter, ListShape } from './sql-builder';

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
    else if (isPlainObject(value)) typed[name] = typedOperators(column, value);
    else typed[name] = filterValue(column, value);
  }
  if (unknown.length > 0) throw unknownColumns(tableName, unknown);
  return typed;
}

/** Column types a LIKE pattern applies to: their values compare as text. */
const patternTypes: ReadonlySet<ColumnType> = new Set(['text', 'other']);

/**
 * An object of operators with each operand in its column's form. What is no operand of any
 * statement (an unknown operator, a null comparison) passes unchanged for the builder to refuse.
 */
function typedOperators(column: ColumnInfo, operators: Record<string, unknown>): Record<string, unknown> {
  const refuse = (message: string): never => {
    throw new SqlResourceError('INVALID_FILTER', `filter on '${column.name}': ${message} (${column.type} column)`, { field: column.name, columns: [column.name] });
  };
  const typed: Record<string, unknown> = {};
  for (const [operator, operand] of Object.entries(operators)) {
    if (operator === 'in' && Array.isArray(operand)) typed[operator] = operand.map((item) => filterValue(column, item));
    else if (operator === 'is') {
      if ((operand === true || operand === false) && column.type !== 'boolean') refuse('is true and is false need a boolean column');
      typed[operator] = operand;
    } else if (operator === 'like' || operator === 'ilike') {
      if (!patternTypes.has(column.type)) refuse(`${operator} needs a text column`);
      typed[operator] = operand;
    } else if (operand === null || operand === undefined || Array.isArray(operand) || isPlainObject(operand)) typed[operator] = operand;
    else typed[operator] = filterValue(column, operand);
  }
  return typed;
}

function filterValue(column: ColumnInfo, value: unknown): unknown {
  const typed = keyValueOrUndefined(column.type, value);
  if (typed === undefined) {
    throw new SqlResourceError('INVALID_FILTER', `filter value for '${column.name}' must be ${expected[column.type]} (${column.type} column)`, { field: column.name, columns: [column.name] });
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

/** Names that look like identifiers may be named in messages; anything else, a client's text, is never echoed. */
const printableName = /^[A-Za-z_][A-Za-z0-9_$]{0,63}$/;

export function isPrintableName(name: string): boolean {
  return printableName.test(name);
}

function unknownColumns(table: string, names: string[]): SqlResourceError {
  const printable = names.filter(isPrintableName);
  const others = names.length - printable.length;
  const listed = [...printable, ...(others > 0 ? [`${others} other${others > 1 ? 's' : ''}`] : [])].join(', ');
  return new SqlResourceError('UNKNOWN_COLUMN', `unknown column${names.length > 1 ? 's' : ''} in ${table}: ${listed}`, { columns: printable });
}

/** What a list asks of its table besides the filter, as a caller gives it. */
export interface ListRequest {
  readonly columns?: readonly string[];
  readonly order?: readonly OrderTerm[];
  readonly limit?: number;
  readonly offset?: number;
  /** Keyset paging: the last row of the previous page (its order columns are read). */
  readonly after?: Row;
}

/**
 * A date or timestamp read back is a JS Date, cut to the millisecond: the server keeps
 * microseconds, so a page starting after the cut value would repeat or skip rows.
 */
function keysetDateRefusal(column: string): SqlResourceError {
  return new SqlResourceError('INVALID_ARGUMENT', `after cannot page by '${column}': its values are dates, read back to the millisecond only; page with offset`, { field: 'after' });
}

/**
 * Whether an order can page by keyset (`after`): it names each row once (it ends in a unique
 * column, or holds every column of the primary key) and compares without NULLs.
 */
export function pagesByKeyset(table: TableShape, order: readonly OrderTerm[]): boolean {
  const columns = order.map((term) => table.column(term.column));
  if (columns.length === 0 || columns.some((column) => column === undefined || column.nullable)) return false;
  if (columns[columns.length - 1]?.unique) return true;
  const key = table.columns.filter((column) => column.primaryKey);
  return key.length > 0 && key.every((column) => columns.includes(column));
}

/**
 * A list's columns and order checked against the table, and its keyset typed: `after` pages by
 * the order's values, which holds only when the order names every row once and compares
 * without NULLs (an order ending in a unique column, on NOT NULL columns).
 */
export function typedList(table: TableShape, tableName: string, list: ListRequest): ListShape {
  const unknown = [...(list.columns ?? []), ...(list.order ?? []).map((term) => term.column)].filter((name) => table.column(name) === undefined);
  if (unknown.length > 0) throw unknownColumns(tableName, [...new Set(unknown)]);
  const { after: lastRow, ...rest } = list;
  const shape = rest.order === undefined ? rest : { ...rest, order: rest.order.map((term) => ({ ...term, nullable: table.column(term.column)?.nullable === true })) };
  if (lastRow === undefined) return shape;
  const order = list.order ?? [];
  const columns = order.map((term) => table.column(term.column) as ColumnInfo);
  if (!pagesByKeyset(table, order)) {
    throw new SqlResourceError('INVALID_ARGUMENT', 'after pages by the order: it needs an order that names each row once (ending in a unique column, or holding the whole primary key), all of its columns NOT NULL', { field: 'after' });
  }
  const after = columns.map((column, i) => {
    const value = lastRow[order[i].column];
    if (value === undefined || value === null) throw new SqlResourceError('INVALID_ARGUMENT', `after needs the value of the order column '${column.name}'`, { field: 'after' });
    if (value instanceof Date) throw keysetDateRefusal(column.name);
    return filterValue(column, value);
  });
  return { ...shape, after };
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

  /** A list's columns, order and keyset (see `typedList`); unchecked for a table the catalogue lacks. */
  list(list: ListRequest): ListShape {
    if (this.shape) return typedList(this.shape, this.table, list);
    const { after, ...rest } = list;
    return after === undefined ? rest : { ...rest, after: (rest.order ?? []).map((term) => after[term.column]) };
  }

  /** The key of the row `key` names once `data` is written to it (see `writtenKey`). */
  keyAfter(data: Row, key: Filter): Filter {
    return this.shape ? writtenKey(this.shape, data, key) : key;
  }
}
