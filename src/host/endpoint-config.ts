import { isPlainObject } from '../config';
import { compileEndpointSql, endpointKinds, isEndpointKind, type EndpointDefinition } from '../endpoints';
import { SqlResourceError } from '../errors';
import type { ResourceManager } from '../resource-manager';
import { profileProblems } from './problems';

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
 * Checks every entry of `server.endpoints` and reports all problems at once, one line each,
 * so a broken profile is fixed in one pass.
 */
export function validateEndpoints(endpoints: unknown, resources: ResourceManager, hasLib: boolean): ValidatedEndpoints {
  const problems: string[] = [];
  const result: ValidatedEndpoints = { database: [], handlers: [] };
  if (endpoints === undefined || endpoints === null) return result;
  if (!Array.isArray(endpoints)) throw new SqlResourceError('CONFIG_INVALID', 'profile: server.endpoints must be a list of endpoints');
  const routes = new Set<string>();

  endpoints.forEach((entry: unknown, index) => {
    const where = `server.endpoints[${index}]`;
    if (!isPlainObject(entry)) return problems.push(`${where}: must be a mapping`);
    const path = entry.path;
    const at = typeof path === 'string' ? `${where} (${path})` : where;
    if (typeof path !== 'string' || !path.startsWith('/')) problems.push(`${at}: path must be a string starting with '/'`);

    const kind = entry.endpoint;
    const isHandler = typeof entry.handler === 'string' && kind === undefined;
    if (!isHandler && !isEndpointKind(kind)) {
      problems.push(`${at}: unknown endpoint kind '${String(kind)}' (valid: ${Object.keys(endpointKinds).join(', ')}${hasLib ? ', or a handler' : ''})`);
      return;
    }
    const defaultMethod = isEndpointKind(kind) ? endpointKinds[kind] : 'GET';
    const method = typeof entry.method === 'string' ? entry.method.toUpperCase() : defaultMethod;
    if (!httpMethods.has(method)) problems.push(`${at}: method '${String(entry.method)}' is not an HTTP method`);
    const route = `${method} ${String(path)}`;
    if (routes.has(route)) problems.push(`${at}: duplicate route ${route}`);
    routes.add(route);
    const config = Object.freeze({ ...entry });

    if (isHandler) {
      if (!hasLib) problems.push(`${at}: handler '${String(entry.handler)}' needs server.lib`);
      result.handlers.push({ path: String(path), method, handler: String(entry.handler), config });
      return;
    }
    if (!isEndpointKind(kind)) return;
    const resource = entry.resource;
    if (typeof resource !== 'string' || !resources.exist(resource)) {
      problems.push(`${at}: resource '${String(resource)}' is not declared in resources`);
    }
    const missing = missingKeys(entry, kind);
    if (missing.length > 0) problems.push(`${at}: ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} endpoint needs ${missing.join(' and ')}`);
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
    if (typeof resource === 'string' && resources.exist(resource)) {
      try {
        compileEndpointSql(definition, resources.get(resource).dialect);
      } catch (error) {
        problems.push(`${at}: ${(error as Error).message}`);
      }
    }
    result.database.push(definition);
  });

  if (problems.length > 0) throw profileProblems(problems);
  return result;
}
