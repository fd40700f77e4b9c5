import type { SqlDialect } from './dialect';
import { isPlainObject } from './config';
import { SqlResourceError } from './errors';
import { checkedOperators, comparisonSql, isValues, type FilterOperator, type OrderTerm } from './filters';
import type { Statement } from './statement';

export type { Statement } from './statement';

/**
 * Column → condition: a value (equality), `null` (IS NULL), an array (IN, an empty one matches
 * nothing) or an object of operators (`{ gte: 1, lt: 10 }`, filters.ts), all combined with AND.
 */
export type Filter = Record<string, unknown>;

/**
 * Column → value pairs for a table whose rows are `T` (an entry to insert, data to update): only
 * `T`'s columns, so an interface-typed object is accepted and a misspelt column does not compile.
 * Values are `unknown`: what is written may differ from what is read (JSON objects stored as text,
 * `bigint`, decimal strings).
 */
export type Entry<T extends object = Record<string, unknown>> = { readonly [Column in keyof T]?: unknown };

/** A filter (see `Filter`) naming only the columns of `T`. */
export type RowFilter<T extends object = Record<string, unknown>> = { readonly [Column in keyof T]?: unknown };

function invalid(code: 'INVALID_FILTER' | 'INVALID_ARGUMENT', message: string): SqlResourceError {
  return new SqlResourceError(code, message);
}

function checkIdentifier(part: string, what: string): void {
  if (part === '' || part.includes('\0')) throw invalid('INVALID_ARGUMENT', `${what} name must be a non-empty string without NUL`);
}

/**
 * Quoted names per dialect. Quoting is pure and the same few tables and columns come back on
 * every call, so each name is checked and quoted once; a cache is emptied when it reaches
 * `quotedNamesLimit`, so arbitrary names cannot grow it without limit.
 */
const quotedNamesLimit = 1000;
const quotedTables = new WeakMap<SqlDialect, Map<string, string>>();
const quotedColumns = new WeakMap<SqlDialect, Map<string, string>>();

function cacheOf(store: WeakMap<SqlDialect, Map<string, string>>, dialect: SqlDialect): Map<string, string> {
  let cache = store.get(dialect);
  if (cache === undefined) {
    cache = new Map();
    store.set(dialect, cache);
  }
  return cache;
}

function remember(cache: Map<string, string>, name: string, quoted: string): string {
  if (cache.size >= quotedNamesLimit) cache.clear();
  cache.set(name, quoted);
  return quoted;
}

/** `table` or `schema.table`, each part quoted for the dialect. */
export function quoteTable(dialect: SqlDialect, table: unknown): string {
  if (typeof table !== 'string') throw invalid('INVALID_ARGUMENT', 'table name must be a string');
  const cache = cacheOf(quotedTables, dialect);
  const known = cache.get(table);
  if (known !== undefined) return known;
  const parts = table.split('.');
  if (parts.length > 2) throw invalid('INVALID_ARGUMENT', `table name '${table}' has more than one '.'; use schema.table`);
  for (const part of parts) checkIdentifier(part, 'table');
  return remember(cache, table, parts.map((part) => dialect.quoteIdentifier(part)).join('.'));
}

export function quoteColumn(dialect: SqlDialect, column: string): string {
  const cache = cacheOf(quotedColumns, dialect);
  const known = cache.get(column);
  if (known !== undefined) return known;
  checkIdentifier(column, 'column');
  return remember(cache, column, dialect.quoteIdentifier(column));
}

/** Splits `schema.table` for catalogue lookups. */
export function splitTableName(table: string): { schema?: string; name: string } {
  const dot = table.indexOf('.');
  return dot < 0 ? { name: table } : { schema: table.slice(0, dot), name: table.slice(dot + 1) };
}

/** A value as stored: plain objects and arrays become JSON text, bigint its decimal text. */
export function toStoredValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value) || isPlainObject(value)) return JSON.stringify(value);
  return value;
}

function toFilterValue(column: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || isPlainObject(value) || Array.isArray(value)) {
    throw invalid('INVALID_FILTER', `filter value for '${column}' must be a scalar, null, an array of scalars or an object of operators`);
  }
  return value;
}

/**
 * Built statements by shape, per dialect. A shape is the statement kind, the table, the
 * assigned columns and each condition's column, operator and the form of its value (one value,
 * none, or an IN list of n items); calls of one shape get the very same SQL string. Besides
 * skipping the build, that lets the drivers find the text in their statement caches by identity
 * instead of hashing a fresh string each call (measured: 0.6 µs per call in the pg
 * named-statement lookup alone). The values are bound afresh on every call. A table's few
 * shapes are kept in a list compared item by item; emptied past `shapeLimit` statements, so
 * templated shapes stay bounded.
 */
