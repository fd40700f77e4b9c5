import { createApp, mysqlDialect } from '../../src';
import { validateEndpoints } from '../../src/host/endpoint-config';
import { parameterSchemas } from '../../src/host/params';
import { problemsOf } from '../../src/host/problems';

/**
 * The `params` key of an endpoint (SPEC §8) at load: every problem with a declaration is
 * refused at once, each naming the parameter and the rule, with a suggestion where one is
 * close; and the JSON Schemas the declarations become, in the form OpenAPI 3.1 reuses.
 */

const resources = {
  db: { _class: 'mysql', server: { host: '127.0.0.1', database: 'test' } },
  pg: { _class: 'postgres', server: { host: '127.0.0.1', database: 'test' } },
};

/** The problem lines a profile with these endpoints is refused with. */
function problems(...endpoints: Record<string, unknown>[]): readonly string[] {
  try {
    createApp({ resources, server: { endpoints } });
  } catch (error) {
    return problemsOf(error);
  }
  throw new Error('expected the profile to be refused');
}

/** The problem lines of one endpoint under extra `server` settings. */
function createAppProblems(endpoint: Record<string, unknown>, server: Record<string, unknown>): readonly string[] {
  try {
    createApp({ resources, server: { ...server, endpoints: [endpoint] } });
  } catch (error) {
    return problemsOf(error);
  }
  throw new Error('expected the profile to be refused');
}

/** A list endpoint at `/t` whose template reads `{{n}}` (and `{{q}}`), declaring `params`. */
const listWith = (params: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  path: '/t',
  endpoint: 'list',
  resource: 'db',
  sql: 'SELECT * FROM t WHERE n = {{n}} AND q = {{q}}',
  params,
  ...extra,
});

