import { join } from 'node:path';
import { createApp, type App } from '../../src';
import { stringifyJson } from '../../src/host/http';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

const lib = join(__dirname, 'fixtures', 'hardening-handlers.js');

/** A raw request: fetch sends no Content-Type for a byte array, and the given one otherwise. */
async function post(app: App, path: string, body: string, contentType?: string): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const response = await fetch(`http://127.0.0.1:${app.address()?.port}${path}`, {
    method: 'POST',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body: new TextEncoder().encode(body),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

const nested = (depth: number, open: string, close: string, inner = '1'): string => open.repeat(depth) + inner + close.repeat(depth);

describe.each(kinds)('%s request bodies', (kind: Kind) => {
  const table = uniqueName('sr_bodies');
  let app: App;
  let loose: App;

  const names = async (): Promise<string[]> => (await rawQuery(kind, `SELECT name FROM ${q(kind, table)} ORDER BY name`)).map((row) => String(row.name));

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id ${types[kind].serial}, name VARCHAR(100) NOT NULL, big ${types[kind].bigint}, note ${types[kind].text})`);
    const endpoints = [
      { path: '/rows', endpoint: 'create', resource: 'db', table, id_field: 'id' },
      { path: '/rows/:id', endpoint: 'delete', resource: 'db', table, id_field: 'id' },
      { path: '/rows/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
      { path: '/echo', method: 'POST', handler: 'echo' },
      { path: '/big', handler: 'big' },
    ];
    app = createApp({ resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) }, server: { lib, endpoints } });
    loose = createApp({
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: { lib, json: { anyContentType: true, maxDepth: 3 }, endpoints },
    });
    await app.start({ port: 0 });
    await loose.start({ port: 0 });
  });

  afterAll(async () => {
    await app.stop();
    await loose.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  beforeEach(async () => {
    await rawQuery(kind, `DELETE FROM ${q(kind, table)}`);
  });

  describe('content type', () => {
    it.each([
      ['text/plain', 'text/plain'],
      ['form encoding', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=x'],
      ['no content type', undefined],
      ['a look-alike', 'application/jsonp'],
      ['json as a parameter', 'text/plain; type=application/json'],
    ])('answers 415 for %s and writes nothing', async (_label, contentType) => {
      const answer = await post(app, '/rows', '{"name":"Mallory"}', contentType);
      expect(answer.status).toBe(415);
      expect(answer.body).toEqual({ code: 'nok', message: expect.stringContaining('application/json'), error: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(await names()).toEqual([]);
    });

    it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/vnd.api+json', 'application/merge-patch+json; charset=utf-8'])(
      'reads %s',
      async (contentType) => {
        expect((await post(app, '/rows', '{"name":"Ada"}', contentType)).status).toBe(201);
        expect(await names()).toEqual(['Ada']);
      },
    );

    it('still serves GET and DELETE without a body', async () => {
      const created = await call(app, 'POST', '/rows', { name: 'Bob' });
      const id = (created.body.data as { id: number }).id;
      expect((await call(app, 'GET', `/rows/${id}`)).status).toBe(200);
      expect((await call(app, 'DELETE', `/rows/${id}`)).status).toBe(200);
      expect(await names()).toEqual([]);
    });

    it('answers 415 to a large body at once, and closes its connection so stop() does not wait for the rest', async () => {
      const own = createApp({ resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) }, server: { lib, endpoints: [{ path: '/echo', method: 'POST', handler: 'echo' }] } });
      await own.start({ port: 0 });
      const response = await fetch(`http://127.0.0.1:${own.address()?.port}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: new TextEncoder().encode('x'.repeat(1024 * 1024)),
      });
      expect(response.status).toBe(415);
      expect(response.headers.get('connection')).toBe('close');
      await response.text();
      // Kept alive, the connection would hold stop() until the rest of the body came (or the test timed out).
      await own.stop();
    });

    it('reads any content type as JSON with server.json.anyContentType', async () => {
      expect((await post(loose, '/rows', '{"name":"Text"}', 'text/plain')).status).toBe(201);
      expect((await post(loose, '/rows', '{"name":"Form"}', 'application/x-www-form-urlencoded')).status).toBe(201);
      expect((await post(loose, '/rows', '{"name":"None"}')).status).toBe(201);
      expect(await names()).toEqual(['Form', 'None', 'Text']);
    });
  });

  describe('nesting', () => {
    it.each([
      ['100,000 [', '['.repeat(100_000)],
      ['arrays 10,000 deep', `{"name":"X","note":${nested(10_000, '[', ']')}}`],
      ['objects 10,000 deep', `{"name":"X","note":${nested(10_000, '{"a":', '}')}}`],
    ])('answers 400 in the envelope for %s', async (_label, body) => {
      const answer = await post(app, '/rows', body, 'application/json');
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ code: 'nok', message: expect.stringContaining('server.json.maxDepth'), error: 'INVALID_BODY' });
      expect(await names()).toEqual([]);
    });

    it('accepts a body exactly 64 levels deep, and refuses 65', async () => {
      const atLimit = await post(app, '/rows', `{"name":"Deep","note":${nested(63, '[', ']')}}`, 'application/json');
      expect(atLimit.status).toBe(201);
      const [stored] = await rawQuery(kind, `SELECT note FROM ${q(kind, table)}`);
      expect(stored.note).toBe(nested(63, '[', ']'));
      expect((await post(app, '/rows', `{"name":"Deeper","note":${nested(64, '[', ']')}}`, 'application/json')).status).toBe(400);
      expect(await names()).toEqual(['Deep']);
    });

    it('counts brackets inside strings as text, and follows server.json.maxDepth', async () => {
      expect((await post(loose, '/rows', `{"name":"[[[[{{{{","note":{"a":{"b":1}}}`, 'application/json')).status).toBe(201);
      const deeper = await post(loose, '/rows', '{"name":"X","note":{"a":{"b":{"c":1}}}}', 'application/json');
      expect(deeper.status).toBe(400);
      expect(deeper.body.message).toContain('deeper than 3 levels');
      expect(await names()).toEqual(['[[[[{{{{']);
    });
  });

  describe('numbers', () => {
    it('keeps integers past 2^53 exact, in and out', async () => {
      const answer = await post(app, '/echo', '{"id":9007199254740993,"neg":-9007199254740993,"safe":9007199254740991,"f":1.5,"e":1e3,"z":-0}', 'application/json');
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('{"code":"ok","message":"echo","data":{"id":9007199254740993,"neg":-9007199254740993,"safe":9007199254740991,"f":1.5,"e":1000,"z":0}}');
    });

    it('sends bigints of a reply as exact JSON numbers', async () => {
      const answer = await call(app, 'GET', '/big');
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('{"code":"ok","message":"big","data":{"big":18446744073709551617,"small":1}}');
      expect(stringifyJson([1n, { a: new Date(0) }])).toBe('[1,{"a":"1970-01-01T00:00:00.000Z"}]');
    });

    it.each([
      ['a fraction', '{"name":"X","big":9007199254740993.0}', '"big"'],
      ['an exponent', '{"name":"X","big":1e16}', '"big"'],
      ['an infinite number', '{"name":"X","note":[1,{"x":1e400}]}', '"note[1].x"'],
      ['101 digits', `{"name":"X","big":${'9'.repeat(101)}}`, '"big"'],
    ])('refuses a number past 2^53 written with %s, naming its field', async (_label, body, field) => {
      const answer = await post(app, '/rows', body, 'application/json');
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('INVALID_BODY');
      expect(answer.body.message).toContain(`number at ${field} cannot be read exactly`);
      expect(await names()).toEqual([]);
    });

    it('stores a BIGINT past 2^53 exactly', async () => {
      const answer = await post(app, '/rows', '{"name":"Big","big":9007199254740993}', 'application/json');
      expect(answer.status).toBe(201);
      const [stored] = await rawQuery(kind, `SELECT big FROM ${q(kind, table)}`);
      expect(String(stored.big)).toBe('9007199254740993');
    });
  });

  describe('malformed JSON', () => {
    it.each([
      ['an escaped __proto__ key', '{"name":"X","\\u005f_proto__":{"admin":true}}', 'forbidden key'],
      ['an escaped constructor.prototype', '{"name":"X","c\\u006fnstructor":{"prototype":{"admin":true}}}', 'forbidden key'],
      ['a repeated key', '{"name":"X","name":"Secret-Value"}', 'repeats a key'],
      ['a syntax error', '{"name":"Secret-Value",}', 'not valid JSON'],
    ])('refuses %s without quoting the body', async (_label, body, message) => {
      const answer = await post(app, '/rows', body, 'application/json');
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ code: 'nok', message: expect.stringContaining(message), error: 'INVALID_BODY' });
      expect(answer.text).not.toContain('Secret-Value');
      expect(await names()).toEqual([]);
    });

    it('reads a body that starts with a byte order mark', async () => {
      expect((await post(app, '/rows', '\uFEFF{"name":"Bom"}', 'application/json')).status).toBe(201);
      expect(await names()).toEqual(['Bom']);
    });
  });
});
