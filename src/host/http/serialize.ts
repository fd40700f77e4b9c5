import { stringify } from 'lossless-json';

/**
 * JSON text of a reply value. A bigint (a request's integer past ±2^53, or a driver's BIGINT)
 * is written as a JSON number with all its digits, as it was received: JSON.stringify throws on
 * one, so it runs first and lossless-json (same output otherwise) only when it does.
 */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
    return stringify(value) as string;
  }
}
