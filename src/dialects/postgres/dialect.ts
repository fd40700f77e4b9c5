import type { SqlDialect } from '../../dialect';
import { PostgresScanner } from './template-scanner';

/** PostgreSQL: double-quoted names, `$n` markers, `RETURNING` on every write. */
export const postgresDialect: SqlDialect = Object.freeze({
  name: 'postgres',
  supportsUpdateReturning: true,
  columnNamesIgnoreCase: false,
  placeholder: (index: number) => `$${index}`,
  quoteIdentifier: (part: string) => '"' + part.replace(/"/g, '""') + '"',
  scanTemplate: (template: string) => new PostgresScanner(template).compile(),
  errors: Object.freeze({
    invalidValueCodes: new Set([
      '23502', // not_null_violation
      '23514', // check_violation
    ]),
    // pg-pool waiting past connectionTimeoutMillis, and a client whose connection ended under a call.
    unavailableMessage: /timeout exceeded when trying to connect|connection terminated|client has encountered a connection error/i,
  }),
});
