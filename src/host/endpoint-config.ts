import { authReference, authVariablePrefix } from '../claims';
import { isPlainObject } from '../config';
import { compileEndpointSql, endpointKinds, isEndpointKind, type EndpointDefinition, type EndpointKind } from '../endpoints';
import type { SqlDialect } from '../dialect';
import type { CompiledTemplate } from '../template';
import { listKeys, listProblems } from '../lists/settings';
import { parameterProblems } from './params';
import type { Problem } from './problems';
import { didYouMean } from './schema/did-you-mean';

/** An endpoint served by application code from `server.lib`. */
export interface HandlerDefinition {
  readonly path: string;
  readonly method: string;
  readonly handler: string;
  readonly config: Readonly<Record<string, unknown>>;
}

export interface ValidatedEndpoints {
  database: EndpointDefinition[];
  handlers: HandlerDefinition[];
  /** Every problem found, each with the path of its endpoint. */
  problems: Problem[];
  /** What works but deserves a look: endpoints that change data and are open to anyone. */
  warnings: string[];
}

export interface EndpointContext {
  /** Ids under `resources`, built or not: an endpoint naming one that failed is not told it is undeclared. */
  readonly declared: ReadonlySet<string>;
  /**
   * The dialect of a declared resource, from its class even when its settings were refused, so
   * that its endpoints' templates are still checked; undefined when its class is unknown.
   */
  readonly dialectOf: (resourceId: string) => SqlDialect | undefined;
  readonly hasLib: boolean;
  /** `server.auth` is configured: endpoints need a credential unless `public`. */
  readonly hasAuth?: boolean;
  /** Indexes of entries the profile schema already found wrong; their problems are listed once. */
  readonly skip?: ReadonlySet<number>;
}

/** The keys the engine reads on every database endpoint, and on each kind besides. */
const commonKeys = ['path', 'method', 'resource', 'endpoint', 'description', 'desc', 'public', 'roles', 'params'];
const kindKeys: Readonly<Record<EndpointKind, readonly string[]>> = {
  list: ['sql', 'table', 'scope', ...listKeys],
  read: ['table', 'id_field', 'sql', 'scope'],
  readOne: ['table', 'id_field', 'sql', 'scope'],
  create: ['table', 'id_field', 'scope'],
  update: ['table', 'id_field', 'scope'],
  delete: ['table', 'id_field', 'scope'],
};
/** Methods that only read: an endpoint answering another one can change data. */
const readingMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Kinds that change data, whatever method they answer. */
const writingKinds = new Set<unknown>(['create', 'update', 'delete']);

/**
 * The access keys of an entry (SPEC §7): `public`, `roles`, `scope` and `{{auth.<claim>}}`
 * variables need `server.auth`, and do not contradict each other.
 */
function accessProblems(entry: Record<string, unknown>, template: CompiledTemplate | undefined, hasAuth: boolean): { key?: string; message: string }[] {
  const problems: { key?: string; message: string }[] = [];
  const needsAuth = (what: string, key?: string): void => void problems.push({ key, message: `${what} needs server.auth (who the caller is comes from a verified credential)` });
  if (entry.roles !== undefined && !hasAuth) needsAuth('roles', 'roles');
  if (entry.public === true && entry.roles !== undefined) problems.push({ key: 'roles', message: 'a public endpoint takes no roles: remove public: true or roles' });
  // A public endpoint's anonymous callers have no claims: every one of their requests would be refused.
  const forCallers = (what: string, key: string): void => void problems.push({ key, message: `${what} needs the caller's claims: a public endpoint cannot use it (remove public: true)` });
  for (const variable of template?.variables ?? []) {
    if (!variable.startsWith(authVariablePrefix)) continue;
    if (!hasAuth) needsAuth(`{{${variable}}}`, 'sql');
    else if (entry.public === true) forCallers(`{{${variable}}}`, 'sql');
  }
  for (const key of Object.keys(entry)) {
    if (key.startsWith(authVariablePrefix)) problems.push({ key, message: `'${key}' cannot be set: {{auth.<claim>}} comes only from the caller's verified claims` });
  }
  const scope = entry.scope;
  // A handler's other keys are its own configuration: `scope` there is the application's.
  if (scope === undefined || entry.handler !== undefined) return problems;
  if (typeof entry.sql === 'string') {
    problems.push({ key: 'scope', message: 'scope applies to table endpoints: in an sql template, write the condition with {{auth.<claim>}}' });
    return problems;
  }
  if (!isPlainObject(scope) || Object.keys(scope).length === 0) return [...problems, { key: 'scope', message: 'must map columns to values or {{auth.<claim>}}' }];
  for (const [column, value] of Object.entries(scope)) {
    const claim = authReference(value);
    if (claim !== undefined && !hasAuth) needsAuth(`scope.${column}`, 'scope');
    else if (claim !== undefined && entry.public === true) forCallers(`scope.${column}`, 'scope');
    if (claim === undefined && (value === null || typeof value === 'object' || (typeof value === 'string' && value.includes('{{')))) {
      problems.push({ key: 'scope', message: `scope.${column} must be a value or exactly {{auth.<claim>}}` });
    }
    const idField = typeof entry.id_field === 'string' ? entry.id_field : 'id';
    if (column === idField && entry.endpoint !== 'create' && entry.endpoint !== 'list') problems.push({ key: 'scope', message: `scope cannot restrict the id_field '${column}' itself` });
  }
  return problems;
}

/**
 * Keys of a database endpoint that neither the engine nor any template of the endpoint reads
 * (SPEC §4: other keys are configuration for the templates). A `{{name}}` that only a SQL comment
 * holds is named, since the template does not read it.
 */
