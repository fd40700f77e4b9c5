import type { ColumnInfo, Row } from '../driver-adapter';
import type { EndpointDefinition, EndpointHandler, EndpointRequest, EndpointResponse, ListPage } from '../endpoints';
import { SqlResourceError } from '../errors';
import type { OrderTerm } from '../filters';
import { buildTemplatePage, type Filter } from '../sql-builder';
import type { SqlResource } from '../sql-resource';
import type { Statement } from '../statement';
import type { CompiledTemplate } from '../template';
import { pagesByKeyset, tableShape, type TableShape } from '../values';
import { Cursors } from './cursor';
import { pageLimit, pageOffset, parameterError, queryFilter, queryOrder, querySelect, singleParameter } from './query';
import { countModes, listSettings, type CountMode, type ListSettings, type PageSettings } from './settings';

/** What the shared endpoint code gives a list: its SQL template and the caller's scope, resolved per request. */
export interface ListSources {
  readonly definition: EndpointDefinition;
  readonly resource: SqlResource;
  readonly label: string;
  readonly template?: CompiledTemplate;
  /** The template's values for a request. */
  readonly templateValues: (request: EndpointRequest) => unknown[];
  /** The caller's scope as a filter (undefined without `scope`); refused scopes throw FORBIDDEN. */
  readonly scope: (request: EndpointRequest) => Filter | undefined;
  /** Maps an error of typing the scope's values to FORBIDDEN. */
  readonly refusedScope: (error: unknown) => never;
  /** Signs keyset cursors. */
  readonly cursorKey: Buffer;
}

/**
 * Reads a row-returning statement in batches. Read before answering, so a query that fails early
 * still gets its status code; a result that ends within its first batch is answered whole.
 */
async function streamed(resource: SqlResource, statement: Statement, signal: AbortSignal | undefined, label: string): Promise<EndpointResponse> {
  const batches = resource.streamBatches(statement.sql, statement.values, { signal });
  const first = await batches.next();
  if (first.done) return { statusCode: 200, message: label, data: [], total: 0 };
  const second = await batches.next();
  if (second.done) return { statusCode: 200, message: label, data: first.value, total: first.value.length };
  return { statusCode: 200, message: label, readBatches: [first.value, second.value], moreBatches: batches };
}

/** The count mode of a request: the endpoint's, or a cheaper one its `Prefer: count=` asks. */
function countModeOf(request: EndpointRequest, allowed: CountMode): CountMode {
  const prefer = request.headers?.prefer;
  const text = Array.isArray(prefer) ? prefer.join(',') : prefer;
  const asked = text
    ?.split(/[,;]/)
    .map((part) => part.trim())
    .find((part) => part.startsWith('count='))
    ?.slice('count='.length);
  if (asked === undefined) return allowed;
  const rank = countModes.indexOf(asked as CountMode);
  if (rank < 0) throw new SqlResourceError('INVALID_PARAMETER', `Prefer: count= takes ${countModes.join(', ')}`, { field: 'Prefer' });
  if (rank > countModes.indexOf(allowed)) throw new SqlResourceError('INVALID_PARAMETER', `Prefer: count=${asked} is more than this list offers (count: ${allowed})`, { field: 'Prefer' });
  return asked as CountMode;
}

/** The URL of the next page: this endpoint's path, the request's parameters, and the page's. */
function nextUrl(definition: EndpointDefinition, request: EndpointRequest, page: Record<string, string>): string {
  const path = definition.path.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => encodeURIComponent(String(request.params[name] ?? '')));
  let search = '';
  const add = (name: string, value: unknown): void => {
    search += `${search === '' ? '?' : '&'}${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`;
  };
  for (const name of Object.keys(request.query)) {
    if (name === 'offset' || name === 'after' || name === 'limit') continue;
    const value = request.query[name];
    if (Array.isArray(value)) value.forEach((item) => add(name, item));
    else add(name, value);
  }
  for (const name of Object.keys(page)) add(name, page[name]);
  return path + search;
}

/** `Content-Range: first-last/count`, `*` for an unknown count, and for an unknown position (a keyset page or no rows). */
function contentRange(offset: number | undefined, rows: number, count: number | undefined): string {
  const total = count === undefined ? '*' : String(count);
  return offset === undefined || rows === 0 ? `*/${total}` : `${offset}-${offset + rows - 1}/${total}`;
}

function paged(label: string, rows: Row[], page: ListPage, count: number | undefined): EndpointResponse {
  return {
    statusCode: 200,
    message: label,
    data: rows,
    total: rows.length,
    page,
    ...(count === undefined ? {} : { count }),
    headers: { 'content-range': contentRange(page.offset, rows.length, count) },
  };
}

function notPaged(query: Readonly<Record<string, unknown>>): void {
  for (const name of ['limit', 'offset', 'after']) {
    if (Object.prototype.hasOwnProperty.call(query, name)) throw parameterError(name, 'is not taken: this list has no pages (page:)');
  }
}

/** A table's shape for the columns the catalogue holds now, built again only when they change. */
function shapeCache(ignoreCase: boolean): (columns: ColumnInfo[]) => TableShape {
  let last: { columns: ColumnInfo[]; shape: TableShape } | undefined;
  return (columns) => {
    if (last?.columns !== columns) last = { columns, shape: tableShape(columns, ignoreCase) };
    return last.shape;
  };
}

/**
 * The order a page is read in: the client's (or none), then the primary key's columns it lacks,
 * so that every row has one place and pages neither repeat nor skip rows.
 */
