import type { default as AjvClass, ErrorObject, ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler, RouteShorthandOptions } from 'fastify';
import type { JsonSchema } from '../../config-schema';
import type { EndpointDefinition } from '../../endpoints';
import { SqlResourceError } from '../../errors';
import { declaredParameters, parameterSchemas, typeArticles, type ParameterDeclaration, type ParameterPlace, type ParameterType } from './parameter-types';
import { readText } from './text-values';

/**
 * Typed parameters at request time, through fastify's route schemas: each route that declares
 * `params` gets a `params` and/or `querystring` schema and a validator compiler of its own,
 * which reads the text of each declared parameter strictly (text-values.ts), then lets Ajv
 * check its rules and format and fill in defaults. The converted values replace
 * `request.params` and `request.query`, so templates bind them with their types. Routes
 * without `params` get neither schema nor compiler: their path is as cheap as before.
 */

let shared: AjvClass | undefined;

/** The one Ajv instance of typed parameters, made when first needed (profiles without `params` never load Ajv here). */
export function parameterAjv(): AjvClass {
  if (shared === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: Ajv } = require('ajv') as typeof import('ajv');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    shared = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false });
    addFormats(shared);
  }
  return shared;
}

const formatRules: Readonly<Partial<Record<ParameterType, string>>> = {
  date: 'must be a calendar date written YYYY-MM-DD (format)',
  datetime: 'must be an RFC 3339 date-time with a UTC offset, such as 2026-01-31T09:30:00Z (format)',
  uuid: 'must be a UUID: 36 characters, hex digits grouped 8-4-4-4-12 (format)',
};

/** Why a value breaks the rule Ajv reports, naming the rule; never the value. */
export function ruleReason(error: ErrorObject, type: ParameterType | undefined): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'format':
      return (type && formatRules[type]) ?? `must be a ${String(params.format)} (format)`;
    case 'pattern':
      // A uuid's only pattern is its own 36 characters: the user's patterns are for strings.
      return type === 'uuid' ? (formatRules.uuid as string) : `must match the pattern ${String(params.pattern)} (pattern)`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')} (enum)`;
    case 'minimum':
      return `must be >= ${String(params.limit)} (minimum)`;
    case 'maximum':
      return `must be <= ${String(params.limit)} (maximum)`;
    case 'minLength':
      return `must be at least ${String(params.limit)} characters long (minLength)`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters long (maxLength)`;
    case 'type':
      return `must be ${type ? typeArticles[type] : `a ${String(params.type)}`} (type)`;
    default:
      return `is not valid (${error.keyword})`;
  }
}

function invalidParameter(place: ParameterPlace, name: string, reason: string): SqlResourceError {
  return new SqlResourceError('INVALID_PARAMETER', `${place} parameter '${name}' ${reason}`, { field: name });
}

/** The name an Ajv error is about: the missing property, or the first segment of the instance path. */
function subjectOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String((error.params as { missingProperty: string }).missingProperty);
  return (error.instancePath.split('/')[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
}

type Validation = { value: Record<string, unknown> } | { error: Error };

/** The validator of one place's declared parameters, its schema compiled once. */
function placeValidator(schema: JsonSchema, declarations: readonly ParameterDeclaration[], place: ParameterPlace): (data: unknown) => Validation {
  const validate: ValidateFunction = parameterAjv().compile(schema);
  const types = new Map(declarations.map((declaration) => [declaration.name, declaration.type]));
  return (data) => {
    const given = (data ?? {}) as Record<string, unknown>;
    // A copy without a prototype, as fastify's query string is: no key of the request can reach Object.prototype.
    const value = Object.assign(Object.create(null) as Record<string, unknown>, given);
    for (const { name, type } of declarations) {
      if (!Object.prototype.hasOwnProperty.call(given, name)) continue;
      const text = given[name];
      if (Array.isArray(text)) return { error: invalidParameter(place, name, 'is given more than once') };
      if (typeof text !== 'string') return { error: invalidParameter(place, name, `must be ${typeArticles[type]} (type)`) };
      const reading = readText(type, text);
      if ('reason' in reading) return { error: invalidParameter(place, name, reading.reason) };
      value[name] = reading.value;
    }
    if (validate(value)) return { value };
    const [error] = validate.errors as ErrorObject[];
    const name = subjectOf(error);
    return { error: invalidParameter(place, name, ruleReason(error, types.get(name))) };
  };
}

/**
 * What a database endpoint's `server.route()` takes for its typed parameters: route schemas
 * and their validator compiler; nothing for an endpoint without `params`.
 */
export function parameterRouteOptions(definition: EndpointDefinition): Pick<RouteShorthandOptions, 'schema' | 'validatorCompiler'> {
  const declarations = declaredParameters(definition);
  if (declarations.length === 0) return {};
  const { path, query } = parameterSchemas(definition);
  const schema: FastifySchema = { ...(path ? { params: path } : {}), ...(query ? { querystring: query } : {}) };
  const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema: partSchema, httpPart }) => {
    const place: ParameterPlace = httpPart === 'params' ? 'path' : 'query';
    return placeValidator(partSchema as JsonSchema, declarations.filter((declaration) => declaration.in === place), place);
  };
  return { schema, validatorCompiler };
}