function unusedKeys(entry: Record<string, unknown>, kind: EndpointKind, template: CompiledTemplate | undefined): { key: string; message: string }[] {
  const known = [...commonKeys, ...kindKeys[kind]];
  const used = new Set(template?.variables ?? []);
  const namesInText = new Set(typeof entry.sql === 'string' ? [...entry.sql.matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)].map((match) => match[1]) : []);
  return Object.keys(entry)
    .filter((key) => !known.includes(key) && !used.has(key))
    .map((key) => {
      const why = namesInText.has(key)
        ? ` ({{${key}}} stands only where the template reads no variables: in a SQL comment or a dollar-quoted string)`
        : didYouMean(key, [...used, ...known]);
      return { key, message: `unknown key '${key}'${template === undefined ? '' : ': no template of this endpoint uses it'}${why}` };
    });
}

const httpMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** Which keys each kind needs besides path/resource/endpoint. */
function missingKeys(entry: Record<string, unknown>, kind: keyof typeof endpointKinds): string[] {
  const has = (key: string): boolean => typeof entry[key] === 'string' && entry[key] !== '';
  switch (kind) {
    case 'list':
      return has('sql') || has('table') ? [] : ['sql or table'];
    case 'read':
    case 'readOne':
      return has('sql') ? [] : ['table', 'id_field'].filter((key) => !has(key));
    case 'create':
      return has('table') ? [] : ['table'];
    default:
      return ['table', 'id_field'].filter((key) => !has(key));
  }
}

/**
 * Checks every entry of `server.endpoints` and answers all problems at once, one each, so a
 * broken profile is fixed in one pass.
 */
export function validateEndpoints(endpoints: unknown, context: EndpointContext): ValidatedEndpoints {
  const { declared, dialectOf, hasLib } = context;
  const result: ValidatedEndpoints = { database: [], handlers: [], problems: [], warnings: [] };
  const hasAuth = context.hasAuth === true;
  if (endpoints === undefined || endpoints === null) return result;
  if (!Array.isArray(endpoints)) {
    result.problems.push({ path: ['server', 'endpoints'], message: 'must be a list of endpoints' });
    return result;
  }
  const routes = new Set<string>();

  endpoints.forEach((entry: unknown, index) => {
    if (context.skip?.has(index)) return;
    const problem = (message: string, key?: string): void => void result.problems.push({ path: ['server', 'endpoints', index], key, message });
    if (!isPlainObject(entry)) return problem('must be a mapping');
    const path = entry.path;
    if (typeof path !== 'string' || !path.startsWith('/')) problem("path must be a string starting with '/'");

    const kind = entry.endpoint;
    const isHandler = typeof entry.handler === 'string' && kind === undefined;
    if (!isHandler && !isEndpointKind(kind)) {
      return problem(`unknown endpoint kind '${String(kind)}' (valid: ${Object.keys(endpointKinds).join(', ')}${hasLib ? ', or a handler' : ''})`);
    }
    const defaultMethod = isEndpointKind(kind) ? endpointKinds[kind] : 'GET';
    const method = typeof entry.method === 'string' ? entry.method.toUpperCase() : defaultMethod;
    if (!httpMethods.has(method)) problem(`method '${String(entry.method)}' is not an HTTP method`);
    const route = `${method} ${String(path)}`;
    if (routes.has(route)) problem(`duplicate route ${route}`);
    routes.add(route);
    const config = Object.freeze({ ...entry });
    if (!hasAuth && (!readingMethods.has(method) || writingKinds.has(kind))) {
      result.warnings.push(`endpoint ${route}${isHandler ? '' : ` (${String(kind)})`} is open to anyone who reaches the port: set server.auth to require a credential`);
    }

    if (isHandler) {
      if (!hasLib) problem(`handler '${String(entry.handler)}' needs server.lib`);
      for (const access of accessProblems(entry, undefined, hasAuth)) problem(access.message, access.key);
      result.handlers.push({ path: String(path), method, handler: String(entry.handler), config });
      return;
    }
    if (!isEndpointKind(kind)) return;
    const resource = entry.resource;
    const isDeclared = typeof resource === 'string' && declared.has(resource);
    if (!isDeclared) problem(`resource '${String(resource)}' is not declared in resources`);
    const dialect = isDeclared ? dialectOf(resource) : undefined;
    const missing = missingKeys(entry, kind);
    if (missing.length > 0) problem(`${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} endpoint needs ${missing.join(' and ')}`);
    const definition: EndpointDefinition = {
      path: String(path),
      method,
      resource: String(resource),
      endpoint: kind,
      table: typeof entry.table === 'string' ? entry.table : undefined,
      id_field: typeof entry.id_field === 'string' ? entry.id_field : undefined,
      sql: typeof entry.sql === 'string' ? entry.sql : undefined,
      config,
    };
    let template: CompiledTemplate | undefined;
    if (dialect !== undefined) {
      try {
        template = compileEndpointSql(definition, dialect);
      } catch (error) {
        problem((error as Error).message);
      }
    }
    // A template that could not be read (no dialect, or broken) cannot tell which keys it uses.
    if (definition.sql === undefined || template !== undefined) {
      for (const unused of unusedKeys(entry, kind, template)) problem(unused.message, unused.key);
    }
    for (const access of accessProblems(entry, template, hasAuth)) problem(access.message, access.key);
    if (kind === 'list') for (const list of listProblems(entry, template?.variables)) problem(list.message, list.key);
    for (const { path: below, key, message } of parameterProblems(entry, template, definition.sql !== undefined && template === undefined)) {
      result.problems.push({ path: ['server', 'endpoints', index, ...below], key, message });
    }
    result.database.push(definition);
  });
  return result;
}