const shapeLimit = 1000;
const valueForm = -2;
const noValueForm = -1; // an IN list is its length

type Kind = 'select' | 'insert' | 'update' | 'delete';

/** A condition's operator: a filter operator, or the whole `IS NULL` / `IS TRUE` / `IS FALSE`. */
type ConditionOperator = Exclude<FilterOperator, 'is'> | 'IS NULL' | 'IS TRUE' | 'IS FALSE';

/** The conditions of a WHERE clause, as parallel lists, and the values they bind in order. */
interface Conditions {
  where: string[];
  operators: ConditionOperator[];
  forms: number[];
}

/** What decides a statement's SQL text. */
interface ShapeKey extends Conditions {
  kind: Kind;
  /** insert, update: whether the row comes back with RETURNING. */
  returning: boolean;
  /** insert, update: the columns given a value, in order. */
  columns: string[];
}

/** A call's shape and the values it binds, in the order the composers bind them. */
interface Shape extends ShapeKey {
  params: unknown[];
}

interface CachedStatement extends ShapeKey {
  sql: string;
}

interface StatementCache {
  byTable: Map<string, CachedStatement[]>;
  size: number;
}

const statementCaches = new WeakMap<SqlDialect, StatementCache>();
const noColumns: string[] = [];
const noOperators: ConditionOperator[] = [];
const noForms: number[] = [];

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Adds one filter object's conditions, and the values they bind, to `into`. */
function addConditions(filter: Record<string, unknown>, into: Conditions, params: unknown[]): void {
  const { where, operators, forms } = into;
  const add = (column: string, operator: ConditionOperator, form: number): void => {
    where.push(column);
    operators.push(operator);
    forms.push(form);
  };
  const addList = (column: string, values: readonly unknown[]): void => {
    add(column, 'in', values.length);
    for (let j = 0; j < values.length; j++) params.push(toFilterValue(column, values[j]));
  };
  for (const column of Object.keys(filter)) {
    const value = filter[column];
    if (value === null) add(column, 'IS NULL', noValueForm);
    else if (Array.isArray(value)) addList(column, value);
    else if (isPlainObject(value)) {
      for (const [operator, operand] of checkedOperators(column, value)) {
        if (operator === 'is') add(column, `IS ${isValues.get(operand) as 'NULL' | 'TRUE' | 'FALSE'}`, noValueForm);
        else if (operator === 'in') addList(column, operand as unknown[]);
        else {
          add(column, operator, valueForm);
          params.push(toFilterValue(column, operand));
        }
      }
    } else {
      add(column, 'eq', valueForm);
      params.push(toFilterValue(column, value));
    }
  }
}

/**
 * The one walk over a call's input: its shape and the values it binds, in the order the SQL
 * binds them (assigned columns first, then the filter's). Refuses what no statement can take.
 */
function shapeOf(kind: Kind, table: unknown, values: unknown, filter: unknown, returning: boolean): Shape {
  if (typeof table !== 'string') throw invalid('INVALID_ARGUMENT', 'table name must be a string');
  const params: unknown[] = [];
  let columns = noColumns;
  let conditions: Conditions = { where: noColumns, operators: noOperators, forms: noForms };
  if (kind === 'insert' || kind === 'update') {
    const what = kind === 'insert' ? 'entry' : 'data';
    if (!isPlainObject(values)) throw invalid('INVALID_ARGUMENT', `${what} must be an object of column → value`);
    columns = [];
    for (const column of Object.keys(values)) {
      const value = values[column];
      // Dropped the way JSON drops it.
      if (value === undefined) continue;
      columns.push(column);
      params.push(toStoredValue(value));
    }
    if (columns.length === 0) throw invalid('INVALID_ARGUMENT', `${what} must hold at least one column`);
  }
  if (kind !== 'insert') {
    if (!isPlainObject(filter)) throw invalid('INVALID_FILTER', 'filter must be a non-empty object of column → value');
    if (Object.keys(filter).length === 0) throw invalid('INVALID_FILTER', 'filter must not be empty (no whole-table read, update or delete)');
    conditions = { where: [], operators: [], forms: [] };
    addConditions(filter, conditions, params);
  }
  return { kind, returning, columns, ...conditions, params };
}

function cached(dialect: SqlDialect, table: string, shape: Shape): Statement | undefined {
  const candidates = statementCaches.get(dialect)?.byTable.get(table);
  if (candidates === undefined) return undefined;
  for (const candidate of candidates) {
    if (
      candidate.kind === shape.kind &&
      candidate.returning === shape.returning &&
      sameItems(candidate.columns, shape.columns) &&
      sameItems(candidate.where, shape.where) &&
      sameItems(candidate.operators, shape.operators) &&
      sameItems(candidate.forms, shape.forms)
    ) {
      return { sql: candidate.sql, values: shape.params };
    }
  }
  return undefined;
}

