import { integerOf, isCanonicalInteger } from '../../integers';
import type { ParameterType, ParameterValue } from './parameter-types';

/**
 * Path and query-string parameters arrive as text. The text of an integer, a number or a boolean
 * is read here by strict rules, before the JSON Schema checks the value: what a lenient reader
 * (`Number()`, a coercing validator) would turn into some number is refused instead.
 */

/** A plain decimal: optional fraction and exponent; no space, hex, Infinity or NaN. */
const numberText = /^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** The converted value, or why the text is not one of its type (the reason names the rule). */
export type TextReading = { readonly value: ParameterValue } | { readonly reason: string };

type Reader = (text: string) => TextReading;

const asText: Reader = (text) => ({ value: text });

const readers: Readonly<Record<ParameterType, Reader>> = {
  integer(text) {
    // The project's one integer reading (integers.ts): canonical decimal, so `007` and `-0` are refused too.
    if (!isCanonicalInteger(text)) return { reason: 'must be an integer (type)' };
    const value = integerOf(text);
    if (value === undefined) return { reason: `must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (type)` };
    return { value };
  },
  number(text) {
    if (!numberText.test(text)) return { reason: 'must be a number (type)' };
    const value = Number(text);
    return Number.isFinite(value) ? { value: value === 0 ? 0 : value } : { reason: 'must be a number a double can hold (type)' };
  },
  boolean(text) {
    if (text === 'true' || text === 'false') return { value: text === 'true' };
    return { reason: 'must be true or false (type)' };
  },
  string: asText,
  date: asText,
  datetime: asText,
  uuid: asText,
};

/** Reads a parameter's text as its type. */
export function readText(type: ParameterType, text: string): TextReading {
  return readers[type](text);
}
