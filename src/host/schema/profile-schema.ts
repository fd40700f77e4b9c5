import { booleanSchema, integerSchema, stringSchema, type JsonSchema } from '../../config-schema';
import { endpointKinds } from '../../endpoints';
import { parameterTypes } from '../params/parameter-types';
import { registeredClassEntries, type ResourceClass } from '../../registry';

/**
 * The JSON Schema of a whole profile, published by `sql-resources schema` and checked at load.
 * Resources take the schema of their registered `_class`; endpoints list the keys the engine
 * reads, and allow others, since SPEC §4 makes any other key configuration for the endpoint's
 * templates (endpoint-config.ts refuses those no template uses, which a schema cannot tell).
 */

const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

const columnListSchema = (description: string): JsonSchema => ({ type: 'array', items: { type: 'string', pattern: '\\S' }, minItems: 1, description });

const endpointSchema: JsonSchema = {
  type: 'object',
  description: 'an HTTP endpoint: a database endpoint (resource + endpoint) or an application handler (handler); other keys are template configuration',
  required: ['path'],
  properties: {
    path: { type: 'string', pattern: '^/', description: "the route, starting with '/'; may hold :id" },
    method: { type: 'string', description: `HTTP method (${httpMethods.join(', ')}); default from the endpoint kind` },
    endpoint: { enum: Object.keys(endpointKinds), description: 'the endpoint kind' },
    resource: stringSchema('id of a declared resource'),
    table: stringSchema('table (or schema.table) of a table endpoint'),
    id_field: stringSchema('column matched against the request id'),
    sql: stringSchema('SQL template; {{name}} binds a configuration key, path or query parameter'),
    handler: stringSchema('name of a factory exported by server.lib'),
    description: stringSchema('free text for the reader of the profile; not used'),
    desc: stringSchema("sxapi-core's name of description; not used"),
    public: booleanSchema('callable without a credential when server.auth is set (default false)'),
    roles: {
      type: ['string', 'array'],
      items: { type: 'string', pattern: '\\S' },
      minItems: 1,
      description: 'the caller needs at least one of these roles (server.auth)',
    },
    scope: {
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
      description: "table endpoints: column → value or '{{auth.<claim>}}'; filters every row the endpoint reads or changes, and is forced on what it writes",
    },
    filters: columnListSchema('table lists: columns a client may filter on (?status=eq.open)'),
    sort: columnListSchema('table lists: columns a client may order by (?order=created_at.desc)'),
    select: columnListSchema('table lists: columns a client may pick (?select=id,status), and the default projection (default: every column)'),
    page: {
      type: ['boolean', 'object'],
      additionalProperties: false,
      properties: {
        defaultLimit: integerSchema('rows of a page without ?limit= (default 100)'),
        maxLimit: integerSchema('most rows of a page; a larger ?limit= is cut to it (default 1000)'),
      },
      description: 'lists: answer pages (?limit=, ?offset=, ?after=) instead of every row',
    },
    count: { enum: ['none', 'estimated', 'exact'], description: 'paged lists: count the rows (default none); Prefer: count= may ask a cheaper mode' },
    params: {
      type: 'object',
      description: 'typed parameters: path parameter or {{name}} of the sql a request supplies → its type and rules, checked before any SQL runs (400 INVALID_PARAMETER)',
      additionalProperties: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: {
          type: { enum: [...parameterTypes], description: 'string, integer, number, boolean, date (YYYY-MM-DD), datetime (RFC 3339 with offset) or uuid' },
          enum: { type: 'array', items: { type: ['string', 'number', 'boolean'] }, description: 'the values allowed' },
          minimum: { type: 'number', description: 'integer and number: the smallest value allowed' },
          maximum: { type: 'number', description: 'integer and number: the largest value allowed' },
          minLength: { type: 'integer', description: 'string: the fewest characters allowed' },
          maxLength: { type: 'integer', description: 'string: the most characters allowed' },
          pattern: stringSchema('string: a regular expression (JavaScript, unicode) the value must match'),
          default: { type: ['string', 'number', 'boolean'], description: 'the value when the request gives none (the parameter is then optional)' },
          required: { type: 'boolean', description: 'whether a request must give it (default: true unless a default is given)' },
        },
      },
    },
  },
  additionalProperties: true,
};

