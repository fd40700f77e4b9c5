import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../config-schema';
import { registeredClassEntries, registrations } from '../../registry';
import type { Problem, ProblemPath } from '../problems';
import { compileValidator, precompiledValidator } from './compile';
import { didYouMean } from './did-you-mean';
import { profileSchema } from './profile-schema';

interface CompiledSchema {
  /** How many classes had been registered when the schema was built (0: the built-in ones only). */
  readonly registrations: number;
  readonly validate: ValidateFunction;
  readonly definitions: Readonly<Record<string, JsonSchema>>;
}

/** The compiled schema, kept until a class is registered (which changes the schema). */
let compiled: CompiledSchema | undefined;

function compiledSchema(): CompiledSchema {
  const registered = registrations();
  if (compiled?.registrations === registered) return compiled;
  const schema = profileSchema(registeredClassEntries());
  const validate = (registered === 0 ? precompiledValidator() : undefined) ?? compileValidator(schema);
  compiled = { registrations: registered, validate, definitions: (schema.definitions ?? {}) as Record<string, JsonSchema> };
  return compiled;
}

const typeNames: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return `a ${typeof value}`;
}

const patternRules: Record<string, string> = {
  '^/': "must start with '/'",
  // Not minLength: Ajv's standalone code would then need a module of its runtime at start-up.
  '\\S': 'must not be empty',
  '^(local|Z|[+-]\\d{2}:\\d{2})$': "must be 'local', 'Z', '+HH:MM' or '-HH:MM'",
};

function pathOf(instancePath: string): ProblemPath {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}

/** Where a key unknown here is known one level down: `endpoints` at the top is `server.endpoints`. */
function nestedHome(key: string, schema: JsonSchema, definitions: CompiledSchema['definitions']): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, child] of Object.entries(properties)) {
    const resolved = typeof child.$ref === 'string' ? definitions[child.$ref.replace('#/definitions/', '')] : child;
    const childKeys = (resolved?.properties ?? {}) as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(childKeys, key)) return `${name}.${key}`;
  }
  return undefined;
}

/**
 * Why a key known elsewhere is unknown here: a setting of another resource class
 * (`keepAliveInterval` on postgres), or an application setting at the top level.
 */
function otherKindHint(key: string, path: ProblemPath, definitions: CompiledSchema['definitions']): string {
  if (path.length === 0) return ` (application settings go under 'app:' or an 'x-' key)`;
  if (path.length !== 2 || path[0] !== 'resources') return '';
  const owners = Object.entries(definitions)
    .filter(([name, definition]) => name.startsWith('resource.') && Object.prototype.hasOwnProperty.call(definition.properties ?? {}, key))
    .map(([name]) => name.slice('resource.'.length));
  return owners.length > 0 ? ` (a setting of ${owners.join(', ')} resources only)` : '';
}

function unknownKey(error: ErrorObject, definitions: CompiledSchema['definitions']): Problem {
  const key = (error.params as { additionalProperty: string }).additionalProperty;
  const schema = (error.parentSchema ?? {}) as JsonSchema;
  const path = pathOf(error.instancePath);
  const home = nestedHome(key, schema, definitions);
  const hint =
    home !== undefined
      ? ` (did you mean '${home}'? it belongs under '${home.split('.')[0]}:')`
      : didYouMean(key, Object.keys((schema.properties ?? {}) as object)) || otherKindHint(key, path, definitions);
  return { path, key, message: `unknown key '${key}'${hint}` };
}

/** One problem in words for an Ajv error, or undefined for those that only echo another. */
function problemOf(error: ErrorObject, definitions: CompiledSchema['definitions']): Problem | undefined {
  const path = pathOf(error.instancePath);
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKey(error, definitions);
    case 'required':
      return { path, message: `'${(error.params as { missingProperty: string }).missingProperty}' is required` };
    case 'type': {
      const expected = ([] as string[]).concat((error.params as { type: string | string[] }).type);
      // A string is allowed beside an integer or a boolean for `'3306'` and `{{ENV}}`: not worth saying.
      const wanted = expected.filter((type) => !(type === 'string' && (expected.includes('integer') || expected.includes('boolean'))));
      const names = wanted.map((type) => (type === 'boolean' && wanted.length > 1 ? 'a boolean' : (typeNames[type] ?? type)));
      return { path, message: `must be ${names.join(' or ')}, got ${typeOf(error.data)}` };
    }
    case 'enum': {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.map(String);
      const given = typeof error.data === 'string' ? `'${error.data}'` : typeOf(error.data);
      const hint = typeof error.data === 'string' ? didYouMean(error.data, allowed) : '';
      return { path, message: `${given} is not one of ${allowed.join(', ')}${hint}` };
    }
    case 'pattern':
      return { path, message: patternRules[(error.params as { pattern: string }).pattern] ?? `must match ${(error.params as { pattern: string }).pattern}` };
    case 'if':
    case 'const':
      return undefined; // the failure inside the class's schema says what is wrong
    default:
      return { path, message: error.message ?? 'is not valid' };
  }
}

/**
 * What the profile schema finds wrong with `profile`, every problem at once, each with the
 * path of the value (and the key, for an unknown key) so that it can be located in the file.
 */
export function schemaProblems(profile: unknown): Problem[] {
  const { validate, definitions } = compiledSchema();
  if (validate(profile)) return [];
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const error of validate.errors ?? []) {
    const problem = problemOf(error, definitions);
    if (problem === undefined) continue;
    const id = `${JSON.stringify(problem.path)} ${problem.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    problems.push(problem);
  }
  return problems;
}
