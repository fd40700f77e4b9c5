import type { Row } from './driver-adapter';
import type { Statement } from './statement';
import type { ScannedTemplate } from './template-scanner';

/**
 * What one SQL dialect means for the shared code: how to quote and mark parameters, how to
 * read a template, which statements it has, how its driver reports errors. One frozen object
 * per dialect (dialects/<name>/dialect.ts); the resource, the SQL builder and the endpoints get
 * it from the resource (`resource.dialect`), never from a `_class` or kind string. It is known
 * before `start()`, so endpoints compile their templates before any connection exists.
 */
export interface SqlDialect {
  /** The family's name: `mysql` or `postgres` for the built-in dialects (logs, debug namespaces). */
  readonly name: string;
  /** `UPDATE … RETURNING *` is available (PostgreSQL; not MariaDB nor MySQL). */
  readonly supportsUpdateReturning: boolean;
  /** Column names match whatever their case (MySQL), so `ID` names the column `id`. */
  readonly columnNamesIgnoreCase: boolean;
  /** Bound-parameter marker for the 1-based position `index`. */
  placeholder(index: number): string;
  /** Quotes one identifier part, doubling embedded quote characters. */
  quoteIdentifier(part: string): string;
  /** Reads a `{{name}}` template with the dialect's quoting and comment rules. */
  scanTemplate(template: string): ScannedTemplate;
  readonly errors: DialectErrors;
  /**
   * One ORDER BY term. NULLs come last in ascending order and first in descending order on
   * every dialect, as PostgreSQL places them, so a list answers the same order on both kinds.
   */
  orderBy(column: string, descending: boolean, nullable: boolean): string;
  /** The `ilike` filter: `column` (quoted) matches the pattern at `marker` whatever the case. */
  caseInsensitiveLike(column: string, marker: string): string;
  /**
   * A template's statement cut to one page of its rows, the template itself unchanged (SPEC §8):
   * its order must survive, and the markers bind the row count and the rows skipped.
   */
  pagedStatement(sql: string, limitMarker: string, offsetMarker: string): string;
  /** The statement that asks the planner how many rows `sql` answers, without running it. */
  estimateStatement(sql: string): string;
  /** The planner's row estimate from that statement's rows; undefined when it gives none. */
  estimatedRows(rows: readonly Row[]): number | undefined;
  /**
   * The statements that hand a request's verified claims (and the role named by `roleClaim`,
   * when the claims have it) to the session, each setting local to the transaction it runs in:
   * what `requestClaims: true` runs first in the transaction of each statement of a request.
   * Values are bound, never spliced into SQL. Absent: the dialect refuses `requestClaims`.
   */
  requestSessionStatements?(claims: Readonly<Record<string, unknown>>, role: string | undefined): Statement[];
}

/** The driver's errors that the shared SQLSTATE rules (errors.ts) cannot place by themselves. */
export interface DialectErrors {
  /** Driver codes of integrity errors caused by the value itself (NOT NULL, CHECK, bad value): 400. */
  readonly invalidValueCodes: ReadonlySet<string>;
  /** Messages of errors the driver raises without a code when the server or pool is unavailable: 503. */
  readonly unavailableMessage: RegExp;
  /**
   * Where in `sql` a syntax error of the driver points: a 0-based offset, or undefined when the
   * error is no syntax error or does not say. `check` uses it to spot a placeholder written
   * where the database expects a name.
   */
  syntaxErrorOffset?(error: unknown, sql: string): number | undefined;
}

/** What the server that answered `open()` supports; known once connected. */
export interface ServerFeatures {
  /** `INSERT … RETURNING *`: the inserted row comes back in the same trip (PostgreSQL, MariaDB ≥ 10.5). */
  readonly insertReturning: boolean;
}
