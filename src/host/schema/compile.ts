/**
 * Turning the profile schema into a validator. Compiling it with Ajv costs tens of milliseconds
 * at every start, so `npm run build` compiles the schema of the built-in classes once, to
 * `profile-validator.js` beside this file (Ajv's standalone code), and a start that has
 * registered no class of its own loads that instead. Ajv itself is then not even loaded.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Options, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../config-schema';
import { profileSchema } from './profile-schema';

// verbose: errors carry the schema they failed, which lists the keys a suggestion is chosen from.
const ajvOptions: Options = { allErrors: true, verbose: true, strict: true, allowUnionTypes: true };

/** The name of the precompiled validator's module, beside this one in dist/. */
export const precompiledModule = 'profile-validator.js';

function newAjv(options: Options): import('ajv').default {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: Ajv } = require('ajv') as typeof import('ajv');
  return new Ajv(options);
}

/** A validator compiled now, for a schema that includes registered classes. */
export function compileValidator(schema: JsonSchema): ValidateFunction {
  return newAjv(ajvOptions).compile(schema);
}

/** The source of a module exporting `schema`'s validator, compiled ahead of time. */
export function precompiledSource(schema: JsonSchema): string {
  const ajv = newAjv({ ...ajvOptions, code: { source: true } });
  const validate = ajv.compile(schema);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: standaloneCode } = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone');
  return standaloneCode(ajv, validate);
}

/** The validator `npm run build` compiled for the built-in classes, or undefined where there is none (running from src/). */
export function precompiledValidator(): ValidateFunction | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(join(__dirname, precompiledModule)) as ValidateFunction;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

/** Writes the built-in classes' validator to `folder` (dist/host/schema/ by `npm run build`). */
export function writePrecompiledValidator(folder = __dirname): string {
  const path = join(folder, precompiledModule);
  writeFileSync(path, precompiledSource(profileSchema()));
  return path;
}

if (require.main === module) process.stdout.write(`profile schema validator written to ${writePrecompiledValidator()}\n`);
