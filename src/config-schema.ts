/**
 * The JSON Schema of a resource's configuration (`resources.<id>`), built once per kind from the
 * keys every kind shares and the driver options of its own. The host's profile schema (see
 * host/schema/) puts each registered class's part under its `_class`, so a class registered by an
 * application contributes its keys the same way (a static `configSchema`).
 *
 * Draft-07 keywords only: the YAML language server and most editors read that draft.
 */

/** A JSON Schema object (draft-07 keywords). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** An integer setting: a number, a decimal string (`'3306'`) or a `{{ENV}}` reference. */
export const integerSchema = (description: string): JsonSchema => ({ type: ['integer', 'string'], description });

/** A boolean setting: `true`/`false`, or a string (`'true'`, `{{ENV}}`). */
export const booleanSchema = (description: string): JsonSchema => ({ type: ['boolean', 'string'], description });

export const stringSchema = (description: string): JsonSchema => ({ type: 'string', description });

/** A driver option passed as it is: any value, as the driver documents it. */
const driverOption = (description: string): JsonSchema => ({ description });

/** The parts of a kind's schema that differ from the shared ones. */
export interface ResourceSchemaParts {
  /** e.g. `mysql (MariaDB, MySQL) resource`. */
  readonly title: string;
  /** Default of `server.port`. */
  readonly defaultPort: number;
  /** `server.<key>` options of the driver, each with the schema of its value. */
  readonly driverOptions: Readonly<Record<string, JsonSchema>>;
  /** Keys beside `server` that only this kind reads (e.g. `keepAliveInterval`). */
  readonly options?: Readonly<Record<string, JsonSchema>>;
}

/** `driverOption` for each of `names`, for options whose values the driver checks itself. */
export function passedThrough(names: readonly string[], description: string): Record<string, JsonSchema> {
  return Object.fromEntries(names.map((name) => [name, driverOption(description)]));
}

/** The whole schema of a kind's `resources.<id>` entry: unknown keys are refused. */
export function resourceConfigSchema(parts: ResourceSchemaParts): JsonSchema {
  return {
    title: parts.title,
    type: 'object',
    required: ['_class', 'server'],
    additionalProperties: false,
    properties: {
      _class: stringSchema('the resource class, from the registry (mysql, mariadb, postgres, postgresql, or a registered one)'),
      description: stringSchema('free text for the reader of the profile; not used'),
      server: {
        type: 'object',
        description: 'the connection description; string values may hold {{ENV_NAME}} references',
        required: ['host', 'database'],
        additionalProperties: false,
        properties: {
          host: stringSchema('host name or IP address of the database server'),
          port: integerSchema(`TCP port, 1-65535 (default ${parts.defaultPort})`),
          database: stringSchema('database name'),
          user: stringSchema('user name'),
          password: stringSchema('password; never logged (prefer a {{ENV_NAME}} reference)'),
          charset: stringSchema('connection charset or collation (default UTF8MB4_GENERAL_CI)'),
          timezone: { type: 'string', pattern: '^(local|Z|[+-]\\d{2}:\\d{2})$', description: "'local' (default), 'Z', '+HH:MM' or '-HH:MM'" },
          preparedStatements: booleanSchema('prepare and reuse bound statements on the server (default true)'),
          ...parts.driverOptions,
        },
      },
      streamBatchSize: integerSchema('rows a stream or list endpoint reads per batch (default 200)'),
      ...parts.options,
    },
  };
}
