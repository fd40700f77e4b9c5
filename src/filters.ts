import { isPlainObject } from './config';
import { SqlResourceError } from './errors';

/**
 * The one filter language, for code (`read(table, { price: { gte: 1 } })`) and for HTTP lists
 * (`?price=gte.1`, parsed into the same objects): a column maps to a value (equality), `null`
 * (IS NULL), an array (IN), or an object of operators, all of which must hold.
 */
export const filterOperators = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'ilike', 'is'] as const;

export type FilterOperator = (typeof filterOperators)[number];

/** Operators of a filter object, each with the value it compares with. */
export type FilterOperators = { readonly [Operator in FilterOperator]?: unknown };

const operatorNames: ReadonlySet<string> = new Set(filterOperators);

export function isFilterOperator(name: string): name is FilterOperator {
  return operatorNames.has(name);
}

/** What `is` compares with: SQL's `IS NULL`, `IS TRUE`, `IS FALSE`. */
export const isValues: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [null, 'NULL'],
  [true, 'TRUE'],
  [false, 'FALSE'],
]);

/** The comparison operators written as SQL operators between the column and one bound value. */
export const comparisonSql: Readonly<Partial<Record<FilterOperator, string>>> = Object.freeze({
  eq: '=',
  neq: '<>',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
  like: 'LIKE',
});

/** A column of an order, and which way it sorts. */
export interface OrderTerm {
  readonly column: string;
  readonly descending: boolean;
  /** The column may hold NULL (from the catalogue): the dialect then places NULLs as PostgreSQL does. */
  readonly nullable?: boolean;
}

/** How a caller writes an order: `'created_at.desc,id'`, or a list of such terms or of `OrderTerm`s. */
export type OrderInput = string | readonly (string | OrderTerm)[];

function orderError(message: string): SqlResourceError {
  return new SqlResourceError('INVALID_ARGUMENT', message, { field: 'order' });
}

/**
 * Reads an order in PostgREST's syntax: `column[.asc|.desc]`, comma-separated. The column names
 * are checked by the caller (against the catalogue, or an endpoint's `sort`); messages here
 * never repeat what was given.
 */
export function parseOrder(order: OrderInput): OrderTerm[] {
  const terms = typeof order === 'string' ? order.split(',') : order;
  if (!Array.isArray(terms) || terms.length === 0) throw orderError('order must be a column, or columns separated by commas, each optionally .asc or .desc');
  return terms.map((given: unknown, index) => {
    if (isPlainObject(given) && typeof given.column === 'string' && given.column !== '' && typeof given.descending === 'boolean') return { column: given.column, descending: given.descending };
    if (typeof given !== 'string') throw orderError(`order term ${index + 1} must be a string or { column, descending }`);
    // Spaces after commas, as people write lists, are not part of a name.
    const term = given.trim();
    const dot = term.lastIndexOf('.');
    const direction = dot < 0 ? '' : term.slice(dot + 1);
    if (direction !== '' && direction !== 'asc' && direction !== 'desc') {
      throw orderError(`order term ${index + 1} must end in .asc or .desc, or name a column alone`);
    }
    const column = dot < 0 ? term : term.slice(0, dot);
    if (column === '') throw orderError(`order term ${index + 1} names no column`);
    return { column, descending: direction === 'desc' };
  });
}

/** Refuses an operator object that no statement can take; answers its operators. */
export function checkedOperators(column: string, operators: Record<string, unknown>): [FilterOperator, unknown][] {
  const entries = Object.entries(operators);
  const refuse = (message: string): never => {
    throw new SqlResourceError('INVALID_FILTER', `filter on '${column}': ${message}`, { columns: [column] });
  };
  if (entries.length === 0) refuse('an operator object needs at least one operator');
  for (const [name, value] of entries) {
    if (!isFilterOperator(name)) refuse(`unknown operator (valid: ${filterOperators.join(', ')})`);
    if (name === 'in') {
      if (!Array.isArray(value)) refuse('in takes an array of values');
    } else if (name === 'is') {
      if (!isValues.has(value)) refuse('is takes null, true or false');
    } else if (name === 'like' || name === 'ilike') {
      if (typeof value !== 'string') refuse(`${name} takes a pattern string`);
    } else if (value === null || value === undefined || Array.isArray(value) || isPlainObject(value)) {
      refuse(`${name} takes one value (for NULL use is: null)`);
    }
  }
  return entries as [FilterOperator, unknown][];
}
