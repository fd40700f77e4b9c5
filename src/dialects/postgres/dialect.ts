import type { SqlDialect } from '../../dialect';
import type { Row } from '../../driver-adapter';
import { finiteCount } from '../../integers';
import type { Statement } from '../../statement';
import { PostgresScanner } from './template-scanner';

/** PostgreSQL: double-quoted names, `$n` markers, `RETURNING` on every write. */
export const postgresDialect: SqlDialect = Object.freeze({
  name: 'postgres',
  supportsUpdateReturning: true,
  columnNamesIgnoreCase: false,
  placeholder: (index: number) => `$${index}`,
  quoteIdentifier: (part: string) => '"' + part.replace(/"/g, '""') + '"',
  scanTemplate: (template: string) => new PostgresScanner(template).compile(),
  orderBy: (column: string, descending: boolean) => (descending ? `${column} DESC` : column),
  caseInsensitiveLike: (column: string, marker: string) => `${column} ILIKE ${marker}`,
  pagedStatement: (sql: string, limitMarker: string, offsetMarker: string) => `SELECT * FROM (${sql}\n) AS sql_page LIMIT ${limitMarker} OFFSET ${offsetMarker}`,
  estimateStatement: (sql: string) => `EXPLAIN (FORMAT JSON) ${sql}`,
  estimatedRows: (rows: readonly Row[]) => {
    const plan = (rows[0]?.['QUERY PLAN'] as { Plan?: { 'Plan Rows'?: unknown } }[] | undefined)?.[0]?.Plan;
    return finiteCount(plan?.['Plan Rows']);
  },
  // PostgREST's settings: policies read `current_setting('request.jwt.claims', true)::json`. `true`
  // makes both local to the transaction; setting `role` is `SET LOCAL ROLE`, with a bound name.
  requestSessionStatements: (claims: Readonly<Record<string, unknown>>, role: string | undefined): Statement[] => [
    role === undefined
      ? { sql: "SELECT set_config('request.jwt.claims', $1, true)", values: [JSON.stringify(claims)] }
      : { sql: "SELECT set_config('request.jwt.claims', $1, true), set_config('role', $2, true)", values: [JSON.stringify(claims), role] },
  ],
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
