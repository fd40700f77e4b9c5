import { SqlResourceError } from '../errors';
import { filterOperators, isFilterOperator, parseOrder, type OrderTerm } from '../filters';
import { integerOf, isCanonicalInteger } from '../integers';
import { isPrintableName } from '../values';
import { listQueryKeys, type PageSettings } from './settings';

/**
 * A list's query string in PostgREST's syntax (SPEC §8), read into the filter objects of the code
 * API (filters.ts), so one compiler builds both. Messages name the parameter and the rule, never
 * the value; a name that does not look like an identifier is not repeated either.
 */

function named(name: string): string {
  return isPrintableName(name) ? `'${name}'` : 'a query parameter';
}

export function parameterError(name: string, message: string): SqlResourceError {
  return new SqlResourceError('INVALID_PARAMETER', `query parameter '${name}' ${message}`, { field: name });
}

function filterError(column: string, message: string): SqlResourceError {
  const printable = isPrintableName(column);
  return new SqlResourceError('INVALID_FILTER', `filter ${named(column)}: ${message}`, printable ? { field: column, columns: [column] } : {});
}

/** A parameter a list reads once: absent, or one string. */
export function singleParameter(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = Object.prototype.hasOwnProperty.call(query, name) ? query[name] : undefined;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw parameterError(name, 'is given more than once');
  return value;
}

function integerParameter(query: Readonly<Record<string, unknown>>, name: string, minimum: number): number | undefined {
  const text = singleParameter(query, name);
  if (text === undefined) return undefined;
  // Digits past 2^53 are a number too large, not a malformed one: the caller decides (a limit is cut).
  const value = isCanonicalInteger(text) && !text.startsWith('-') ? (integerOf(text) ?? Infinity) : integerOf(text);
  if (value === undefined) throw parameterError(name, 'must be an integer written in decimal digits');
  if (value < minimum) throw parameterError(name, `must be >= ${minimum}`);
  return value;
}

/** `?limit=`: at least 1; past the endpoint's maxLimit it is cut to maxLimit (the envelope's page.limit says so). */
export function pageLimit(query: Readonly<Record<string, unknown>>, page: PageSettings): number {
  return Math.min(integerParameter(query, 'limit', 1) ?? page.defaultLimit, page.maxLimit);
}

/** `?offset=`: rows skipped, at least 0 and at most 2^53 - 1. */
export function pageOffset(query: Readonly<Record<string, unknown>>): number | undefined {
  const offset = integerParameter(query, 'offset', 0);
  if (offset === Infinity) throw parameterError('offset', `must be <= ${Number.MAX_SAFE_INTEGER}`);
  return offset;
}

/** `in.(a,"b,c")`: commas separate values; a double-quoted value may hold commas, and `\` escapes within it. */
function inList(column: string, text: string): string[] {
  if (!text.startsWith('(') || !text.endsWith(')')) throw filterError(column, 'in takes a list in parentheses: in.(a,b)');
  const inner = text.slice(1, -1);
  const items: string[] = [];
  if (inner === '') return items;
  let index = 0;
  while (index <= inner.length) {
    if (inner[index] !== '"') {
      const comma = inner.indexOf(',', index);
      const end = comma < 0 ? inner.length : comma;
      items.push(inner.slice(index, end));
      index = end + 1;
      continue;
    }
    let value = '';
    for (index += 1; index < inner.length && inner[index] !== '"'; index += 1) {
      if (inner[index] === '\\' && index + 1 < inner.length) index += 1;
      value += inner[index];
    }
    if (index >= inner.length) throw filterError(column, 'in: a quoted value is not closed');
    items.push(value);
    index += 1;
    if (index < inner.length && inner[index] !== ',') throw filterError(column, 'in: a quoted value must be followed by a comma');
    index += 1;
  }
  return items;
}

const isOperands: ReadonlyMap<string, null | boolean> = new Map([
  ['null', null],
  ['true', true],
  ['false', false],
]);

/** One `operator.value` of a filter parameter, as the code API's operator and operand. */
function operation(column: string, text: string): [string, unknown] {
  const dot = text.indexOf('.');
  const operator = dot < 0 ? '' : text.slice(0, dot);
  if (!isFilterOperator(operator)) throw filterError(column, `must be operator.value, the operator one of ${filterOperators.join(', ')}`);
  const operand = text.slice(dot + 1);
  switch (operator) {
    case 'in':
      return [operator, inList(column, operand)];
    case 'is':
      if (!isOperands.has(operand)) throw filterError(column, 'is takes null, true or false');
      return [operator, isOperands.get(operand)];
    case 'like':
    case 'ilike':
      // PostgREST's `*` stands for `%`, which a URL must otherwise write as %25.
      return [operator, operand.replace(/\*/g, '%')];
    default:
      return [operator, operand];
  }
}

/**
 * The filter a list's query string asks: every parameter that is not a list parameter is a
 * filter on one of `allowed`'s columns; one given twice (`?price=gte.1&price=lt.9`) must meet both.
 */
export function queryFilter(query: Readonly<Record<string, unknown>>, allowed: ReadonlySet<string>): Record<string, Record<string, unknown>> {
  const filter: Record<string, Record<string, unknown>> = {};
  for (const column of Object.keys(query)) {
    if (listQueryKeys.has(column)) continue;
    if (!allowed.has(column)) throw filterError(column, allowed.size === 0 ? 'this list takes no filters' : `this list filters only on ${[...allowed].join(', ')}`);
    const given = query[column];
    const operators: Record<string, unknown> = {};
    for (const text of Array.isArray(given) ? given : [given]) {
      if (typeof text !== 'string') throw filterError(column, 'must be operator.value');
      const [operator, operand] = operation(column, text);
      if (Object.prototype.hasOwnProperty.call(operators, operator)) throw filterError(column, `gives the operator ${operator} twice`);
      operators[operator] = operand;
    }
    filter[column] = operators;
  }
  return filter;
}

/** `?order=created_at.desc,id`: terms on the columns of `sort` only. */
export function queryOrder(query: Readonly<Record<string, unknown>>, sort: ReadonlySet<string>): OrderTerm[] | undefined {
  const text = singleParameter(query, 'order');
  if (text === undefined) return undefined;
  let terms: OrderTerm[];
  try {
    terms = parseOrder(text);
  } catch (error) {
    throw parameterError('order', (error as Error).message.replace(/^order /, ''));
  }
  for (const term of terms) {
    if (!sort.has(term.column)) throw parameterError('order', sort.size === 0 ? 'is not offered by this list' : `may sort only on ${[...sort].join(', ')}`);
  }
  return terms;
}

/**
 * `?select=id,status`: columns among `offered` (every column of the table when the endpoint
 * lists none; the catalogue then refuses unknown ones). `*` stands for the default projection.
 */
export function querySelect(query: Readonly<Record<string, unknown>>, offered: readonly string[] | undefined): readonly string[] | undefined {
  const text = singleParameter(query, 'select');
  if (text === undefined) return offered;
  const names = text.split(',');
  const columns = new Set<string>();
  for (const name of names) {
    if (name === '*') {
      if (offered === undefined) return undefined;
      offered.forEach((column) => columns.add(column));
    } else if (name === '') throw parameterError('select', 'must be column names separated by commas');
    else if (offered !== undefined && !offered.includes(name)) throw parameterError('select', `may pick only ${offered.join(', ')}`);
    else columns.add(name);
  }
  return [...columns];
}
