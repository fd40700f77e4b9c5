import { SqlResourceError } from './errors';

/**
 * One integer parser for every input: profile values, `{{ENV}}` substitutions, command-line
 * options, query strings. Accepted: a safe integer number, or its canonical decimal text
 * (an optional minus, no plus, space, leading zero, fraction or exponent). Text such as
 * `12abc`, `1e3`, ` 7` or `007` is refused rather than read as something else.
 */
const canonicalInteger = /^-?(?:0|[1-9][0-9]*)$/;

/** True for an integer written in canonical decimal (`12`, `-3`; not `-0`, `007`, `+1`, `1e3`, `1.0`). */
export function isCanonicalInteger(text: string): boolean {
  return canonicalInteger.test(text) && text !== '-0';
}

/** The safe integer `value` stands for, or undefined. */
export function integerOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value + 0 : undefined;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : undefined;
  if (typeof value !== 'string' || !isCanonicalInteger(value)) return undefined;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

/**
 * An exact integer of any size, for values bound to integer columns (keys, filters): a safe
 * integer as a number, one past ±2^53 as its decimal text (a bigint, or canonical text), else undefined.
 */
export function exactIntegerOf(value: unknown): number | string | undefined {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'string' && isCanonicalInteger(value) && !Number.isSafeInteger(Number(value))) return value;
  return integerOf(value);
}

/** An integer range, both ends included. */
export interface IntegerRange {
  readonly min: number;
  readonly max: number;
}

/** The sentence a refused integer setting ends with, e.g. `must be an integer from 1 to 65535`. */
export function integerRule({ min, max }: IntegerRange): string {
  if (max === Number.MAX_SAFE_INTEGER) return min === 0 ? 'must be a non-negative integer' : min === 1 ? 'must be a positive integer' : `must be an integer of at least ${min}`;
  return `must be an integer from ${min} to ${max}`;
}

/**
 * A setting that must be an integer within `range`: `fallback` when absent (undefined, null or
 * ''), else the integer, else CONFIG_INVALID naming `where` and `key`. The value is quoted only
 * when `showValue` says it cannot be a secret (a profile or environment value may be one).
 */
export function integerSetting(where: string, key: string, value: unknown, fallback: number, range: IntegerRange, showValue = false): number {
  if (value === undefined || value === null || value === '') return fallback;
  const parsed = integerOf(value);
  if (parsed === undefined || parsed < range.min || parsed > range.max) {
    throw new SqlResourceError('CONFIG_INVALID', `${where}: ${key} ${integerRule(range)}${showValue ? `, got ${String(value)}` : ''}`);
  }
  return parsed;
}

/** A row count a database reported (a number, or decimal text from some drivers), or undefined. */
export function finiteCount(value: unknown): number | undefined {
  const count = typeof value === 'string' ? Number(value) : value;
  return typeof count === 'number' && Number.isFinite(count) && count >= 0 ? Math.round(count) : undefined;
}
