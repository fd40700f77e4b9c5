import type { DialectErrors } from './dialect';

/**
 * The error catalogue: every error the product raises has a stable `code` and the HTTP
 * `statusCode` an endpoint answers with. Driver errors are kept as `cause`.
 */
export const errorCatalogue = {
  CONFIG_INVALID: { statusCode: 500, summary: 'invalid configuration' },
  UNKNOWN_CLASS: { statusCode: 500, summary: 'unknown resource class' },
  UNKNOWN_RESOURCE: { statusCode: 500, summary: 'unknown resource id' },
  NOT_STARTED: { statusCode: 503, summary: 'resource is not started' },
  INVALID_ARGUMENT: { statusCode: 400, summary: 'invalid argument' },
  INVALID_FILTER: { statusCode: 400, summary: 'invalid filter' },
  INVALID_BODY: { statusCode: 400, summary: 'invalid request body' },
  UNKNOWN_COLUMN: { statusCode: 400, summary: 'unknown column' },
  INVALID_VALUE: { statusCode: 400, summary: 'value not valid for its column (type, length, NOT NULL, CHECK)' },
  MISSING_ID: { statusCode: 400, summary: 'missing id' },
  INVALID_ID: { statusCode: 400, summary: "id not valid for the key column's type" },
  TEMPLATE_VARIABLE: { statusCode: 400, summary: 'template variable missing or repeated' },
  INVALID_PARAMETER: { statusCode: 400, summary: 'a declared parameter (params) is missing, repeated or breaks its type or rules' },
  UNAUTHORIZED: { statusCode: 401, summary: 'missing, invalid or expired credential' },
  FORBIDDEN: { statusCode: 403, summary: 'the caller may not do this (role, claim or row-level policy)' },
  NOT_FOUND: { statusCode: 404, summary: 'no such row' },
  CONSTRAINT_VIOLATION: { statusCode: 409, summary: 'unique or foreign-key violation' },
  NOT_UNIQUE: { statusCode: 409, summary: 'the key matches more than one row; nothing was changed' },
  BAD_REQUEST: { statusCode: 400, summary: 'malformed HTTP request or URL' },
  ROUTE_NOT_FOUND: { statusCode: 404, summary: 'no endpoint at this method and path' },
  REQUEST_TIMEOUT: { statusCode: 408, summary: 'the request was not received in time' },
  BODY_TOO_LARGE: { statusCode: 413, summary: 'request body too large' },
  URI_TOO_LONG: { statusCode: 414, summary: 'request URL too long' },
  UNSUPPORTED_MEDIA_TYPE: { statusCode: 415, summary: 'request body is not JSON (Content-Type)' },
  HOST_NOT_ALLOWED: { statusCode: 421, summary: 'Host header not in server.allowedHosts' },
  RATE_LIMITED: { statusCode: 429, summary: 'too many requests; retry after the time in Retry-After' },
  HEADERS_TOO_LARGE: { statusCode: 431, summary: 'request headers too large' },
  CANCELLED: { statusCode: 499, summary: 'the caller left; the statement was not run or was cancelled' },
  INTERNAL_ERROR: { statusCode: 500, summary: 'internal error' },
  DB_UNAVAILABLE: { statusCode: 503, summary: 'database unreachable or pool exhausted' },
  DB_ERROR: { statusCode: 500, summary: 'database error' },
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

/**
 * What an error is about, besides its message, for a client to act on without parsing text:
 * set where the error is made, and put in the HTTP nok envelope next to `error`.
 */
export interface ErrorSubject {
  /** The request field at fault: a template variable, or `id` (the row id of an HTTP endpoint). */
  field?: string;
  /**
   * The columns at fault: the table's own (a value its type refuses), or names a caller gave
   * that the table lacks; of these only identifier-like names are listed, never other text.
   */
  columns?: readonly string[];
}

export interface SqlResourceErrorDetails extends ErrorSubject {
  cause?: unknown;
  /** The driver's own code, e.g. `ER_DUP_ENTRY` (mysql2) or `23505` (pg). */
  driverCode?: string;
  sqlState?: string;
}

export class SqlResourceError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly driverCode?: string;
  readonly sqlState?: string;
  /**
   * What an HTTP client is told, when it differs from `message`: a database's message may quote
   * the values of the request (`Incorrect integer value: 'x'`), so clients get the operation,
   * the catalogue's summary and structured names (column, constraint) only.
   */
  readonly clientMessage?: string;
  readonly field?: string;
  readonly columns?: readonly string[];

  constructor(code: ErrorCode, message: string, details: SqlResourceErrorDetails & { clientMessage?: string } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'SqlResourceError';
    this.code = code;
    this.statusCode = errorCatalogue[code].statusCode;
    if (details.driverCode !== undefined) this.driverCode = details.driverCode;
    if (details.sqlState !== undefined) this.sqlState = details.sqlState;
    if (details.clientMessage !== undefined) this.clientMessage = details.clientMessage;
    if (details.field !== undefined) this.field = details.field;
    if (details.columns !== undefined && details.columns.length > 0) this.columns = Object.freeze([...details.columns]);
  }
}