const stringListSchema = (description: string): JsonSchema => ({ type: ['string', 'array'], items: { type: 'string', pattern: '\\S' }, description });

const apiKeySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'sha256'],
  properties: {
    name: stringSchema('who holds the key: the subject of its requests'),
    sha256: stringSchema('hex SHA-256 of the key; the key itself never goes in a profile'),
    roles: stringListSchema("the key's roles"),
    claims: { type: 'object', description: 'claims of its requests, for {{auth.<claim>}} and scope' },
  },
};

const authSchema: JsonSchema = {
  type: 'object',
  description: 'who may call the endpoints: once set, every endpoint needs a credential unless public',
  additionalProperties: false,
  properties: {
    jwt: {
      type: 'object',
      description: 'bearer tokens (Authorization: Bearer <jwt>)',
      additionalProperties: false,
      properties: {
        secret: stringSchema('HS256/384/512 secret, at least 32 bytes; usually {{ENV}}'),
        publicKey: stringSchema('PEM public key or certificate, as text or a file path relative to the profile (RS*, PS*, ES*, EdDSA)'),
        jwks: stringSchema('https URL of a JSON Web Key Set (http only on a loopback address); keys refetched on an unknown kid, at most once per 30 s'),
        algorithms: stringListSchema('accepted algorithms (default: every one the key can verify); none is never accepted'),
        issuer: stringSchema('required iss'),
        audience: stringSchema('required aud'),
        clockTolerance: integerSchema('seconds of leeway on exp and nbf (default 0)'),
        rolesClaim: stringSchema('dotted path of the roles in the claims (default roles)'),
      },
    },
    apiKeys: {
      type: ['array', 'object'],
      description: 'API keys: a list, or { header, keys } to read them from another header than X-API-Key',
      items: { $ref: '#/definitions/apiKey' },
      additionalProperties: false,
      properties: {
        header: stringSchema('header the key comes in (default X-API-Key)'),
        keys: { type: 'array', items: { $ref: '#/definitions/apiKey' }, description: 'the keys' },
      },
    },
  },
};

const serverSchema: JsonSchema = {
  type: 'object',
  description: 'the HTTP server',
  additionalProperties: false,
  properties: {
    port: integerSchema('TCP port, 0-65535 (default 8077); --port overrides it'),
    host: stringSchema('listen address (default 127.0.0.1)'),
    endpoints: { type: 'array', items: { $ref: '#/definitions/endpoint' }, description: 'the HTTP endpoints' },
    lib: stringSchema('module of application handlers, relative to the profile'),
    auth: { $ref: '#/definitions/auth' },
    bodyLimit: integerSchema('largest request body in bytes (default 1048576)'),
    json: {
      type: 'object',
      description: 'how request bodies are read',
      additionalProperties: false,
      properties: {
        maxDepth: integerSchema('deepest nesting of a JSON body, 1-1000 (default 64)'),
        anyContentType: booleanSchema("read every content type as JSON, as sxapi-core did (default false)"),
      },
    },
    cors: {
      type: 'object',
      description: 'CORS, off unless set',
      additionalProperties: false,
      properties: {
        origins: { description: 'allowed origins: a string, a list, or true' },
        origin: { description: 'the same as origins' },
        methods: { description: 'allowed methods (default: those of @fastify/cors)' },
        credentials: { type: 'boolean', description: 'allow credentials (needs a list of origins)' },
      },
    },
    allowedHosts: { type: ['string', 'array'], items: { type: 'string' }, description: 'Host header values the server answers (default any)' },
    exposeErrors: booleanSchema('send 5xx errors with their own messages (default false)'),
    cursorSecret: stringSchema('key that signs list cursors (?after=), at least 32 bytes, usually {{ENV}}; hosts sharing it accept each other\'s cursors (default: one key per process)'),
    requestTimeout: integerSchema('milliseconds a client has to send a whole request; 0: no limit (default 30000)'),
    writeTimeout: integerSchema('milliseconds a streamed answer may make no progress; 0: no limit (default 30000)'),
    hsts: {
      type: ['boolean', 'object'],
      description: 'Strict-Transport-Security; off unless set',
      additionalProperties: false,
      properties: {
        maxAge: integerSchema('seconds (default 31536000)'),
        includeSubDomains: booleanSchema('default true'),
        preload: booleanSchema('default false'),
      },
    },
    rateLimit: {
      type: 'object',
      description: 'requests per client and time window, off unless set; over it: 429 RATE_LIMITED with Retry-After',
      required: ['max'],
      additionalProperties: false,
      properties: {
        max: integerSchema('requests a client may make per timeWindow, a positive integer'),
        timeWindow: integerSchema("milliseconds, or a duration such as '1 minute', '30s', '1 hour' (default 1 minute)"),
        keyBy: { enum: ['ip', 'auth'], description: "what counts as one client: 'ip' (default), or 'auth', the verified caller (its IP address without a credential)" },
        redis: stringSchema('redis:// (or rediss://) URL of a Redis server: the hosts of a profile with the same name then share one budget'),
      },
    },
  },
};

