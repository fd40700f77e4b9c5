import { readFileSync } from 'node:fs';
import { parseDocument, visit, type Document } from 'yaml';
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

/** Reads a profile object, or a YAML/JSON file (YAML is a superset of JSON). */
export function loadProfile(source: Profile | string): Profile {
  if (typeof source !== 'string') {
    if (!isPlainObject(source)) throw new SqlResourceError('CONFIG_INVALID', 'a profile must be an object or a file path');
    return source;
  }
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new SqlResourceError('CONFIG_INVALID', `cannot read profile ${source}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = parseProfileText(source, text);
  if (!isPlainObject(parsed)) throw new SqlResourceError('CONFIG_INVALID', `profile ${source} must hold a mapping at its top level`);
  return parsed as Profile;
}

/**
 * Parses the text of profile `path`. Errors and warnings name the line and column and show an
 * excerpt where the values of secret-looking keys read `***` (yaml's own excerpt would print
 * `password: …` as written); yaml's error is not kept as `cause`, since its message may quote
 * the same text.
 */
function parseProfileText(path: string, text: string): unknown {
  const invalid = (detail: string): SqlResourceError => new SqlResourceError('CONFIG_INVALID', `profile ${path} is not valid YAML/JSON: ${detail}`);
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { prettyErrors: false });
  } catch (error) {
    throw invalid(redactYamlMessage(text, (error as Error).message));
  }
  if (doc.errors.length > 0) throw invalid(describeYamlError(text, doc.errors[0]));
  for (const warning of doc.warnings) {
    process.emitWarning(`profile ${path}: ${describeYamlError(text, warning)}`, { type: 'YAMLWarning', code: warning.code });
  }
  keepNonDecimalIntegers(doc);
  try {
    return doc.toJS();
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
