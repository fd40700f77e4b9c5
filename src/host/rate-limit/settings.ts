import { isPlainObject, substituteEnv } from '../../config';
import { SqlResourceError } from '../../errors';
import { integerOf, integerSetting } from '../../integers';

/** `server.rateLimit` of a profile, checked, with its defaults and `{{ENV}}` substituted. Frozen. */
export interface RateLimitSettings {
  /** Requests a client may make per window. */
  readonly max: number;
  /** The window, in milliseconds. */
  readonly timeWindow: number;
  /** What a client is: its IP address, or the verified caller (its IP address when there is none). */
  readonly keyBy: 'ip' | 'auth';
  /** Non-enumerable (it may hold a password): the Redis server whose counters several hosts share. */
  readonly redis?: string;
}

/** @fastify/rate-limit's default window. */
const defaultTimeWindow = 60_000;

const where = 'server.rateLimit';
const keyByValues = ['ip', 'auth'] as const;

const unitMilliseconds: [pattern: RegExp, milliseconds: number][] = [
  [/^(?:ms|msecs?|milliseconds?)$/, 1],
  [/^(?:s|secs?|seconds?)$/, 1000],
  [/^(?:m|mins?|minutes?)$/, 60_000],
  [/^(?:h|hrs?|hours?)$/, 3_600_000],
  [/^(?:d|days?)$/, 86_400_000],
  [/^(?:w|wks?|weeks?)$/, 604_800_000],
];

/**
 * A duration such as `'1 minute'`, `'30s'`, `'1.5 hours'` or `'500'` (milliseconds), in
 * milliseconds; the units of @fastify/rate-limit's own parser (@lukeed/ms), which answers
 * undefined, not an error, for text it cannot read. Undefined here too, for the caller to refuse.
 */
function durationMilliseconds(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?) ?([a-z]*)$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const unit = match[2] === '' ? 1 : unitMilliseconds.find(([pattern]) => pattern.test(match[2]))?.[1];
  if (unit === undefined) return undefined;
  const milliseconds = Number(match[1]) * unit;
  return Number.isSafeInteger(milliseconds) ? milliseconds : undefined;
}

function resolved(section: Record<string, unknown>, key: string): unknown {
  const value = section[key];
  return typeof value === 'string' ? substituteEnv('profile', `${where}.${key}`, value) : value;
}

function invalid(key: string, rule: string): SqlResourceError {
  return new SqlResourceError('CONFIG_INVALID', `profile: ${where}.${key} ${rule}`);
}

function timeWindow(section: Record<string, unknown>): number {
  const value = resolved(section, 'timeWindow');
  if (value === undefined || value === null || value === '') return defaultTimeWindow;
  const milliseconds = integerOf(value) ?? (typeof value === 'string' ? durationMilliseconds(value) : undefined);
  if (milliseconds === undefined || milliseconds < 1) {
    throw invalid('timeWindow', "must be a positive number of milliseconds, or a duration such as '1 minute', '30s' or '1 hour'");
  }
  return milliseconds;
}

function keyBy(section: Record<string, unknown>): RateLimitSettings['keyBy'] {
  const value = resolved(section, 'keyBy') ?? 'ip';
  const known = keyByValues.find((name) => name === value);
  if (known === undefined) throw invalid('keyBy', "must be 'ip' or 'auth'");
  return known;
}

/** The URL itself is never quoted: it may hold a password. */
function redisUrl(section: Record<string, unknown>): string | undefined {
  const value = resolved(section, 'redis');
  if (value === undefined || value === null) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    throw invalid('redis', 'must be a redis:// (or rediss://) URL of a Redis server');
  }
  return value as string;
}

/**
 * `server.rateLimit` of a profile, or undefined when it is absent (no limit). Errors are
 * CONFIG_INVALID naming the key, never its value (the Redis URL may hold a password).
 */
export function rateLimitSettings(value: unknown): RateLimitSettings | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw new SqlResourceError('CONFIG_INVALID', `profile: ${where} must be a mapping (max, timeWindow, keyBy, redis)`);
  // 0 only stands for an absent max (`{{ENV:-}}` included): a value below 1 is refused.
  const max = integerSetting('profile', `${where}.max`, resolved(value, 'max'), 0, { min: 1, max: Number.MAX_SAFE_INTEGER });
  // Named at the section, where the schema's `required` names it too: one problem, not two.
  if (max === 0) throw new SqlResourceError('CONFIG_INVALID', `profile: ${where} must have max (requests per timeWindow, a positive integer)`);
  const settings = { max, timeWindow: timeWindow(value), keyBy: keyBy(value) };
  const redis = redisUrl(value);
  if (redis !== undefined) Object.defineProperty(settings, 'redis', { value: redis, enumerable: false });
  return Object.freeze(settings);
}