const embeddedPostgresSchema: JsonSchema = {
  type: 'object',
  description: 'read by serve/check --embedded-postgres only',
  additionalProperties: false,
  properties: {
    seed: stringSchema('SQL file run once on a new embedded database, relative to the profile'),
    try: {
      type: 'array',
      description: 'requests printed as curl lines once the API listens',
      items: {
        type: 'object',
        required: ['path'],
        additionalProperties: false,
        properties: {
          method: { type: 'string', description: 'HTTP method (default GET)' },
          path: { type: 'string', description: 'path and query string of the request' },
          body: { description: 'JSON body sent with the request' },
        },
      },
    },
  },
};

/** Top-level keys of sxapi-core profiles this engine does not use; accepted so that such profiles load. */
const sxapiSections = ['version', 'description', 'debug', 'log', 'session', 'bot'];

/** Each distinct class schema once, named after the first `_class` that has it. */
function resourceDefinitions(classes: [string, ResourceClass][]): { definitions: Record<string, JsonSchema>; refs: [string, string][] } {
  const definitions: Record<string, JsonSchema> = {};
  const names = new Map<JsonSchema, string>();
  const refs: [string, string][] = [];
  for (const [name, resourceClass] of classes) {
    const schema = resourceClass.configSchema;
    if (schema === undefined) continue;
    let definition = names.get(schema);
    if (definition === undefined) {
      definition = `resource.${name}`;
      names.set(schema, definition);
      definitions[definition] = schema;
    }
    refs.push([name, definition]);
  }
  return { definitions, refs };
}

/** The profile schema for the classes registered now. */
export function profileSchema(classes: [string, ResourceClass][] = registeredClassEntries()): JsonSchema {
  const { definitions, refs } = resourceDefinitions(classes);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'sql-resources profile',
    description: 'A profile of the sql-resources host: resources (database connections) and server (HTTP endpoints)',
    type: 'object',
    additionalProperties: false,
    properties: {
      name: stringSchema('name of the API, shown in logs'),
      resources: {
        type: 'object',
        description: 'database connections by id',
        additionalProperties: { $ref: '#/definitions/resource' },
      },
      server: { $ref: '#/definitions/server' },
      app: { description: 'free-form settings for application code (server.lib); not read by the engine' },
      embeddedPostgres: embeddedPostgresSchema,
      ...Object.fromEntries(sxapiSections.map((key) => [key, { description: "an sxapi-core section; not read by this engine" }])),
    },
    patternProperties: { '^x-': { description: 'free-form extension keys; not read by the engine' } },
    definitions: {
      resource: {
        type: 'object',
        required: ['_class'],
        properties: { _class: { enum: classes.map(([name]) => name), description: 'the resource class' } },
        allOf: refs.map(([name, definition]) => ({
          if: { properties: { _class: { const: name } }, required: ['_class'] },
          then: { $ref: `#/definitions/${definition}` },
        })),
      },
      ...definitions,
      server: serverSchema,
      endpoint: endpointSchema,
      auth: authSchema,
      apiKey: apiKeySchema,
    },
  };
}
