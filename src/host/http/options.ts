import { isPlainObject, substituteEnv } from '../../config';
import { SqlResourceError } from '../../errors';
import { integerSetting } from '../../integers';
import { cursorKey } from '../../lists/cursor';
import { rateLimitNamespace, rateLimitSettings, type RateLimitSettings } from '../rate-limit';

export interface JsonOptions {
  /** Deepest nesting of arrays and objects a request body may hold. */
  maxDepth: number;
  /** sxapi-core's behaviour: every content type is read as JSON. */
  anyContentType: boolean;
}

export interface HstsOptions {
  maxAge: number;
  includeSubDomains: boolean;
  preload: boolean;
}

export interface HttpOptions {
  bodyLimit: number;
  /** Options for @fastify/cors; CORS stays off without them. */
  cors?: Record<string, unknown>;
  json?: Partial<JsonOptions>;
  /** Host header values (hostname, or hostname:port) the server answers; any when unset. */
  allowedHosts?: readonly string[];
  /** Send 5xx errors' own messages instead of the generic one. */
  exposeErrors?: boolean;
  /** Milliseconds a client has to send a whole request (0: no limit). */
  requestTimeout?: number;
  /** Milliseconds a streamed answer may make no progress before its connection is closed (0: no limit). */
  writeTimeout?: number;
  /** Strict-Transport-Security; off unless configured. */
  hsts?: HstsOptions | false;
  /** Requests per client and window (`server.rateLimit`); no limit unless configured. */
  rateLimit?: RateLimitSettings;
  /** Where the Redis counters of `rateLimit` live: `sql-resources:<profile name>:`. */
  rateLimitNamespace?: string;
  /** Signs the keyset cursors of lists (`server.cursorSecret`); one key per process when unset. */
  cursorKey?: Buffer;
}

export const defaultBodyLimit = 1024 * 1024;
export const defaultMaxDepth = 64;
/** lossless-json parses recursively: far deeper bodies would reach the stack's limit. */
export const maxMaxDepth = 1000;
export const defaultRequestTimeout = 30_000;
export const defaultWriteTimeout = 30_000;
const defaultHstsMaxAge = 365 * 24 * 60 * 60;

/**
 * An integer `server.<key>` within bounds: `fallback` when absent (`{{ENV:-}}` included), a
 * decimal string and `{{ENV}}` accepted. The error names the key, never the value (it may come
 * from the environment).
 */
export function profileInteger(section: Record<string, unknown>, key: string, fallback: number, min: number, max: number, prefix = 'server'): number {
  const raw = typeof section[key] === 'string' ? substituteEnv('profile', `${prefix}.${key}`, section[key] as string) : section[key];
  return integerSetting('profile', `${prefix}.${key}`, raw, fallback, { min, max });
}

/** A boolean `server.<key>` (`'true'`/`'false'` and `{{ENV:-fallback}}` accepted). */
function profileBoolean(section: Record<string, unknown>, key: string, prefix = 'server'): boolean {
  const raw = typeof section[key] === 'string' ? substituteEnv('profile', `${prefix}.${key}`, section[key] as string) : section[key];
  if (raw === undefined || raw === null) return false;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new SqlResourceError('CONFIG_INVALID', `profile: ${prefix}.${key} must be true or false`);
}

function mapping(server: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = server[key];
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw new SqlResourceError('CONFIG_INVALID', `profile: server.${key} must be a mapping`);
  return value;
}

function allowedHosts(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.some((host) => typeof host !== 'string' || host.trim() === '')) {
    throw new SqlResourceError('CONFIG_INVALID', 'profile: server.allowedHosts must be a list of host names (or host:port)');
  }
  return list.map((host: string, index) => substituteEnv('profile', `server.allowedHosts[${index}]`, host).trim().toLowerCase());
}

function hsts(value: unknown): HstsOptions | false {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return { maxAge: defaultHstsMaxAge, includeSubDomains: true, preload: false };
  if (!isPlainObject(value)) throw new SqlResourceError('CONFIG_INVALID', 'profile: server.hsts must be true or a mapping (maxAge, includeSubDomains, preload)');
  return {
    maxAge: profileInteger(value, 'maxAge', defaultHstsMaxAge, 0, 2 ** 31 - 1, 'server.hsts'),
    includeSubDomains: value.includeSubDomains === undefined ? true : profileBoolean(value, 'includeSubDomains', 'server.hsts'),
    preload: profileBoolean(value, 'preload', 'server.hsts'),
  };
}

/** `server.cors` of a profile as @fastify/cors options; undefined keeps CORS off. */
export function corsOptions(config: unknown): Record<string, unknown> | undefined {
  if (config === undefined || config === null) return undefined;
  if (!isPlainObject(config)) throw new SqlResourceError('CONFIG_INVALID', 'profile: server.cors must be a mapping (origins, methods)');
  const options: Record<string, unknown> = { origin: config.origins ?? config.origin ?? false, credentials: config.credentials === true };
  if (options.credentials && (options.origin === '*' || options.origin === true)) {
    throw new SqlResourceError('CONFIG_INVALID', 'profile: server.cors cannot allow credentials from any origin; list the origins');
  }
  // Left out, @fastify/cors answers preflights with its own default list of methods.
  if (config.methods !== undefined) options.methods = config.methods;
  return options;
}

/** Shorter secrets are refused: a cursor's signature is only as strong as its key. */
const minCursorSecretBytes = 32;

/**
 * `server.cursorSecret`: hosts that share it accept each other's list cursors (several hosts
 * behind one address). The error never holds the value.
 */
function cursorSecret(value: unknown): Buffer | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? substituteEnv('profile', 'server.cursorSecret', value) : undefined;
  if (text === undefined || Buffer.byteLength(text) < minCursorSecretBytes) {
    throw new SqlResourceError('CONFIG_INVALID', `profile: server.cursorSecret must be a string of at least ${minCursorSecretBytes} bytes (usually {{ENV}})`);
  }
  return cursorKey(text);
}

/** The HTTP settings of a profile's `server` section, checked and with their defaults. */
export function httpOptions(
  server: Record<string, unknown>,
  profileName?: string,
): Required<Omit<HttpOptions, 'cors' | 'allowedHosts' | 'rateLimit' | 'cursorKey'>> & Pick<HttpOptions, 'cors' | 'allowedHosts' | 'rateLimit' | 'cursorKey'> {
  const json = mapping(server, 'json');
  return {
    bodyLimit: profileInteger(server, 'bodyLimit', defaultBodyLimit, 1, Number.MAX_SAFE_INTEGER),
    cors: corsOptions(server.cors),
    json: {
      maxDepth: profileInteger(json, 'maxDepth', defaultMaxDepth, 1, maxMaxDepth, 'server.json'),
      anyContentType: profileBoolean(json, 'anyContentType', 'server.json'),
    },
    allowedHosts: allowedHosts(server.allowedHosts),
    exposeErrors: profileBoolean(server, 'exposeErrors'),
    // Node's own timers take at most 2^31 - 1 ms.
    requestTimeout: profileInteger(server, 'requestTimeout', defaultRequestTimeout, 0, 2 ** 31 - 1),
    writeTimeout: profileInteger(server, 'writeTimeout', defaultWriteTimeout, 0, 2 ** 31 - 1),
    hsts: hsts(server.hsts),
    rateLimit: rateLimitSettings(server.rateLimit),
    rateLimitNamespace: rateLimitNamespace(profileName),
    cursorKey: cursorSecret(server.cursorSecret),
  };
}
