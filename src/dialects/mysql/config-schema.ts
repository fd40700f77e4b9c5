import { integerSchema, passedThrough, resourceConfigSchema, type JsonSchema } from '../../config-schema';

/** mysql2 pool and connection options a profile may set under `server` (host, user, … are the shared keys). */
const mysqlDriverOptions: Record<string, JsonSchema> = {
  connectTimeout: integerSchema('milliseconds allowed to open one connection (default 10000)'),
  connectionLimit: integerSchema('pool size, 1-10000 (default 10)'),
  queueLimit: integerSchema('calls that may wait for a free connection; 0: no limit (default)'),
  maxIdle: integerSchema('idle connections kept (default connectionLimit)'),
  idleTimeout: integerSchema('milliseconds before an idle connection above maxIdle is closed (default 60000)'),
  ...passedThrough(
    [
      'waitForConnections', 'ssl', 'socketPath', 'localAddress', 'flags', 'multipleStatements', 'supportBigNumbers',
      'bigNumberStrings', 'decimalNumbers', 'dateStrings', 'jsonStrings', 'insecureAuth', 'stringifyObjects', 'typeCast',
      'queryFormat', 'debug', 'trace', 'compress', 'enableKeepAlive', 'keepAliveInitialDelay', 'connectAttributes',
      'maxPreparedStatements', 'resetOnRelease', 'enableCleartextPlugin', 'charsetNumber',
    ],
    "passed to mysql2's createPool as it is",
  ),
};

/** The schema of a `_class: mysql` (or `mariadb`) resource. */
export const mysqlConfigSchema: JsonSchema = resourceConfigSchema({
  title: 'mysql resource (MariaDB, MySQL)',
  defaultPort: 3306,
  driverOptions: mysqlDriverOptions,
  options: {
    keepAliveInterval: integerSchema('seconds between keep-alive SELECT 1s, 0-2147483; 0 disables them (default 20)'),
  },
});