function remembered(dialect: SqlDialect, table: string, shape: Shape, statement: Statement): Statement {
  let cache = statementCaches.get(dialect);
  if (cache === undefined || cache.size >= shapeLimit) {
    cache = { byTable: new Map(), size: 0 };
    statementCaches.set(dialect, cache);
  }
  let candidates = cache.byTable.get(table);
  if (candidates === undefined) {
    candidates = [];
    cache.byTable.set(table, candidates);
  }
  const { kind, returning, columns, where, operators, forms } = shape;
  candidates.push({ kind, returning, columns, where, operators, forms, sql: statement.sql });
  cache.size += 1;
  return statement;
}

/** The statement of a shape: from the cache, or composed once and cached. */
function statementOf(dialect: SqlDialect, table: unknown, shape: Shape): Statement {
  const name = table as string;
  return cached(dialect, name, shape) ?? remembered(dialect, name, shape, compose(dialect, name, shape));
}

export function buildSelect(dialect: SqlDialect, table: unknown, filter: unknown): Statement {
  return statementOf(dialect, table, shapeOf('select', table, undefined, filter, false));
}

/** `returning`: the inserted row comes back (where the server has `INSERT … RETURNING`). */
export function buildInsert(dialect: SqlDialect, table: unknown, entry: unknown, returning: boolean): Statement {
  return statementOf(dialect, table, shapeOf('insert', table, entry, undefined, returning));
}

/** `returning`: the updated rows come back (only where `dialect.supportsUpdateReturning`). */
export function buildUpdate(dialect: SqlDialect, table: unknown, data: unknown, filter: unknown, returning = false): Statement {
  return statementOf(dialect, table, shapeOf('update', table, data, filter, returning));
}

export function buildDelete(dialect: SqlDialect, table: unknown, filter: unknown): Statement {
  return statementOf(dialect, table, shapeOf('delete', table, undefined, filter, false));
}

/** Markers for one statement's values, numbered from 1 in the order they are asked for. */
function markers(dialect: SqlDialect, first = 1): () => string {
  let index = first - 1;
  return () => dialect.placeholder(++index);
}

/** ` WHERE …` for the conditions (empty when there are none), markers taken from `next`. */
function whereClause(dialect: SqlDialect, conditions: Conditions, next: () => string): string {
  if (conditions.where.length === 0) return '';
  const sql = conditions.where.map((column, i) => {
    const quoted = quoteColumn(dialect, column);
    const operator = conditions.operators[i];
    const form = conditions.forms[i];
    if (form === noValueForm) return `${quoted} ${operator}`;
    if (operator === 'in') return form === 0 ? '1 = 0' : `${quoted} IN (${Array.from({ length: form }, next).join(', ')})`;
    if (operator === 'ilike') return dialect.caseInsensitiveLike(quoted, next());
    return `${quoted} ${comparisonSql[operator as FilterOperator] as string} ${next()}`;
  });
  return ` WHERE ${sql.join(' AND ')}`;
}

/** The SQL text of a shape, names checked and quoted; the values are the shape's own. */
function compose(dialect: SqlDialect, table: string, shape: Shape): Statement {
  const target = quoteTable(dialect, table);
  const next = markers(dialect);
  const names = shape.columns.map((column) => quoteColumn(dialect, column));
  let sql: string;
  switch (shape.kind) {
    case 'select':
      sql = `SELECT * FROM ${target}`;
      break;
    case 'insert':
      sql = `INSERT INTO ${target} (${names.join(', ')}) VALUES (${names.map(next).join(', ')})`;
      break;
    case 'update':
      sql = `UPDATE ${target} SET ${names.map((name) => `${name} = ${next()}`).join(', ')}`;
      break;
    case 'delete':
      sql = `DELETE FROM ${target}`;
      break;
  }
  if (shape.kind !== 'insert') sql += whereClause(dialect, shape, next);
  if (shape.returning) sql += ' RETURNING *';
  return { sql, values: shape.params };
}

/** What a list reads of its table besides the filter: columns, order, page. */
export interface ListShape {
  /** The columns answered, in order; every column when absent. */
  readonly columns?: readonly string[];
  readonly order?: readonly OrderTerm[];
  readonly limit?: number;
  readonly offset?: number;
  /** Keyset paging: the order's values of the row this page starts after, one per order term. */
  readonly after?: readonly unknown[];
}

