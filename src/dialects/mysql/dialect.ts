import type { SqlDialect } from '../../dialect';
import type { Row } from '../../driver-adapter';
import { finiteCount } from '../../integers';
import { MysqlScanner } from './template-scanner';

/**
 * ER_PARSE_ERROR quotes the statement from the offending token on (`near '? LIMIT 5' at line 1`),
 * cut to about 80 characters with `...`: found again in `sql`, from the start of the line named.
 */
function parseErrorOffset(error: unknown, sql: string): number | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ER_PARSE_ERROR' || typeof message !== 'string') return undefined;
  const near = /near '([\s\S]*)' at line (\d+)$/.exec(message);
  if (!near) return undefined;
  const [, quoted, line] = near;
  if (sql.endsWith(quoted)) return sql.length - quoted.length;
  const lineStart = sql.split('\n').slice(0, Number(line) - 1).reduce((start, text) => start + text.length + 1, 0);
  const offset = sql.indexOf(quoted.replace(/\.\.\.$/, ''), lineStart);
  return offset < 0 ? undefined : offset;
}

/** MySQL and MariaDB: backquoted names, `?` markers, no `UPDATE … RETURNING`. */
export const mysqlDialect: SqlDialect = Object.freeze({
  name: 'mysql',
  supportsUpdateReturning: false,
  columnNamesIgnoreCase: true,
  placeholder: () => '?',
  quoteIdentifier: (part: string) => '`' + part.replace(/`/g, '``') + '`',
  scanTemplate: (template: string) => new MysqlScanner(template).compile(),
  // MySQL sorts NULLs as the smallest values: a nullable column sorts on IS NULL first.
  orderBy: (column: string, descending: boolean, nullable: boolean) => {
    const direction = descending ? ' DESC' : '';
    return nullable ? `${column} IS NULL${direction}, ${column}${direction}` : `${column}${direction}`;
  },
  // LIKE follows the column's collation (case-insensitive under the usual _ci ones); ilike is so under any.
  caseInsensitiveLike: (column: string, marker: string) => `LOWER(${column}) LIKE LOWER(${marker})`,
  // MariaDB and MySQL drop the ORDER BY of a derived table that has no LIMIT of its own: the
  // largest LIMIT keeps the template's order (a template with its own LIMIT cannot be paged).
  pagedStatement: (sql: string, limitMarker: string, offsetMarker: string) =>
    `SELECT * FROM (${sql}\nLIMIT 18446744073709551615) AS sql_page LIMIT ${limitMarker} OFFSET ${offsetMarker}`,
  estimateStatement: (sql: string) => `EXPLAIN ${sql}`,
  // The first row is the outermost table (or derived table) the statement reads.
  estimatedRows: (rows: readonly Row[]) => finiteCount(rows[0]?.rows),
  errors: Object.freeze({
    invalidValueCodes: new Set([
      'ER_BAD_NULL_ERROR',
      'ER_NO_DEFAULT_FOR_FIELD', // a NOT NULL column without default left out
      'ER_CHECK_CONSTRAINT_VIOLATED',
      'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD', // strict mode: 'abc' into an INT (SQLSTATE HY000)
      'ER_TRUNCATED_WRONG_VALUE',
      'ER_WARN_DATA_OUT_OF_RANGE',
    ]),
    // mysql2's pool (wait queue full, no connection and no waiting) and a connection that died under a call.
    unavailableMessage: /queue limit reached|no connections available|can't add new command when connection is in closed state|connection lost/i,
    syntaxErrorOffset: parseErrorOffset,
  }),
});
