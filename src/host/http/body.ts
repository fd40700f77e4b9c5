import type { FastifyInstance } from 'fastify';
import { parse } from 'lossless-json';
import secureJsonParse from 'secure-json-parse';
import { SqlResourceError } from '../../errors';
import type { JsonOptions } from './options';

/** Longest integer literal turned into a bigint: BigInt() of longer text costs time that grows faster than its length. */
export const maxIntegerDigits = 100;

/** Marks a number that JSON.parse would round, until the walk that names its field. */
class InexactNumber {
  constructor(readonly text: string) {}
}

const integerPattern = /^-?\d+$/;

/**
 * lossless-json's number hook: exact JS numbers stay numbers, integers past ±2^53 become
 * bigints; a value past 2^53 written with a fraction or exponent, or not finite, has no exact
 * form and is refused later by field name.
 */
function parseNumber(text: string): number | bigint | InexactNumber {
  const value = Number(text);
  if (Number.isSafeInteger(value)) return value;
  if (integerPattern.test(text)) return text.replace(/^-/, '').length <= maxIntegerDigits ? BigInt(text) : new InexactNumber(text);
  if (!Number.isFinite(value) || Number.isInteger(value)) return new InexactNumber(text);
  return value;
}

/** A JSON path for messages: keys come from the client, so long ones are cut. */
function describePath(path: (string | number)[]): string {
  const text = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('').replace(/^\./, '');
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

/** Depth-first search for the first inexact number, iterative so any depth is safe. */
function findInexact(root: unknown): (string | number)[] | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (value instanceof InexactNumber) return path;
    if (Array.isArray(value)) value.forEach((item, index) => stack.push({ value: item, path: [...path, index] }));
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) stack.push({ value: item, path: [...path, key] });
  }
  return undefined;
}

/**
 * Whether arrays and objects nest deeper than `max`, counting brackets outside strings. It runs
 * before the parser, which recurses and would otherwise meet the stack's limit.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/** lossless-json's messages quote the body (`got 'x'`, `Duplicate key 'name'`): keep only the position. */
function syntaxMessage(error: Error): string {
  const position = /position (\d+)/.exec(error.message)?.[1];
  const where = position === undefined ? '' : ` at position ${position}`;
  if (/^Duplicate key/.test(error.message)) return `the request body repeats a key${where}`;
  return `the request body is not valid JSON${where === '' ? '' : ` (error${where})`}`;
}

/**
 * Reads a request body as JSON: nesting limited to `maxDepth`, numbers exact (a bigint past
 * ±2^53), keys that could poison prototypes refused.
 */
export function parseJsonBody(raw: string, maxDepth: number): unknown {
  // Many clients send a Content-Type on every request; an empty body is refused only where one is needed.
  if (raw.trim() === '') return undefined;
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (nestsDeeperThan(text, maxDepth)) {
    throw new SqlResourceError('INVALID_BODY', `the request body nests arrays and objects deeper than ${maxDepth} levels (server.json.maxDepth)`);
  }
  let inexact = false;
  let body: unknown;
  try {
    body = parse(text, null, (number) => {
      const value = parseNumber(number);
      if (value instanceof InexactNumber) inexact = true;
      return value;
    });
  } catch (error) {
    throw new SqlResourceError('INVALID_BODY', syntaxMessage(error as Error));
  }
  if (inexact) {
    const path = findInexact(body) ?? [];
    const which = path.length === 0 ? 'the request body is a number that' : `the request body's number at ${describePath(path)}`;
    throw new SqlResourceError(
      'INVALID_BODY',
      `${which} cannot be read exactly: past ±2^53, write integers without fraction or exponent, up to ${maxIntegerDigits} digits`,
    );
  }
  // lossless-json stores `__proto__` as an own key, as JSON.parse does; secure-json-parse's scan
  // then refuses it and constructor.prototype. Keys spelled with \u escapes are caught too.
  if (body !== null && typeof body === 'object' && (text.includes('__proto__') || text.includes('constructor') || text.includes('\\u'))) {
    try {
      secureJsonParse.scan(body as object, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      throw new SqlResourceError('INVALID_BODY', 'the request body holds a forbidden key (__proto__ or constructor.prototype)');
    }
  }
  return body;
}

/** `application/<anything>+json`, parameters (charset) allowed; fastify lowercases the type. */
const plusJson = /^application\/[^\s;/]+\+json(?:;|$)/;

/**
 * Request bodies are JSON: only `application/json` and `application/*+json` are read, anything
 * else (or a body without Content-Type) is a 415, so a cross-site form or `text/plain` "simple
 * request" cannot write. `anyContentType` restores sxapi-core's anything-is-JSON.
 */
export function registerBodyParsers(server: FastifyInstance, options: JsonOptions): void {
  server.removeAllContentTypeParsers();
  const parser = (_request: unknown, body: string | Buffer, done: (error: Error | null, body?: unknown) => void): void => {
    try {
      done(null, parseJsonBody(String(body), options.maxDepth));
    } catch (error) {
      done(error as Error, undefined);
    }
  };
  if (options.anyContentType) {
    server.addContentTypeParser('*', { parseAs: 'string' }, parser);
    return;
  }
  server.addContentTypeParser('application/json', { parseAs: 'string' }, parser);
  server.addContentTypeParser(plusJson, { parseAs: 'string' }, parser);
}