describe('params at load', () => {
  it('accepts declarations of every type, on path parameters and on template variables, on both kinds', () => {
    const app = createApp({
      resources,
      server: {
        endpoints: [
          listWith({ n: { type: 'integer', minimum: 1, maximum: 10, default: 5 }, q: { type: 'string', minLength: 1, maxLength: 9, pattern: '^[a-z]+$', enum: ['ab', 'cd'] } }),
          { path: '/t/:id', endpoint: 'readOne', resource: 'pg', table: 't', id_field: 'id', params: { id: { type: 'uuid' } } },
          { path: '/t/:id', endpoint: 'delete', resource: 'db', table: 't', id_field: 'id', params: { id: { type: 'integer', minimum: 1 } } },
          {
            path: '/d/:day',
            endpoint: 'read',
            resource: 'pg',
            sql: 'SELECT * FROM t WHERE day = {{day}} AND at < {{at}} AND ok = {{ok}} AND x > {{x}}',
            params: { day: { type: 'date', enum: ['2024-02-29'] }, at: { type: 'datetime', required: false }, ok: { type: 'boolean', default: true }, x: { type: 'number', default: 0.5 } },
          },
        ],
      },
    });
    expect(app.endpoints).toHaveLength(4);
  });

  it('refuses a name that is neither a path parameter nor a template variable, suggesting the nearest', () => {
    expect(problems(listWith({ nn: { type: 'integer' } }))).toEqual([
      "server.endpoints[0] (/t): params.nn names no parameter of this endpoint: 'nn' must be a path parameter (:nn) or a {{nn}} variable of its sql (did you mean 'n'?)",
    ]);
    expect(problems({ path: '/t/:id', endpoint: 'readOne', resource: 'db', table: 't', id_field: 'id', params: { idd: { type: 'integer' } } })).toEqual([
      "server.endpoints[0] (/t/:id): params.idd names no parameter of this endpoint: 'idd' must be a path parameter (:idd) or a {{idd}} variable of its sql (did you mean 'id'?)",
    ]);
  });

  it('refuses a configuration key of the endpoint and an {{auth.<claim>}}: no request sets them', () => {
    const endpoint = { path: '/t', endpoint: 'list', resource: 'db', country: 'UK', sql: 'SELECT * FROM t WHERE c = {{country}} AND n = {{n}}', params: { country: { type: 'string' }, n: { type: 'integer' } } };
    expect(problems(endpoint)).toEqual([
      "server.endpoints[0] (/t): params.country cannot be declared: 'country' is a configuration key of this endpoint, which a request can not set",
    ]);
    const claims = { path: '/t', endpoint: 'list', resource: 'db', sql: 'SELECT * FROM t WHERE c = {{auth.tenant}}', params: { 'auth.tenant': { type: 'integer' } } };
    expect(createAppProblems(claims, { auth: { jwt: { secret: 'typed-params-test-secret-of-32-bytes-at-least' } } })).toEqual([
      'server.endpoints[0] (/t): params["auth.tenant"] cannot be declared: {{auth.tenant}} comes from the caller\'s verified claims, not from the request',
    ]);
  });

  it('refuses an unknown type and an unknown rule, suggesting the one meant', () => {
    expect(problems(listWith({ n: { type: 'intger' }, q: { type: 'string', maxLenght: 3 } }))).toEqual([
      "server.endpoints[0] (/t): params.n.type 'intger' is not one of string, integer, number, boolean, date, datetime, uuid (did you mean 'integer'?)",
      "server.endpoints[0] (/t): params.q unknown key 'maxLenght' (did you mean 'maxLength'?)",
    ]);
    expect(problems(listWith({ n: { minimum: 1 } }))).toEqual(["server.endpoints[0] (/t): params.n 'type' is required"]);
  });

  it('refuses rules that do not fit the type', () => {
    expect(
      problems(listWith({ n: { type: 'integer', minLength: 1, pattern: '^1' }, q: { type: 'string', minimum: 0 } }), {
        path: '/b/:b',
        endpoint: 'read',
        resource: 'db',
        sql: 'SELECT {{b}}',
        params: { b: { type: 'boolean', enum: [true] } },
      }),
    ).toEqual([
      "server.endpoints[0] (/t): params.n.minLength does not apply to an integer parameter (its rules: enum, minimum, maximum)",
      "server.endpoints[0] (/t): params.n.pattern does not apply to an integer parameter (its rules: enum, minimum, maximum)",
      "server.endpoints[0] (/t): params.q.minimum does not apply to a string parameter (its rules: enum, minLength, maxLength, pattern)",
      'server.endpoints[1] (/b/:b): params.b.enum does not apply to a boolean parameter (it takes no rules)',
    ]);
  });

  it('refuses a default that breaks its own rules, or is not of its type', () => {
    expect(
      problems(listWith({ n: { type: 'integer', minimum: 5, default: 1 }, q: { type: 'string', pattern: '^[a-z]+$', default: 'A1' } }), {
        path: '/d/:day',
        endpoint: 'read',
        resource: 'pg',
        sql: 'SELECT {{day}}, {{n}}',
        params: { day: { type: 'date', default: '2026-02-30' }, n: { type: 'integer', default: '5' } },
      }),
    ).toEqual([
      "server.endpoints[0] (/t): params.n.default breaks the parameter's own rules: it must be >= 5 (minimum)",
      "server.endpoints[0] (/t): params.q.default breaks the parameter's own rules: it must match the pattern ^[a-z]+$ (pattern)",
      "server.endpoints[1] (/d/:day): params.day.default breaks the parameter's own rules: it must be a calendar date written YYYY-MM-DD (format)",
      "server.endpoints[1] (/d/:day): params.n.default must be an integer, as the parameter's type",
    ]);
  });

  it('refuses required: true beside a default, an invalid pattern, crossed bounds and enum values not of the type', () => {
    expect(
      problems(
        listWith({ n: { type: 'integer', required: true, default: 1, minimum: 10, maximum: 1 }, q: { type: 'string', pattern: '([a-z', minLength: 5, maxLength: 2 } }),
        { path: '/u', endpoint: 'list', resource: 'db', sql: 'SELECT {{u}}', params: { u: { type: 'uuid', enum: ['123e4567-e89b-12d3-a456-426614174000', 'urn:uuid:123e4567-e89b-12d3-a456-426614174000', 7] } } },
      ),
    ).toEqual([
      'server.endpoints[0] (/t): params.n.maximum is below minimum (10)',
      'server.endpoints[0] (/t): params.n.required cannot be true beside a default: a parameter with a default is optional',
      'server.endpoints[0] (/t): params.q.maxLength is below minLength (5)',
      expect.stringMatching(/^server\.endpoints\[0\] \(\/t\): params\.q\.pattern is not a valid regular expression: .*\(\[a-z/),
      'server.endpoints[1] (/u): params.u.enum[1] must be a UUID: 36 characters, hex digits grouped 8-4-4-4-12 (format)',
      'server.endpoints[1] (/u): params.u.enum[2] must be a uuid',
    ]);
  });

  it('reports params problems with the other problems of the profile, all at once', () => {
    expect(problems(listWith({ nn: { type: 'integer' } }), { path: '/x', endpoint: 'list', resource: 'nope', sql: 'SELECT 1' })).toEqual([
      "server.endpoints[0] (/t): params.nn names no parameter of this endpoint: 'nn' must be a path parameter (:nn) or a {{nn}} variable of its sql (did you mean 'n'?)",
      "server.endpoints[1] (/x): resource 'nope' is not declared in resources",
    ]);
  });
});

describe('params checked by the endpoint checks alone (without the profile schema before them)', () => {
  const check = (params: unknown): string[] =>
    validateEndpoints([listWith(params)], { declared: new Set(['db']), dialectOf: () => mysqlDialect, hasLib: false }).problems.map(
      ({ path, key, message }) => `${path.join('.')}${key === undefined ? '' : ` [${key}]`}: ${message}`,
    );

  it('refuses an unknown type and an unknown rule, suggesting the one meant, and a declaration that is not a mapping', () => {
    expect(check({ n: { type: 'intger', maxLenght: 3 }, q: 'string' })).toEqual([
      "server.endpoints.0.params.n [maxLenght]: unknown key 'maxLenght' (did you mean 'maxLength'?)",
      "server.endpoints.0.params.n.type: 'intger' is not one of string, integer, number, boolean, date, datetime, uuid (did you mean 'integer'?)",
      'server.endpoints.0.params.q: must be a mapping with a type (string, integer, number, boolean, date, datetime, uuid) and rules',
    ]);
    expect(check({ n: { minimum: 1 } })).toEqual(['server.endpoints.0.params.n: needs a type: one of string, integer, number, boolean, date, datetime, uuid']);
    expect(check([{ n: 'integer' }])).toEqual(['server.endpoints.0.params: must be a mapping: parameter name → its type and rules']);
  });

  it('accepts what the profile check accepts, with no problem at all', () => {
    expect(check({ n: { type: 'integer', minimum: 0 }, q: { type: 'string', default: 'x' } })).toEqual([]);
  });
});

describe('parameterSchemas: the JSON Schemas of the declarations', () => {
  it('splits path and query-string parameters, each schema in the form OpenAPI 3.1 takes', () => {
    const schemas = parameterSchemas({
      path: '/things/:id/:day',
      config: {
        params: {
          id: { type: 'uuid' },
          day: { type: 'date' },
          at: { type: 'datetime', required: false },
          n: { type: 'integer', minimum: 1, default: 10 },
          x: { type: 'number', maximum: 2.5 },
          ok: { type: 'boolean' },
          q: { type: 'string', enum: ['a', 'b'], minLength: 1, maxLength: 2, pattern: '^[ab]$' },
        },
      },
    });
    expect(schemas).toEqual({
      path: {
        type: 'object',
        properties: {
          id: { type: 'string', format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
          day: { type: 'string', format: 'date' },
        },
        required: ['id', 'day'],
        additionalProperties: true,
      },
      query: {
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time' },
          n: { type: 'integer', minimum: 1, default: 10 },
          x: { type: 'number', maximum: 2.5 },
          ok: { type: 'boolean' },
          q: { type: 'string', enum: ['a', 'b'], minLength: 1, maxLength: 2, pattern: '^[ab]$' },
        },
        required: ['x', 'ok', 'q'],
        additionalProperties: true,
      },
    });
  });

  it('answers undefined for a place without declarations', () => {
    expect(parameterSchemas({ path: '/t/:id', config: {} })).toEqual({ path: undefined, query: undefined });
    expect(parameterSchemas({ path: '/t/:id', config: { params: { id: { type: 'integer' } } } }).query).toBeUndefined();
  });
});