/** Network-level failures shared by both drivers: the server is not there (503). */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
]);

/** SQLSTATE classes and codes that mean "the server is not available right now". */
function isUnavailableSqlState(sqlState: string): boolean {
  return (
    sqlState.startsWith('08') || // connection exception
    sqlState === '57P01' || // admin shutdown
    sqlState === '57P02' || // crash shutdown
    sqlState === '57P03' || // cannot connect now (starting up)
    sqlState === '53300' // too many connections
  );
}

function stringField(source: unknown, key: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What `fromDriverError` needs to know besides the error. */
export interface DriverErrorContext {
  /** Redacted from the message and from the driver's own error (the password). */
  readonly secret?: string;
  /** The dialect's own codes and messages (dialects/<name>/dialect.ts). */
  readonly errors?: DialectErrors;
}

/**
 * Wraps a driver error into the catalogue by SQLSTATE: class 22 (data) and the dialect's
 * NOT NULL/CHECK codes → 400, other class 23 (unique, foreign key) → 409, connection failures
 * and the dialect's pool messages → 503, anything else → 500, insufficient privilege (42501)
 * too: a grant the server lacks (under a request's claims it is FORBIDDEN, made so by
 * executors/session-executor.ts). `operation` names what failed. `driverCode` is taken from the
 * driver (`code`) and `sqlState` from mysql2's `sqlState` or pg's five-character `code`.
 */
export function fromDriverError(operation: string, error: unknown, context: DriverErrorContext = {}): SqlResourceError {
  const { secret } = context;
  if (error instanceof SqlResourceError) return error;
  const driverCode = stringField(error, 'code');
  const sqlState =
    stringField(error, 'sqlState') ?? (driverCode && /^[0-9A-Z]{5}$/.test(driverCode) ? driverCode : undefined);
  const reason = redact(messageOf(error), secret) || driverCode || 'unknown error';
  const suffix = driverCode && !reason.includes(driverCode) ? ` (${driverCode})` : '';
  const message = `${operation} failed: ${reason}${suffix}`;
  scrubSecret(error, secret);
  const code = catalogueCodeOf(error, driverCode, sqlState, context.errors);
  const clientMessage = `${operation} failed: ${errorCatalogue[code].summary}${structuredNames(error)}${driverCode ? ` (${driverCode})` : ''}`;
  // pg names the column of some errors (NOT NULL) in a field of its own; mysql2 only in its text.
  const column = stringField(error, 'column');
  return new SqlResourceError(code, message, { cause: error, driverCode, sqlState, clientMessage, columns: column ? [column] : undefined });
}

function catalogueCodeOf(error: unknown, driverCode: string | undefined, sqlState: string | undefined, dialect: DialectErrors | undefined): ErrorCode {
  if ((driverCode && dialect?.invalidValueCodes.has(driverCode)) || sqlState?.startsWith('22')) return 'INVALID_VALUE';
  if (sqlState?.startsWith('23')) return 'CONSTRAINT_VIOLATION';
  if ((driverCode && unreachableCodes.has(driverCode)) || (sqlState && isUnavailableSqlState(sqlState))) return 'DB_UNAVAILABLE';
  // Drivers raise these without a code: only their message tells, and only the dialect knows it.
  if (dialect?.unavailableMessage.test(messageOf(error))) return 'DB_UNAVAILABLE';
  return 'DB_ERROR';
}

/** The column and constraint a driver names in fields of their own (pg), never parsed from text. */
function structuredNames(error: unknown): string {
  const column = stringField(error, 'column');
  const constraint = stringField(error, 'constraint');
  return (column ? ` (column ${column})` : '') + (constraint ? ` (constraint ${constraint})` : '');
}

/** The message of anything thrown; `instanceof Error` fails for errors of another realm. */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/** A pool used after `close()`: detected here, so no message needs matching later. */
export function poolClosed(): SqlResourceError {
  return new SqlResourceError('DB_UNAVAILABLE', 'pool is closed');
}

/** Text fields of driver errors that may quote a statement's values (mysql2, pg). */
const driverTextFields = ['message', 'sqlMessage', 'detail', 'hint', 'where', 'stack'];

/**
 * Redacts the secret inside the driver's error too: it is kept as `cause`, which loggers and
 * event listeners print whole, and a value sent by a client may have been the password.
 */
function scrubSecret(error: unknown, secret: string | undefined): void {
  if (!secret || typeof error !== 'object' || error === null) return;
  const fields = error as Record<string, unknown>;
  for (const key of driverTextFields) {
    const value = fields[key];
    if (typeof value === 'string' && value.includes(secret)) fields[key] = redact(value, secret);
  }
}

/** Removes a secret (the password) from text that may reach a log or a client. */
export function redact(text: string, secret?: string): string {
  return secret ? text.split(secret).join('***') : text;
}
