import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../config';
import { SqlResourceError } from '../errors';

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
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new SqlResourceError('CONFIG_INVALID', `profile ${source} is not valid YAML/JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isPlainObject(parsed)) throw new SqlResourceError('CONFIG_INVALID', `profile ${source} must hold a mapping at its top level`);
  return parsed as Profile;
}
