import type { JsonSchema } from './config-schema';
import type { SqlDialect } from './dialect';
import { SqlResourceError } from './errors';
import type { SqlResource } from './sql-resource';
import { MysqlResource } from './dialects/mysql/mysql-resource';
import { PostgresResource } from './dialects/postgres/postgres-resource';

/**
 * A resource class. Its static `configSchema`, when it has one, is the JSON Schema of its
 * `resources.<id>` entry: the profile schema takes it under the class's `_class` names, and a
 * subclass inherits its parent's unless it declares its own. Its static `dialect` lets a
 * profile's templates be checked even when that resource's settings are refused.
 */
export type ResourceClass = (new (id: string, config: unknown) => SqlResource) & { readonly configSchema?: JsonSchema; readonly dialect?: SqlDialect };

const builtIn: Readonly<Record<string, ResourceClass>> = Object.freeze({
  mysql: MysqlResource,
  mariadb: MysqlResource,
  postgres: PostgresResource,
  postgresql: PostgresResource,
});

const registered = new Map<string, ResourceClass>(Object.entries(builtIn));
/** Classes registered by the application: what the profile schema is built from changes with it. */
let registerCalls = 0;

/** Adds a resource class under `_class: name`; built-in names cannot be replaced. */
export function register(name: string, resourceClass: ResourceClass): void {
  if (typeof name !== 'string' || name === '') throw new SqlResourceError('INVALID_ARGUMENT', 'a resource class needs a non-empty name');
  if (name in builtIn) throw new SqlResourceError('INVALID_ARGUMENT', `resource class '${name}' is built in and cannot be replaced`);
  if (typeof resourceClass !== 'function') throw new SqlResourceError('INVALID_ARGUMENT', `resource class '${name}' must be a constructor`);
  registered.set(name, resourceClass);
  registerCalls++;
}

/** How many classes `register` has added (0: the built-in ones only). */
export function registrations(): number {
  return registerCalls;
}

export function resourceClassOf(name: string, resourceId: string): ResourceClass {
  const found = registered.get(name);
  if (!found) {
    const known = [...registered.keys()].join(', ');
    throw new SqlResourceError('UNKNOWN_CLASS', `resource '${resourceId}': unknown _class '${name}' (known: ${known})`);
  }
  return found;
}

export function registeredClasses(): string[] {
  return [...registered.keys()];
}

/** Every `_class` name with its class, built-in ones first. */
export function registeredClassEntries(): [string, ResourceClass][] {
  return [...registered.entries()];
}

/**
 * True when `_class: name` runs on PostgreSQL: `postgres`, `postgresql`, or a registered class
 * extending PostgresResource. Callers ask here instead of comparing `_class` with a literal.
 */
export function isPostgresClass(name: unknown): boolean {
  const found = typeof name === 'string' ? registered.get(name) : undefined;
  return found !== undefined && (found === PostgresResource || found.prototype instanceof PostgresResource);
}

/** True when `_class: name` runs on MySQL or MariaDB (`mysql`, `mariadb`, or a class extending MysqlResource). */
export function isMysqlClass(name: unknown): boolean {
  const found = typeof name === 'string' ? registered.get(name) : undefined;
  return found !== undefined && (found === MysqlResource || found.prototype instanceof MysqlResource);
}
