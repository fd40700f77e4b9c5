import { authReference, authVariablePrefix, claimAt, inexactClaimMessage, inexactInteger, type Claims } from './claims';
import { isPlainObject } from './config';
import type { SqlDialect } from './dialect';
import type { Row } from './driver-adapter';
import { SqlResourceError } from './errors';
import { cursorKey } from './lists/cursor';
import { createListHandler } from './lists/list-endpoint';
import type { SqlResource } from './sql-resource';
import { compileTemplate, TemplateError, type CompiledTemplate } from './template';

/** The endpoint kinds of SPEC §4 and the HTTP method each answers by default. */
export const endpointKinds = Object.freeze({
  list: 'GET',
  read: 'GET',
  readOne: 'GET',
  create: 'POST',
  update: 'PUT',
  delete: 'DELETE',
} as const);

export type EndpointKind = keyof typeof endpointKinds;

export function isEndpointKind(value: unknown): value is EndpointKind {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(endpointKinds, value);
}

/** One validated entry of `server.endpoints` that a database endpoint serves. */
export interface EndpointDefinition {
  readonly path: string;
  readonly method: string;
  readonly resource: string;
  readonly endpoint: EndpointKind;
  readonly table?: string;
  readonly id_field?: string;
  readonly sql?: string;
  /** Every key of the entry: template variables come from here first. */
  readonly config: Readonly<Record<string, unknown>>;
}

