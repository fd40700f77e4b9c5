import { integerSchema, passedThrough, resourceConfigSchema, stringSchema, type JsonSchema } from '../../config-schema';

/** pg Pool and Client options a profile may set under `server` (host, user, … are the shared keys). */
const postgresDriverOptions: Record<string, JsonSchema> = {
  connectTimeout: integerSchema("milliseconds allowed to connect or to wait for a free connection (pg's connectionTimeoutMillis; default: none)"),
  max: integerSchema('pool size, 1-10000 (default 10)'),
  connectionTimeoutMillis: integerSchema('pg\'s own name of connectTimeout'),
  idleTimeoutMillis: integerSchema('milliseconds before an idle connection is closed; 0 keeps them (default 10000)'),
  ...passedThrough(
    [
      'min', 'maxUses', 'maxLifetimeSeconds', 'allowExitOnIdle',
      'statement_timeout', 'query_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout', 'ssl',
      'application_name', 'fallback_application_name', 'keepAlive', 'keepAliveInitialDelayMillis', 'options',
      'binary', 'parseInputDatesAsUTC', 'enableChannelBinding', 'sslnegotiation', 'log',
    ],
    "passed to pg's Pool as it is",
  ),
};

/** The schema of a `_class: postgres` (or `postgresql`) resource. */
export const postgresConfigSchema: JsonSchema = resourceConfigSchema({
  title: 'postgres resource (PostgreSQL and wire-compatible servers)',
  defaultPort: 5432,
  driverOptions: postgresDriverOptions,
  options: {
    requestClaims: {
      type: 'boolean',
      description: "each statement of an authenticated request runs in a transaction that first sets request.jwt.claims, for row-level security policies (default false)",
    },
    roleClaim: { ...stringSchema('the claim (a name, or a dotted path) naming the role each such transaction runs as; a credential without it is refused (403); needs requestClaims: true'), pattern: '\\S' },
  },
});
