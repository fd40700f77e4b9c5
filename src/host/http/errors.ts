import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import createDebug from 'debug';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorCatalogue, SqlResourceError, type ErrorCode, type ErrorSubject } from '../../errors';

const log = createDebug('sql-resources:http');

const jsonType = 'application/json; charset=utf-8';

/**
 * Sends a nok answer. When the request's body has not all arrived (an error before or while
 * reading it), the connection closes after the answer: kept alive, it would wait for the rest
 * of a body nobody reads, and hold `stop()` until the request timeout.
 */
export function sendNok(request: FastifyRequest, reply: FastifyReply, statusCode: number, error: ErrorCode, message: string, subject: ErrorSubject = {}): void {
  if (!request.raw.complete && hasBody(request)) void reply.header('connection', 'close');
  void reply.code(statusCode).type(jsonType).send(nokBody(error, message, subject));
}

/** A request without a body is read whole with its headers, even before Node marks it `complete`. */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The nok envelope as JSON text: `field` and `columns` only when the error names them. */
export function nokBody(error: ErrorCode, message: string, { field, columns }: ErrorSubject = {}): string {
  return JSON.stringify({ code: 'nok', message, error, field, columns });
}

/** What a client is told about an error. */
export interface ErrorAnswer extends ErrorSubject {
  statusCode: number;
  error: ErrorCode;
  message: string;
}

/** Messages for framework and Node errors; theirs may quote the URL or the request. */
const frameworkTexts: Record<string, { error: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { error: 'BODY_TOO_LARGE', message: 'the request body is larger than the limit (server.bodyLimit, 1 MiB by default)' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    error: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'the request body must be JSON, sent with Content-Type application/json (or application/<type>+json)',
  },
  FST_ERR_BAD_URL: { error: 'BAD_REQUEST', message: 'the request URL is not valid (bad percent-encoding)' },
  FST_ERR_MAX_PARAM_LENGTH: { error: 'URI_TOO_LONG', message: 'a path parameter of the request URL is too long' },
  HPE_HEADER_OVERFLOW: { error: 'HEADERS_TOO_LARGE', message: 'the request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { error: 'REQUEST_TIMEOUT', message: 'the request was not received in time (server.requestTimeout)' },
};
// A Map: an error code such as 'constructor' must not reach Object.prototype.
const frameworkAnswers = new Map(Object.entries(frameworkTexts));

/** Catalogue codes for statuses of errors that name none. */
const statusErrors: Partial<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  413: 'BODY_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  421: 'HOST_NOT_ALLOWED',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

function errorStatus(error: unknown): number {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

function isCatalogueCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(errorCatalogue, code);
}

/**
 * The status, catalogue code and message of any error: ours keep theirs, the framework's get
 * fixed texts, an application's 4xx keeps its message. A 5xx says only which request failed,
 * unless `exposeErrors`.
 */
export function errorAnswer(error: unknown, requestId: string, exposeErrors: boolean): ErrorAnswer {
  const code = (error as { code?: unknown } | null)?.code;
  let answer: ErrorAnswer;
  // A database's own words may quote the request's values: clients get the clientMessage,
  // except for a 5xx the profile chose to expose (server.exposeErrors, for debugging).
  if (error instanceof SqlResourceError) {
    const exposed = error.statusCode >= 500 && exposeErrors;
    // What the error names is withheld from a generic 5xx, like its message.
    const subject = error.statusCode < 500 || exposeErrors ? { field: error.field, columns: error.columns } : {};
    answer = { statusCode: error.statusCode, error: error.code, message: exposed ? error.message : (error.clientMessage ?? error.message), ...subject };
  }
  else if (typeof code === 'string' && frameworkAnswers.has(code)) {
    const known = frameworkAnswers.get(code) as { error: ErrorCode; message: string };
    answer = { statusCode: errorCatalogue[known.error].statusCode, ...known };
  } else {
    const statusCode = errorStatus(error);
    const mapped = isCatalogueCode(code) ? code : (statusErrors[statusCode] ?? (statusCode < 500 ? 'BAD_REQUEST' : 'INTERNAL_ERROR'));
    const framework = typeof code === 'string' && code.startsWith('FST_');
    answer = { statusCode, error: mapped, message: framework ? errorCatalogue[mapped].summary : String((error as Error)?.message ?? error) };
  }
  if (answer.statusCode >= 500 && !exposeErrors) answer.message = `internal error (request ${requestId})`;
  return answer;
}

/** The route's error handler: every error in the envelope; 5xx details go to the debug log with the request id. */
export function errorHandler(exposeErrors: boolean) {
  return (caught: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const answer = errorAnswer(caught, request.id, exposeErrors);
    if (answer.statusCode >= 500) {
      const detail = caught instanceof SqlResourceError ? caught.message : (caught.stack ?? String(caught));
      log('request %s: %s %s → %d %s: %s', request.id, request.method, request.url.split('?')[0], answer.statusCode, answer.error, detail);
    }
    sendNok(request, reply, answer.statusCode, answer.error, answer.message, answer);
  };
}

/** 404 for an unknown method and path; the path is not repeated back. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  sendNok(request, reply, 404, 'ROUTE_NOT_FOUND', 'no endpoint at this method and path');
}

/**
 * fastify's `frameworkErrors` (bad percent-encoding, a path parameter over maxParamLength):
 * answered before routing, so no hook has set the security headers yet.
 */
export function frameworkErrorHandler(headers: Record<string, string>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const answer = errorAnswer(error, request.id, false);
    void reply.headers(headers);
    sendNok(request, reply, answer.statusCode, answer.error, answer.message);
  };
}

/**
 * fastify's `clientErrorHandler`: Node could not read a request (malformed HTTP, headers too
 * large, request timeout) and there is only the socket. Like Node's own handler, it answers
 * only when no response has started, then closes the connection.
 */
export function clientErrorHandler(headers: Record<string, string>) {
  const headerLines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (error: Error & { code?: string }, socket: Socket): void => {
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = errorAnswer(error, '-', false);
    const known = error.code !== undefined && frameworkAnswers.has(error.code);
    const { statusCode, message } = known ? answer : { statusCode: 400, message: errorCatalogue.BAD_REQUEST.summary };
    const body = nokBody(known ? answer.error : 'BAD_REQUEST', message);
    log('client error %s → %d', error.code, statusCode);
    socket.end(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\ncontent-type: ${jsonType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `${headerLines}connection: close\r\n\r\n${body}`,
    );
  };
}
