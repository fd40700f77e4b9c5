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
    // pg's `position` counts characters from 1; a JavaScript index counts UTF-16 units.
    syntaxErrorOffset: (error: unknown, sql: string) => {
      const { code, position } = (error ?? {}) as { code?: unknown; position?: unknown };
      const characters = Number(position);
      if (code !== '42601' || !Number.isSafeInteger(characters) || characters < 1) return undefined;
      return Array.from(sql).slice(0, characters - 1).join('').length;
    },
  }),
});