/** What an endpoint reads from a request. */
export interface EndpointRequest {
  params: Record<string, string | undefined>;
  query: Record<string, unknown>;
  body: unknown;
  /** Aborts when the client leaves before its answer is sent: the SQL statement is cancelled. */
  signal?: AbortSignal;
  /** The verified caller's claims (`server.auth`); null or absent when no credential was sent. */
  auth?: { readonly claims: Claims } | null;
  /** Request headers, lower-case names: a list reads `Prefer`. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** Where a paged list's answer stands (SPEC §8): `next` is the URL of the following page. */
export interface ListPage {
  limit: number;
  offset?: number;
  next?: string;
}

/**
 * An answer in the engine's envelope. A `list` whose rows were all read answers with `data`
 * and `total`; a longer one answers with the batches read so far and the rest still to read.
 */
export type EndpointResponse =
  | { statusCode: number; message: string; data?: unknown; total?: number; page?: ListPage; count?: number; headers?: Record<string, string> }
  | { statusCode: 200; message: string; readBatches: Row[][]; moreBatches: AsyncGenerator<Row[], void, undefined> };

export type EndpointHandler = (request: EndpointRequest) => Promise<EndpointResponse>;

function bodyError(message: string): SqlResourceError {
  return new SqlResourceError('INVALID_BODY', message);
}

/** The request id: the `:id` path parameter, else `id` in the JSON body. */
function requestId(request: EndpointRequest): unknown {
  const fromPath = request.params.id;
  if (fromPath !== undefined && fromPath !== '') return fromPath;
  const fromBody = isPlainObject(request.body) ? request.body.id : undefined;
  if (fromBody === undefined || fromBody === null || fromBody === '' || isPlainObject(fromBody) || Array.isArray(fromBody)) {
    throw new SqlResourceError('MISSING_ID', 'missing id: give it as the :id path parameter or as "id" in the JSON body', { field: 'id' });
  }
  return fromBody;
}

function objectBody(request: EndpointRequest): Record<string, unknown> {
  const { body } = request;
  if (body === undefined || body === null || body === '') throw bodyError('the request body must be a JSON object, and it is empty');
  if (!isPlainObject(body)) throw bodyError(`the request body must be a JSON object, not ${Array.isArray(body) ? 'an array' : typeof body}`);
  if (Object.keys(body).length === 0) throw bodyError('the request body must hold at least one column');
  return body;
}

/** A scope value (a claim) its column cannot take: the caller may not reach such rows, whatever it sent. */
function scopeRefusal(error: unknown, scopeColumns: ReadonlySet<string>): SqlResourceError | undefined {
  if (!(error instanceof SqlResourceError) || (error.code !== 'INVALID_FILTER' && error.code !== 'INVALID_VALUE')) return undefined;
  if (!error.columns?.some((column) => scopeColumns.has(column))) return undefined;
  return new SqlResourceError('FORBIDDEN', "a value of the caller's scope does not fit its column", { cause: error, columns: error.columns });
}

/**
 * For a call naming a row by its id: an id its key column cannot take is the client's INVALID_ID;
 * a scope value (a claim) its column cannot take means the caller may not reach such rows.
 */
function asInvalidId(error: unknown, scopeColumns: ReadonlySet<string>): never {
  if (!(error instanceof SqlResourceError) || error.code !== 'INVALID_FILTER') throw error;
  throw scopeRefusal(error, scopeColumns) ?? new SqlResourceError('INVALID_ID', error.message.replace(/^filter value for/, 'the id for'), { cause: error, field: 'id' });
}

/**
 * A claim of the verified caller, for `{{auth.<claim>}}` and `scope`. Absent, empty (or no
 * caller) is FORBIDDEN: never a 500, and never a NULL or '' that a comparison would quietly
 * match nothing, or the wrong rows, with. So is an integer a JSON number cannot hold exactly.
 */
function claimValue(request: EndpointRequest, path: string): unknown {
  const field = authVariablePrefix + path;
  const value = request.auth ? claimAt(request.auth.claims, path) : undefined;
  if (value === undefined || value === null || value === '') throw new SqlResourceError('FORBIDDEN', `the caller's credential has no claim '${path}' that this endpoint needs`, { field });
  if (typeof value === 'object') throw new SqlResourceError('FORBIDDEN', `the caller's claim '${path}' is not a single value`, { field });
  if (inexactInteger(value) !== undefined) {
    throw new SqlResourceError('FORBIDDEN', inexactClaimMessage(path), { field });
  }
  return value;
}

/**
 * Template variables: `auth.<claim>` from the verified claims only; others from the endpoint's
 * configuration first, then path, then query string.
 */
function templateLookup(config: Readonly<Record<string, unknown>>, request: EndpointRequest): (name: string) => unknown {
  return (name) => {
    if (name.startsWith(authVariablePrefix)) return claimValue(request, name.slice(authVariablePrefix.length));
    if (Object.prototype.hasOwnProperty.call(config, name)) return config[name];
    const fromPath = request.params[name];
    if (fromPath !== undefined) return fromPath;
    const fromQuery = Object.prototype.hasOwnProperty.call(request.query, name) ? request.query[name] : undefined;
    if (Array.isArray(fromQuery)) throw new SqlResourceError('TEMPLATE_VARIABLE', `template variable '${name}' is given more than once in the query string`, { field: name });
    if (fromQuery === undefined) throw new SqlResourceError('TEMPLATE_VARIABLE', `template variable '${name}' is missing from the request`, { field: name });
    return fromQuery;
  };
}

/** Compiles an endpoint's `sql` once, at startup, with its resource's dialect; errors name the endpoint. */
export function compileEndpointSql(definition: EndpointDefinition, dialect: SqlDialect): CompiledTemplate | undefined {
  if (definition.sql === undefined) return undefined;
  try {
    return compileTemplate(definition.sql, dialect);
  } catch (error) {
    if (error instanceof TemplateError) throw new SqlResourceError('CONFIG_INVALID', `sql template: ${error.message}`, { cause: error });
    throw error;
  }
}

/** A `scope` entry: the column and where its value comes from. */
type ScopeEntry = readonly [column: string, source: { readonly claim: string } | { readonly value: unknown }];

/** An endpoint's `scope` (column → value or `{{auth.<claim>}}`), read once at startup. */
function compileScope(config: Readonly<Record<string, unknown>>): ScopeEntry[] {
  const scope = config.scope;
  if (!isPlainObject(scope)) return [];
  return Object.entries(scope).map(([column, value]) => {
    const claim = authReference(value);
    return [column, claim === undefined ? { value } : { claim }];
  });
}

/** The scope's columns and values for this request's caller. */
function scopeValues(scope: readonly ScopeEntry[], request: EndpointRequest): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [column, source] of scope) values[column] = 'claim' in source ? claimValue(request, source.claim) : source.value;
  return values;
}

/** Two scalars that name the same value for a column: 7, '7' and 7n alike. */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (a !== null && b !== null && typeof a !== 'object' && typeof b !== 'object' && String(a) === String(b));
}

/**
 * A body bound to the caller's scope: a scoped column it leaves out is set (`withScope`), one it
 * sets to the same value is kept, one it sets to another value is FORBIDDEN: nothing is written
 * outside the scope, and nothing the client sent is silently changed.
 */
function scopedBody(body: Record<string, unknown>, scope: Record<string, unknown>, ignoreCase: boolean, withScope: boolean): Record<string, unknown> {
  const scoped = { ...body };
  for (const [column, value] of Object.entries(scope)) {
    const given = Object.keys(body).filter((key) => key === column || (ignoreCase && key.toLowerCase() === column.toLowerCase()));
    for (const key of given) {
      if (!sameValue(body[key], value)) throw new SqlResourceError('FORBIDDEN', `the body sets '${column}' outside the caller's scope`, { columns: [column] });
    }
    if (given.length === 0 && withScope) scoped[column] = value;
  }
  return scoped;
}