/** The conditions of several filter objects, all of which must hold (a list's own and its scope). */
function listConditions(filters: readonly unknown[], params: unknown[]): Conditions {
  const conditions: Conditions = { where: [], operators: [], forms: [] };
  for (const filter of filters) {
    if (!isPlainObject(filter)) throw invalid('INVALID_FILTER', 'filter must be an object of column → value');
    addConditions(filter, conditions, params);
  }
  return conditions;
}

/**
 * The keyset condition: rows after `after` in `order`. One direction is a row comparison, which
 * both servers answer from an index on the order's columns; mixed directions spell it out.
 */
function keysetCondition(dialect: SqlDialect, order: readonly OrderTerm[], after: readonly unknown[], params: unknown[], next: () => string): string {
  const quoted = order.map((term) => quoteColumn(dialect, term.column));
  const past = (term: OrderTerm): string => (term.descending ? '<' : '>');
  if (order.every((term) => term.descending === order[0].descending)) {
    params.push(...after);
    if (order.length === 1) return `${quoted[0]} ${past(order[0])} ${next()}`;
    return `(${quoted.join(', ')}) ${past(order[0])} (${order.map(next).join(', ')})`;
  }
  const alternatives = order.map((term, i) => {
    const equal = quoted.slice(0, i).map((name, j) => {
      params.push(after[j]);
      return `${name} = ${next()}`;
    });
    params.push(after[i]);
    return `(${[...equal, `${quoted[i]} ${past(term)} ${next()}`].join(' AND ')})`;
  });
  return `(${alternatives.join(' OR ')})`;
}

function checkCount(what: 'limit' | 'offset', value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw invalid('INVALID_ARGUMENT', `${what} must be an integer >= 0`);
}

/** A list's SELECT: the filters' rows (and past `after`), in `order`, one page of them. */
export function buildList(dialect: SqlDialect, table: string, filters: readonly unknown[], list: ListShape): Statement {
  checkCount('limit', list.limit);
  checkCount('offset', list.offset);
  if (list.columns !== undefined && list.columns.length === 0) throw invalid('INVALID_ARGUMENT', 'columns must name at least one column');
  const params: unknown[] = [];
  const conditions = listConditions(filters, params);
  const next = markers(dialect);
  const projection = list.columns === undefined ? '*' : list.columns.map((column) => quoteColumn(dialect, column)).join(', ');
  let sql = `SELECT ${projection} FROM ${quoteTable(dialect, table)}${whereClause(dialect, conditions, next)}`;
  const order = list.order ?? [];
  if (list.after !== undefined) {
    if (order.length === 0 || list.after.length !== order.length) throw invalid('INVALID_ARGUMENT', 'after needs one value per order column');
    sql += `${conditions.where.length === 0 ? ' WHERE' : ' AND'} ${keysetCondition(dialect, order, list.after, params, next)}`;
  }
  if (order.length > 0) sql += ` ORDER BY ${order.map((term) => dialect.orderBy(quoteColumn(dialect, term.column), term.descending, term.nullable === true)).join(', ')}`;
  if (list.limit !== undefined) {
    sql += ` LIMIT ${next()}`;
    params.push(list.limit);
  }
  if (list.offset !== undefined) {
    // MySQL has no OFFSET without LIMIT.
    if (list.limit === undefined) throw invalid('INVALID_ARGUMENT', 'offset needs a limit');
    sql += ` OFFSET ${next()}`;
    params.push(list.offset);
  }
  return { sql, values: params };
}

/** One page of a template's rows, the template unchanged: its values first, then the page's. */
export function buildTemplatePage(dialect: SqlDialect, template: Statement, limit: number, offset: number): Statement {
  const next = markers(dialect, template.values.length + 1);
  return { sql: dialect.pagedStatement(template.sql, next(), next()), values: [...template.values, limit, offset] };
}

/** `COUNT(*)` of the rows a statement answers, as `count`. */
export function buildCountOf(statement: Statement): Statement {
  return { sql: `SELECT COUNT(*) AS count FROM (${statement.sql}\n) AS counted`, values: statement.values };
}

/** How many rows a statement answers, counting at most `cap` of them: whether it has fewer, at the cost of reading so few. */
export function buildCappedCount(statement: Statement, cap: number): Statement {
  return { sql: `SELECT COUNT(*) AS count FROM (SELECT 1 AS one FROM (${statement.sql}\n) AS counted LIMIT ${cap}) AS capped`, values: statement.values };
}

/** The planner's estimate of a statement's rows (read with `dialect.estimatedRows`). */
export function buildEstimate(dialect: SqlDialect, statement: Statement): Statement {
  return { sql: dialect.estimateStatement(statement.sql), values: statement.values };
}
