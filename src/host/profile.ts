import { readFileSync, statSync } from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { isPlainObject } from '../config';
import { SqlResourceError } from '../errors';
import { isCanonicalInteger } from '../integers';
import { describeYamlError, redactYamlMessage } from './yaml-errors';

/** A profile as the engine reads it; unknown keys are kept for application code. */
export interface Profile {
  name?: string;
  resources?: Record<string, unknown>;
  server?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Larger profile files are refused before they are read: a profile is configuration, not data. */
export const maxProfileBytes = 1024 * 1024;

/** Where a value (or a mapping's key) of a profile read from a file stands in that file. */
export interface ProfileLocator {
  readonly file: string;
  /** Line and column (from 1) of the value at `path`, or of its key `key` when given. */
  locate(path: readonly (string | number)[], key?: string): { line: number; column: number } | undefined;
}

const locators = new WeakMap<object, ProfileLocator>();

/** The locator of a profile `loadProfile` read from a file; none for a profile given as an object. */
export function profileLocator(profile: unknown): ProfileLocator | undefined {
  return typeof profile === 'object' && profile !== null ? locators.get(profile) : undefined;
}

/** Reads a profile object, or a YAML/JSON file (YAML is a superset of JSON). */
export function loadProfile(source: Profile | string): Profile {
  if (typeof source !== 'string') {
    if (!isPlainObject(source)) throw new SqlResourceError('CONFIG_INVALID', 'a profile must be an object or a file path');
    return source;
  }
  let text: string;
  try {
    const { size } = statSync(source);
    if (size > maxProfileBytes) throw tooLarge(source, size);
    text = readFileSync(source, 'utf8');
  } catch (error) {
    if (error instanceof SqlResourceError) throw error;
    throw new SqlResourceError('CONFIG_INVALID', `cannot read profile ${source}: ${(error as Error).message}`, { cause: error });
  }
  // A file that grew, or a device that reports no size, is measured again once read.
  if (Buffer.byteLength(text) > maxProfileBytes) throw tooLarge(source, Buffer.byteLength(text));
  const { parsed, locator } = parseProfileText(source, text);
  if (!isPlainObject(parsed)) throw new SqlResourceError('CONFIG_INVALID', `profile ${source} must hold a mapping at its top level`);
  locators.set(parsed, locator);
  return parsed as Profile;
}

function tooLarge(path: string, size: number): SqlResourceError {
  return new SqlResourceError('CONFIG_INVALID', `profile ${path} holds ${size} bytes; a profile may hold at most ${maxProfileBytes} (1 MiB)`);
}

function locatorOf(file: string, doc: Document, lines: LineCounter): ProfileLocator {
  return {
    file,
    locate(path, key) {
      const node = path.length === 0 ? doc.contents : doc.getIn(path, true);
      let offset: number | undefined;
      if (key !== undefined && isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
        offset = isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
      } else if (node !== undefined && node !== null && typeof node === 'object' && 'range' in node) {
        offset = (node as { range?: [number, number, number] }).range?.[0];
      }
      if (offset === undefined) return undefined;
      const { line, col } = lines.linePos(offset);
      return { line, column: col };
    },
  };
}

/**
 * Parses the text of profile `path`. Errors and warnings name the line and column and show an
 * excerpt where the values of secret-looking keys read `***` (yaml's own excerpt would print
 * `password: …` as written); yaml's error is not kept as `cause`, since its message may quote
 * the same text.
 */
function parseProfileText(path: string, text: string): { parsed: unknown; locator: ProfileLocator } {
  const invalid = (detail: string): SqlResourceError => new SqlResourceError('CONFIG_INVALID', `profile ${path} is not valid YAML/JSON: ${detail}`);
  const lines = new LineCounter();
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { prettyErrors: false, lineCounter: lines });
  } catch (error) {
    throw invalid(redactYamlMessage(text, (error as Error).message));
  }
  if (doc.errors.length > 0) throw invalid(describeYamlError(text, doc.errors[0]));
  for (const warning of doc.warnings) {
    process.emitWarning(`profile ${path}: ${describeYamlError(text, warning)}`, { type: 'YAMLWarning', code: warning.code });
  }
  keepNonDecimalIntegers(doc);
  try {
    // yaml's default alias budget (maxAliasCount 100) refuses a billion-laughs document.
    return { parsed: doc.toJS(), locator: locatorOf(path, doc, lines) };
  } catch (error) {
    throw invalid(redactYamlMessage(text, (error as Error).message));
  }
}

/**
 * A value YAML reads as an integer but that is not written in decimal digits (`1e3`, `1000.0`,
 * `0x3E8`, `0o17`, `007`, `+5`) is kept as its text, as if quoted: an integer setting then
 * refuses it by name, as it refuses `"1e3"` and `1e3` from the environment, instead of reading
 * `port: 1e3` as 1000. Keys, fractions (`1.5`) and decimal integers are left as YAML reads them.
 */
function keepNonDecimalIntegers(doc: Document): void {
  visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'number' || !Number.isInteger(node.value)) return;
      if (node.source !== undefined && !isCanonicalInteger(node.source)) node.value = node.source;
    },
  });
}
