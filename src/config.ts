import { SqlResourceError } from './errors';
import { integerSetting, type IntegerRange } from './integers';

/** Connection settings after validation, defaults and `{{ENV}}` substitution. Frozen. */
export interface ServerSettings {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user?: string;
  /** Non-enumerable: it never shows up when the settings are logged or serialized. */
  readonly password?: string;
  readonly charset: string;
  readonly timezone: string;
  /** Bound statements are prepared on the server and reused (default true). */
  readonly preparedStatements: boolean;
  /** Every other `server.*` key, passed to the driver as it is. */
  readonly driverOptions: Readonly<Record<string, unknown>>;
}

export interface ResourceConfig {
  readonly _class: string;
  readonly server: ServerSettings;
  /** Keys beside `server` (e.g. mysql's `keepAliveInterval`), validated by the kind. */
  readonly options: Readonly<Record<string, unknown>>;
}

const timezonePattern = /^(local|Z|[+-]\d{2}:\d{2})$/;
/** `{{NAME}}`, or `{{NAME:-fallback}}` for a value used when NAME is not set. */
const envPattern = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\s*\}\}/g;
const knownServerKeys = new Set(['host', 'port', 'database', 'user', 'password', 'charset', 'timezone', 'preparedStatements']);

export function configError(id: string, key: string, problem: string): SqlResourceError {
  return new SqlResourceError('CONFIG_INVALID', `resource '${id}': ${key} ${problem}`);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Replaces `{{NAME}}` with the environment variable NAME; an undefined one without fallback is
 * an error naming `where` (e.g. `resource 'db'` or `profile`) and the key.
 */
export function substituteEnv(where: string, key: string, value: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(envPattern, (_match, name: string, fallback: string | undefined) => {
    const replacement = env[name] ?? fallback;
    if (replacement === undefined) {
      throw new SqlResourceError('CONFIG_INVALID', `${where}: ${key} refers to the undefined environment variable ${name}`);
    }
    return replacement;
  });
}

function requiredString(id: string, server: Record<string, unknown>, key: string): string {
  const value = server[key];
  if (value === undefined || value === null || value === '') throw configError(id, `server.${key}`, 'is required');
  if (typeof value !== 'string') throw configError(id, `server.${key}`, `must be a string, got ${typeof value}`);
  return value;
}

function optionalString(id: string, server: Record<string, unknown>, key: string): string | undefined {
  const value = server[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw configError(id, `server.${key}`, `must be a string, got ${typeof value}`);
  return value;
}

/** A resource's `server.port`: its kind's default when absent (`{{DB_PORT:-}}` included). */
function parsePort(id: string, value: unknown, defaultPort: number): number {
  return integerSetting(`resource '${id}'`, 'server.port', value, defaultPort, { min: 1, max: 65535 });
}

function withEnv(id: string, server: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(server)) {
    resolved[key] = typeof value === 'string' ? substituteEnv(`resource '${id}'`, `server.${key}`, value, env) : value;
  }
  return resolved;
}

/**
 * Validates one `resources.<id>` entry shared by both kinds. Errors name the resource id
 * and the key, never a value (so never the password).
 */
export function parseResourceConfig(
  id: string,
  raw: unknown,
  defaultPort: number,
  env: NodeJS.ProcessEnv = process.env,
): ResourceConfig {
  if (!isPlainObject(raw)) throw configError(id, 'configuration', 'must be an object');
  const { _class, server: rawServer, ...options } = raw;
  if (typeof _class !== 'string' || _class === '') throw configError(id, '_class', 'is required (a string)');
  if (rawServer === undefined || rawServer === null) throw configError(id, 'server', 'is required');
  if (!isPlainObject(rawServer)) throw configError(id, 'server', 'must be an object');
  const server = withEnv(id, rawServer, env);

  const timezone = optionalString(id, server, 'timezone') ?? 'local';
  if (!timezonePattern.test(timezone)) throw configError(id, 'server.timezone', "must be 'local', 'Z', '+HH:MM' or '-HH:MM'");
  const preparedStatements = server.preparedStatements ?? true;
  if (typeof preparedStatements !== 'boolean') throw configError(id, 'server.preparedStatements', 'must be a boolean');

  const driverOptions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(server)) if (!knownServerKeys.has(key)) driverOptions[key] = value;

  const settings = {
    host: requiredString(id, server, 'host'),
    port: parsePort(id, server.port, defaultPort),
    database: requiredString(id, server, 'database'),
    user: optionalString(id, server, 'user'),
    charset: optionalString(id, server, 'charset') ?? 'UTF8MB4_GENERAL_CI',
    timezone,
    preparedStatements,
    driverOptions: Object.freeze(driverOptions),
  };
  const password = optionalString(id, server, 'password');
  Object.defineProperty(settings, 'password', { value: password, enumerable: false });
  return Object.freeze({
    _class,
    server: Object.freeze(settings) as ServerSettings,
    options: Object.freeze(options),
  });
}

/**
 * Reads an optional integer option beside `server` (e.g. `streamBatchSize`): `fallback` when
 * absent, else a safe integer of at least `minimum` (0 or 1), or within a range. A decimal
 * string is accepted; `12abc`, `1e3`, `1.5` and anything past 2^53 are refused with an error
 * naming the resource and the key.
 */
export function integerOption(
  id: string,
  options: Readonly<Record<string, unknown>>,
  key: string,
  fallback: number,
  minimum: 0 | 1 | IntegerRange,
): number {
  const range = typeof minimum === 'number' ? { min: minimum, max: Number.MAX_SAFE_INTEGER } : minimum;
  return integerSetting(`resource '${id}'`, key, options[key], fallback, range);
}

/**
 * The driver options (`server.<key>`) an adapter reads as integers, checked with the one integer
 * parser when the resource is built (errors name `server.<key>`), as numbers; absent keys are left out.
 */
export function integerDriverOptions(id: string, settings: ServerSettings, ranges: Readonly<Record<string, IntegerRange>>): Readonly<Record<string, number>> {
  const checked: Record<string, number> = {};
  for (const [key, range] of Object.entries(ranges)) {
    const value = settings.driverOptions[key];
    if (value !== undefined && value !== null && value !== '') checked[key] = integerSetting(`resource '${id}'`, `server.${key}`, value, 0, range);
  }
  return Object.freeze(checked);
}
