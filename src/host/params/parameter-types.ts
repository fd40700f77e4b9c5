import { isPlainObject } from '../../config';
import type { JsonSchema } from '../../config-schema';
import type { EndpointDefinition } from '../../endpoints';

/**
 * Typed parameters (SPEC §8): an endpoint's `params` declares, by name, the type and rules of a
 * path parameter or of a `{{name}}` its template reads from the query string. Each declaration
 * is a JSON Schema too, in the form an OpenAPI 3.1 document takes as it is.
 */

export const parameterTypes = ['string', 'integer', 'number', 'boolean', 'date', 'datetime', 'uuid'] as const;
export type ParameterType = (typeof parameterTypes)[number];

/** Every key of a declaration. */
export const parameterRules = ['type', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'default', 'required'] as const;
export type ParameterRule = (typeof parameterRules)[number];

/** The rules each type takes besides `type`, `default` and `required`. */
export const rulesOfType: Readonly<Record<ParameterType, readonly ParameterRule[]>> = Object.freeze({
  string: ['enum', 'minLength', 'maxLength', 'pattern'],
  integer: ['enum', 'minimum', 'maximum'],
  number: ['enum', 'minimum', 'maximum'],
  boolean: [],
  date: ['enum'],
  datetime: ['enum'],
  uuid: ['enum'],
});

/** A type as a reader says it: `an integer parameter`. */
export const typeArticles: Readonly<Record<ParameterType, string>> = Object.freeze({
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  date: 'a date',
  datetime: 'a datetime',
  uuid: 'a uuid',
});

export function isParameterType(value: unknown): value is ParameterType {
  return typeof value === 'string' && (parameterTypes as readonly string[]).includes(value);
}

/** Where a request carries a parameter. */
export type ParameterPlace = 'path' | 'query';

export type ParameterValue = string | number | boolean;

/** One entry of `params`, as the profile check accepted it. */
export interface ParameterDeclaration {
  readonly name: string;
  readonly type: ParameterType;
  readonly in: ParameterPlace;
  readonly required: boolean;
  readonly enum?: readonly ParameterValue[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly default?: ParameterValue;
}

/** 8-4-4-4-12 hex digits, nothing around them: the `uuid` format alone also takes a `urn:uuid:` prefix. */
export const uuidPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const typeSchemas: Readonly<Record<ParameterType, JsonSchema>> = Object.freeze({
  string: { type: 'string' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
  uuid: { type: 'string', format: 'uuid', pattern: uuidPattern },
});

/** The `:name` parameters of a route (`::` is fastify's escaped colon, not a parameter). */
export function pathParameterNames(path: string): Set<string> {
  return new Set([...path.replace(/::/g, '').matchAll(/:([A-Za-z_$][\w$]*)/g)].map((match) => match[1]));
}

/** The JSON Schema of one declared parameter's (converted) value. */
export function parameterSchema(declaration: Omit<ParameterDeclaration, 'name' | 'in' | 'required'>): JsonSchema {
  const { type, enum: allowed, minimum, maximum, minLength, maxLength, pattern } = declaration;
  const rules = { enum: allowed, minimum, maximum, minLength, maxLength, pattern, default: declaration.default };
  return { ...typeSchemas[type], ...Object.fromEntries(Object.entries(rules).filter(([, value]) => value !== undefined)) };
}

/** The declared parameters of an endpoint the profile check accepted, in the order of its `params`. */
export function declaredParameters(definition: Pick<EndpointDefinition, 'path' | 'config'>): ParameterDeclaration[] {
  const params = definition.config.params;
  if (!isPlainObject(params)) return [];
  const inPath = pathParameterNames(definition.path);
  return Object.entries(params)
    .filter((entry): entry is [string, Record<string, unknown>] => isPlainObject(entry[1]) && isParameterType(entry[1].type))
    .map(([name, rules]) => ({
      ...(rules as Omit<ParameterDeclaration, 'name' | 'in' | 'required'>),
      name,
      in: inPath.has(name) ? 'path' : 'query',
      required: typeof rules.required === 'boolean' ? rules.required : rules.default === undefined,
    }));
}

/** The object schema of one place's parameters: other keys are allowed (undeclared parameters, list filters). */
function placeSchema(declarations: readonly ParameterDeclaration[]): JsonSchema | undefined {
  if (declarations.length === 0) return undefined;
  const required = declarations.filter((declaration) => declaration.required).map((declaration) => declaration.name);
  return {
    type: 'object',
    properties: Object.fromEntries(declarations.map((declaration) => [declaration.name, parameterSchema(declaration)])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: true,
  };
}

/** An endpoint's parameter schemas by place, as route schemas and OpenAPI parameters take them. */
export interface ParameterSchemas {
  readonly path: JsonSchema | undefined;
  readonly query: JsonSchema | undefined;
}

/** The JSON Schemas of an endpoint's declared path and query-string parameters; undefined where it declares none. */
export function parameterSchemas(definition: Pick<EndpointDefinition, 'path' | 'config'>): ParameterSchemas {
  const declarations = declaredParameters(definition);
  return {
    path: placeSchema(declarations.filter((declaration) => declaration.in === 'path')),
    query: placeSchema(declarations.filter((declaration) => declaration.in === 'query')),
  };
}