/** What endpoints share across a host. */
export interface EndpointOptions {
  /** The key keyset cursors are signed with (`server.cursorSecret`); one per process when absent. */
  readonly cursorKey?: Buffer;
}

/** Signs the cursors of endpoints built without a key of their own: cursors do not outlive the process. */
const processCursorKey = cursorKey();

/**
 * The shared behaviour of every endpoint kind, for any resource. Built once per endpoint:
 * templates are compiled here, never per request.
 */
export function createEndpointHandler(definition: EndpointDefinition, resource: SqlResource, options: EndpointOptions = {}): EndpointHandler {
  const template = compileEndpointSql(definition, resource.dialect);
  const { table = '', id_field: idField = 'id', config } = definition;
  const label = `${definition.endpoint} ${table || definition.path}`;
  const scope = compileScope(config);
  const ignoreCase = resource.dialect.columnNamesIgnoreCase;
  const scopeColumns = new Set(scope.map(([column]) => column));
  const refusedId = (error: unknown): never => asInvalidId(error, scopeColumns);
  // A body value for a scoped column was checked equal to the scope's, so the scope's value is at fault.
  const refusedScope = (error: unknown): never => {
    throw scopeRefusal(error, scopeColumns) ?? error;
  };
  // The row a request names, within its caller's scope: a row outside it is not found.
  const rowFilter = (id: unknown, scoped: Record<string, unknown> | undefined): Record<string, unknown> => (scoped === undefined ? { [idField]: id } : { ...scoped, [idField]: id });
  const callerScope = (request: EndpointRequest): Record<string, unknown> | undefined => (scope.length === 0 ? undefined : scopeValues(scope, request));

  const selectRows = async (request: EndpointRequest): Promise<Row[]> => {
    if (template) return (await resource.query(template.sql, template.bind(templateLookup(config, request)), { signal: request.signal })) as Row[];
    return resource.read(table, rowFilter(requestId(request), callerScope(request))).catch(refusedId);
  };

  // Messages never echo the id: a client's value is not reflected back to it.
  const notFound = (): SqlResourceError => new SqlResourceError('NOT_FOUND', `${label}: no row with this ${idField}`);

  if (definition.endpoint === 'list') {
    return createListHandler({
      definition,
      resource,
      label,
      template,
      templateValues: (request) => (template as CompiledTemplate).bind(templateLookup(config, request)),
      scope: callerScope,
      refusedScope,
      cursorKey: options.cursorKey ?? processCursorKey,
    });
  }

  const handlers: Record<Exclude<EndpointKind, 'list'>, EndpointHandler> = {
    async read(request) {
      const rows = await selectRows(request);
      return { statusCode: 200, message: `${label}: ${rows.length} row${rows.length === 1 ? '' : 's'}`, data: rows };
    },
    async readOne(request) {
      const [row] = await selectRows(request);
      if (row === undefined) throw template ? new SqlResourceError('NOT_FOUND', `${label}: no row`) : notFound();
      return { statusCode: 200, message: `${label}: found`, data: row };
    },
    async create(request) {
      const body = objectBody(request);
      const scoped = callerScope(request);
      const row = await (scoped === undefined ? resource.insert(table, body) : resource.insert(table, scopedBody(body, scoped, ignoreCase, true)).catch(refusedScope));
      return { statusCode: 201, message: `${label}: created`, data: row };
    },
    async update(request) {
      const id = requestId(request);
      const scoped = callerScope(request);
      const filter = rowFilter(id, scoped);
      const data = scoped === undefined ? { ...objectBody(request) } : scopedBody(objectBody(request), scoped, ignoreCase, false);
      // An id taken from the body names the row; it is not a column to write unless it is the key.
      if (request.params.id === undefined && idField !== 'id') delete data.id;
      if (Object.keys(data).length === 0) throw bodyError('the request body must hold at least one column to update');
      // One transaction: the whole body is checked first, more than one matching row rolls back (409).
      const row = await resource.updateOne(table, data, filter).catch(refusedId);
      if (row === undefined) throw notFound();
      return { statusCode: 200, message: `${label}: updated`, data: row };
    },
    async delete(request) {
      const id = requestId(request);
      const { affectedRows } = await resource.deleteOne(table, rowFilter(id, callerScope(request))).catch(refusedId);
      if (affectedRows === 0) throw notFound();
      return { statusCode: 200, message: `${label}: deleted`, data: { [idField]: id, affectedRows } };
    },
  };
  return handlers[definition.endpoint];
}
