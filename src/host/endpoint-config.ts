import { isPlainObject } from '../config';
import { compileEndpointSql, endpointKinds, isEndpointKind, type EndpointDefinition, type EndpointKind } from '../endpoints';
import type { SqlDialect } from '../dialect';
import type { CompiledTemplate } from '../template';
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
  /** Indexes of entries the profile schema already found wrong; their problems are listed once. */
  readonly skip?: ReadonlySet<number>;
}

/** The keys the engine reads on every database endpoint, and on each kind besides. */
const commonKeys = ['path', 'method', 'resource', 'endpoint', 'description', 'desc'];
const kindKeys: Readonly<Record<EndpointKind, readonly string[]>> = {
  list: ['sql'],
  read: ['table', 'id_field', 'sql'],
  readOne: ['table', 'id_field', 'sql'],
  create: ['table', 'id_field'],
  update: ['table', 'id_field'],
  delete: ['table', 'id_field'],
};

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
        : didYouMean(key, [...known, ...used]);
      return { key, message: `unknown key '${key}'${template === undefined ? '' : ': no template of this endpoint uses it'}${why}` };
    });
}

const httpMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** Which keys each kind needs besides path/resource/endpoint. */
function missingKeys(entry: Record<string, unknown>, kind: keyof typeof endpointKinds): string[] {
  const has = (key: string): boolean => typeof entry[key] === 'string' && entry[key] !== '';
  switch (kind) {
    case 'list':
      return has('sql') ? [] : ['sql'];
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
  const result: ValidatedEndpoints = { database: [], handlers: [], problems: [] };
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

    if (isHandler) {
      if (!hasLib) problem(`handler '${String(entry.handler)}' needs server.lib`);
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
    result.database.push(definition);
  });
  return result;
}
