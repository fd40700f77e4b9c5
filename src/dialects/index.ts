import type { SqlDialect } from '../dialect';
import { SqlResourceError } from '../errors';
import { mysqlDialect } from './mysql/dialect';
import { postgresDialect } from './postgres/dialect';

export { mysqlDialect, postgresDialect };

/** The built-in dialects by name; a resource's own `dialect` is what the shared code uses. */
const builtIn = { mysql: mysqlDialect, postgres: postgresDialect } as const;

export type DialectName = keyof typeof builtIn;

export function dialectNamed(name: DialectName): SqlDialect {
  if (!Object.prototype.hasOwnProperty.call(builtIn, name)) {
    throw new SqlResourceError('INVALID_ARGUMENT', `no built-in SQL dialect is called '${String(name)}' (known: ${Object.keys(builtIn).join(', ')})`);
  }
  return builtIn[name];
}
