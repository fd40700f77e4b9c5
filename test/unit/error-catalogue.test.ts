import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorCatalogue, SqlResourceError, type ErrorCode } from '../../src';
import { errorAnswer, nokBody } from '../../src/host/http/errors';

const errorsPage = readFileSync(join(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8');

/** The rows of errors.md's "By HTTP status" table: status → codes, in the page's order. */
function documentedByStatus(): [number, string[]][] {
  const section = errorsPage.split(/^## /m).find((part) => part.startsWith('By HTTP status')) ?? '';
  return [...section.matchAll(/^\| (\d{3}) \| (.+) \|$/gm)].map(([, status, codes]) => [Number(status), [...codes.matchAll(/`([A-Z_]+)`/g)].map(([, code]) => code)]);
}

describe('the error catalogue', () => {
  it.each(Object.entries(errorCatalogue))('%s has an HTTP error status and a summary', (_code, entry) => {
    expect(entry.statusCode).toBeGreaterThanOrEqual(400);
    expect(entry.statusCode).toBeLessThan(600);
    expect(entry.summary).toMatch(/^\S.*\S$/);
  });

  it('is listed in errors.md by HTTP status: every code once, under its status, statuses ascending', () => {
    const byStatus = new Map<number, string[]>();
    for (const [code, entry] of Object.entries(errorCatalogue)) byStatus.set(entry.statusCode, [...(byStatus.get(entry.statusCode) ?? []), code]);
    const expected = [...byStatus.entries()].sort(([a], [b]) => a - b);
    expect(documentedByStatus()).toEqual(expected);
  });
});

describe('what a SqlResourceError names', () => {
  it('keeps field and a frozen copy of columns, and leaves out an empty list', () => {
    const columns = ['nme'];
    const error = new SqlResourceError('UNKNOWN_COLUMN', 'unknown column in t: nme', { columns });
    columns.push('changed');
    expect(error.columns).toEqual(['nme']);
    expect(Object.isFrozen(error.columns)).toBe(true);
    expect(new SqlResourceError('TEMPLATE_VARIABLE', 'm', { field: 'city' }).field).toBe('city');
    expect(new SqlResourceError('UNKNOWN_COLUMN', 'unknown column in t: 1 other', { columns: [] }).columns).toBeUndefined();
  });
});

describe('the nok envelope', () => {
  it('adds field and columns only when given', () => {
    expect(nokBody('NOT_FOUND', 'readOne t: no row with this id')).toBe('{"code":"nok","message":"readOne t: no row with this id","error":"NOT_FOUND"}');
    expect(nokBody('TEMPLATE_VARIABLE', "template variable 'city' is missing from the request", { field: 'city' })).toBe(
      '{"code":"nok","message":"template variable \'city\' is missing from the request","error":"TEMPLATE_VARIABLE","field":"city"}',
    );
    expect(nokBody('UNKNOWN_COLUMN', 'unknown columns in t: a, b', { columns: ['a', 'b'] })).toBe(
      '{"code":"nok","message":"unknown columns in t: a, b","error":"UNKNOWN_COLUMN","columns":["a","b"]}',
    );
  });

  it('answers a 4xx SqlResourceError with its code, client message, field and columns', () => {
    const error = new SqlResourceError('INVALID_VALUE', 'insert on t failed: Incorrect integer value', {
      clientMessage: 'insert on t failed: value not valid for its column (type, length, NOT NULL, CHECK) (22P02)',
      columns: ['age'],
    });
    expect(errorAnswer(error, 'req-1', false)).toStrictEqual({
      statusCode: 400,
      error: 'INVALID_VALUE',
      message: 'insert on t failed: value not valid for its column (type, length, NOT NULL, CHECK) (22P02)',
      field: undefined,
      columns: ['age'],
    });
  });

  it('withholds what a 5xx names, like its message, unless errors are exposed', () => {
    const error = new SqlResourceError('DB_ERROR', 'read on t failed: column "x" is ambiguous', { columns: ['x'] });
    expect(errorAnswer(error, 'req-7', false)).toStrictEqual({ statusCode: 500, error: 'DB_ERROR', message: 'internal error (request req-7)' });
    expect(errorAnswer(error, 'req-7', true)).toStrictEqual({
      statusCode: 500,
      error: 'DB_ERROR',
      message: 'read on t failed: column "x" is ambiguous',
      field: undefined,
      columns: ['x'],
    });
  });

  it.each<[string, number, ErrorCode]>([
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'BODY_TOO_LARGE'],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['FST_ERR_BAD_URL', 400, 'BAD_REQUEST'],
    ['FST_ERR_MAX_PARAM_LENGTH', 414, 'URI_TOO_LONG'],
    ['HPE_HEADER_OVERFLOW', 431, 'HEADERS_TOO_LARGE'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'REQUEST_TIMEOUT'],
  ])('answers the framework error %s with %d %s', (code, statusCode, error) => {
    const answer = errorAnswer(Object.assign(new Error('quotes /the/url?q=secret'), { code, statusCode }), 'req-1', false);
    expect({ statusCode: answer.statusCode, error: answer.error }).toEqual({ statusCode, error });
    expect(answer.message).not.toContain('secret');
  });

  it.each<[string, { code?: string; statusCode?: number; message: string }, { statusCode: number; error: ErrorCode; message: string }]>([
    ['a framework 400 without a text of its own', { code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', statusCode: 400, message: 'quotes 123' }, { statusCode: 400, error: 'BAD_REQUEST', message: 'malformed HTTP request or URL' }],
    ["a handler's 404", { statusCode: 404, message: 'no such book' }, { statusCode: 404, error: 'NOT_FOUND', message: 'no such book' }],
    ["a handler's 409", { statusCode: 409, message: 'taken' }, { statusCode: 409, error: 'BAD_REQUEST', message: 'taken' }],
    ["a handler's 503", { statusCode: 503, message: 'busy' }, { statusCode: 503, error: 'INTERNAL_ERROR', message: 'internal error (request req-3)' }],
    ['an error without status', { message: 'boom' }, { statusCode: 500, error: 'INTERNAL_ERROR', message: 'internal error (request req-3)' }],
    ['an error with a catalogue code', { code: 'NOT_FOUND', statusCode: 404, message: 'no such book' }, { statusCode: 404, error: 'NOT_FOUND', message: 'no such book' }],
  ])('names %s as errors.md says', (_label, thrown, expected) => {
    expect(errorAnswer(Object.assign(new Error(thrown.message), thrown), 'req-3', false)).toStrictEqual(expected);
  });
});
