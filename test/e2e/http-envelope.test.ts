import { join } from 'node:path';
import { format } from 'node:util';
import createDebug from 'debug';
import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';
import { sendRaw, type RawAnswer } from './fixtures/raw-http';

const lib = join(__dirname, 'fixtures', 'hardening-handlers.js');

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The answer is the nok envelope with `error`, as JSON, and does not repeat `sent`. */
function expectEnvelope(answer: RawAnswer, status: number, error: string, sent: string[]): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toEqual({ code: 'nok', message: expect.any(String), error });
  for (const part of sent) expect(answer.text).not.toContain(part);
}

describe.each(kinds)('%s answers in the envelope', (kind: Kind) => {
  const table = uniqueName('sr_envelope');
  let app: App;
  let exposing: App;
  let port: number;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id INT PRIMARY KEY, name VARCHAR(100))`);
    await rawQuery(kind, `INSERT INTO ${q(kind, table)} (id, name) VALUES (1, 'Ada')`);
    const server = {
      lib,
      requestTimeout: 300,
      endpoints: [
        { path: '/x/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
        { path: '/broken', endpoint: 'list', resource: 'db', sql: 'SELECT * FROM sr_no_such_table_anywhere' },
        { path: '/search', endpoint: 'list', resource: 'db', sql: `SELECT name FROM ${q(kind, table)} WHERE name = {{q}}` },
        { path: '/boom', handler: 'boom' },
      ],
    };
    app = createApp({ resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) }, server });
    exposing = createApp({ resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) }, server: { ...server, exposeErrors: true } });
    await app.start({ port: 0 });
    await exposing.start({ port: 0 });
    port = app.address()?.port as number;
  });

  afterAll(async () => {
    await app.stop();
    await exposing.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  it('answers 404 ROUTE_NOT_FOUND without the path', async () => {
    const answer = await sendRaw(port, 'GET /nowhere-Secret-Path?q=Secret-Query HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expectEnvelope(answer, 404, 'ROUTE_NOT_FOUND', ['Secret-Path', 'Secret-Query']);
    // A request without a body was read whole: its keep-alive connection stays open.
    expect(answer.headers.connection).toBe('keep-alive');
  });

  it('keeps a 404 of a missing row in the envelope with NOT_FOUND', async () => {
    const answer = await call(app, 'GET', '/x/999');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'nok', error: 'NOT_FOUND' });
  });

  it('answers 414 URI_TOO_LONG for a path parameter past the limit, without echoing it', async () => {
    const long = 'Z'.repeat(9000);
    expectEnvelope(await sendRaw(port, `GET /x/${long} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 414, 'URI_TOO_LONG', ['ZZZZ']);
  });

  it('answers 431 HEADERS_TOO_LARGE', async () => {
    const answer = await sendRaw(port, `GET /x/1 HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'H'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(answer, 431, 'HEADERS_TOO_LARGE', ['HHHH']);
  });

  it.each(['/x/%FF%FE', '/x/%', '/elsewhere/%E0%A4%A'])('answers 400 BAD_REQUEST for the bad percent-encoding of %s', async (path) => {
    expectEnvelope(await sendRaw(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 400, 'BAD_REQUEST', [path, '%FF', '%E0']);
  });

  it.each([
    ['garbage', 'GARBAGE\r\n\r\n', 'GARBAGE'],
    ['a bad request line', 'GET /x/1 HTTP/9.Q-Secret\r\n\r\n', 'Q-Secret'],
    ['a header without colon', 'GET /x/1 HTTP/1.1\r\nHost: localhost\r\nNo-Colon-Secret\r\n\r\n', 'No-Colon-Secret'],
  ])('answers 400 BAD_REQUEST for malformed HTTP: %s', async (_label, bytes, sent) => {
    expectEnvelope(await sendRaw(port, bytes), 400, 'BAD_REQUEST', [sent]);
  });

  it('answers 400 BAD_REQUEST for an HTTP/1.1 request without Host, and serves HTTP/1.0 without one', async () => {
    expectEnvelope(await sendRaw(port, 'GET /x/1 HTTP/1.1\r\n\r\n'), 400, 'BAD_REQUEST', []);
    const old = await sendRaw(port, 'GET /x/1 HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
    expect(JSON.parse(old.body)).toMatchObject({ code: 'ok', data: { id: 1, name: 'Ada' } });
  });

  it('answers 408 REQUEST_TIMEOUT to a request not finished within server.requestTimeout', async () => {
    const started = Date.now();
    const answer = await sendRaw(port, 'POST /x/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"half-Secret', 5000);
    expectEnvelope(answer, 408, 'REQUEST_TIMEOUT', ['half-Secret']);
    // Not before the 300 ms of server.requestTimeout (sendRaw gives up at 5 s, which fails the envelope check).
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('answers a 5xx with a generic message naming the request; the details go to the debug log with its id', async () => {
    const logged: string[] = [];
    const { log: print } = createDebug;
    const namespaces = createDebug.disable();
    createDebug.log = (...args: unknown[]) => void logged.push(format(...args));
    createDebug.enable('sql-resources:http');
    try {
      const broken = await call(app, 'GET', '/broken');
      expect(broken.status).toBe(500);
      expect(broken.body).toEqual({ code: 'nok', message: expect.stringMatching(/^internal error \(request \S+\)$/), error: 'DB_ERROR' });
      expect(broken.text).not.toContain('sr_no_such_table_anywhere');
      const boom = await call(app, 'GET', '/boom');
      expect(boom.status).toBe(500);
      expect(boom.body).toEqual({ code: 'nok', message: expect.stringMatching(/^internal error \(request \S+\)$/), error: 'INTERNAL_ERROR' });
      expect(boom.body.message).not.toBe(broken.body.message);
      for (const [answer, route, detail] of [
        [broken, 'GET /broken → 500 DB_ERROR', 'sr_no_such_table_anywhere'],
        [boom, 'GET /boom → 500 INTERNAL_ERROR', 'secret detail of boom'],
      ] as const) {
        const id = /request (\S+)\)/.exec(answer.body.message)?.[1] as string;
        // toContainEqual prints every logged line when none matches.
        expect(logged).toContainEqual(expect.stringMatching(new RegExp(`request ${escapeRegExp(id)}: ${route}: [^]*${detail}`)));
      }
    } finally {
      createDebug.log = print;
      createDebug.enable(namespaces);
    }
  });

  it('sends 5xx messages as they are with server.exposeErrors', async () => {
    const broken = await call(exposing, 'GET', '/broken');
    expect(broken.status).toBe(500);
    expect(broken.body).toMatchObject({ message: expect.stringMatching(/^query failed: .*sr_no_such_table_anywhere/), error: 'DB_ERROR' });
    expect((await call(exposing, 'GET', '/boom')).body).toEqual({ code: 'nok', message: 'secret detail of boom', error: 'INTERNAL_ERROR' });
  });

  it('keeps the message of a 4xx from the resource', async () => {
    const answer = await call(app, 'GET', '/search');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'nok', message: "template variable 'q' is missing from the request", error: 'TEMPLATE_VARIABLE', field: 'q' });
  });
});