function pageOrder(shape: TableShape, requested: readonly OrderTerm[] | undefined): OrderTerm[] {
  const order = [...(requested ?? [])];
  if (pagesByKeyset(shape, order)) return order;
  for (const column of shape.columns) {
    if (column.primaryKey && !order.some((term) => shape.column(term.column) === column)) order.push({ column: column.name, descending: false });
  }
  return order;
}

/** A `table` list: filters, order and columns from the query string; paged by offset or keyset. */
function tableList(sources: ListSources, settings: ListSettings, table: string): EndpointHandler {
  const { definition, resource, label } = sources;
  const cursors = new Cursors(sources.cursorKey, `${definition.method} ${definition.path}`);
  const shapeOf = shapeCache(resource.dialect.columnNamesIgnoreCase);
  const filtersOf = async (request: EndpointRequest): Promise<Filter[]> => {
    const filter = queryFilter(request.query, settings.filters);
    const scope = sources.scope(request);
    if (scope === undefined) return [filter];
    // The scope's values are checked alone first: a claim its column refuses is the caller's 403, a filter value the client's 400.
    await resource.selectStatement(table, scope).catch(sources.refusedScope);
    return [filter, scope];
  };

  const page = async (request: EndpointRequest, pageSettings: PageSettings, filters: Filter[], columns: readonly string[] | undefined, requested: OrderTerm[] | undefined): Promise<EndpointResponse> => {
    const { query, signal } = request;
    const limit = pageLimit(query, pageSettings);
    const offset = pageOffset(query);
    const cursor = singleParameter(query, 'after');
    if (offset !== undefined && cursor !== undefined) throw parameterError('after', 'cannot be combined with offset');
    const countMode = countModeOf(request, settings.count);
    const shape = shapeOf(await resource.columns(table));
    const order = pageOrder(shape, requested);
    const byKeyset = pagesByKeyset(shape, order);
    if (cursor !== undefined && !byKeyset) throw parameterError('after', 'is not taken by this order: it does not name each row once on NOT NULL columns; page with offset');
    const after = cursor === undefined ? undefined : cursors.read(cursor, order);
    // The next cursor needs the order's values of the last row, which the client may not have picked.
    const missing = columns === undefined || !byKeyset ? [] : order.map((term) => term.column).filter((column) => !columns.includes(column));
    const read = { columns: columns && [...columns, ...missing], order, limit: limit + 1, offset, after };
    const [rows, count] = await Promise.all([
      resource.selectStatement(table, filters, read).then((statement) => resource.select(statement.sql, statement.values, { signal })),
      countMode === 'none' ? undefined : resource.count(table, filters, { estimated: countMode === 'estimated', signal }),
    ]);
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const last = rows[rows.length - 1];
    let next: string | undefined;
    if (more && last !== undefined) {
      // Dates come back cut to the millisecond: a cursor made of one would repeat or skip rows.
      const exact = byKeyset && !order.some((term) => last[term.column] instanceof Date);
      next = nextUrl(definition, request, exact ? { limit: String(limit), after: cursors.after(last, order) } : { limit: String(limit), offset: String((offset ?? 0) + limit) });
    }
    if (missing.length > 0) for (const row of rows) for (const column of missing) delete row[column];
    const position = cursor === undefined ? (offset ?? 0) : undefined;
    return paged(label, rows, { limit, ...(position === undefined ? {} : { offset: position }), ...(next === undefined ? {} : { next }) }, count);
  };

  return async (request) => {
    const filters = await filtersOf(request);
    const columns = querySelect(request.query, settings.select);
    const requested = queryOrder(request.query, settings.sort);
    if (settings.page !== undefined) return page(request, settings.page, filters, columns, requested);
    notPaged(request.query);
    return streamed(resource, await resource.selectStatement(table, filters, { columns, order: requested }), request.signal, label);
  };
}

/** An `sql` list: streamed whole, or paged by offset around the unchanged template. */
function templateList(sources: ListSources, settings: ListSettings, template: CompiledTemplate): EndpointHandler {
  const { resource, label, definition } = sources;
  return async (request) => {
    const values = sources.templateValues(request);
    const pageSettings = settings.page;
    // Unpaged, the query string is the template's as before: `?limit=` may be one of its variables.
    if (pageSettings === undefined) return streamed(resource, { sql: template.sql, values }, request.signal, label);
    const { query, signal } = request;
    if (singleParameter(query, 'after') !== undefined) throw parameterError('after', 'is not taken: an sql list pages by offset');
    const limit = pageLimit(query, pageSettings);
    const offset = pageOffset(query) ?? 0;
    const countMode = countModeOf(request, settings.count);
    const statement = buildTemplatePage(resource.dialect, { sql: template.sql, values }, limit + 1, offset);
    const [rows, count] = await Promise.all([
      resource.select(statement.sql, statement.values, { signal }),
      countMode === 'none' ? undefined : resource.countQuery(template.sql, values, { estimated: countMode === 'estimated', signal }),
    ]);
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const next = more ? nextUrl(definition, request, { limit: String(limit), offset: String(offset + limit) }) : undefined;
    return paged(label, rows, { limit, offset, ...(next === undefined ? {} : { next }) }, count);
  };
}

/** The handler of a `list` endpoint (SPEC §4, §8). */
export function createListHandler(sources: ListSources): EndpointHandler {
  const settings = listSettings(sources.definition.config);
  const { template, definition } = sources;
  if (template !== undefined) return templateList(sources, settings, template);
  if (definition.table === undefined) throw new SqlResourceError('CONFIG_INVALID', `${sources.label}: a list endpoint needs sql or table`);
  return tableList(sources, settings, definition.table);
}
