import { join } from 'node:path';
import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';
import { requestWithHost, sendRaw, type RawAnswer } from './fixtures/raw-http';

/** The headers every answer carries (the API's helmet settings). */
const expected: Record<string, string> = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'x-permitted-cross-domain-policies': 'none',
};

function expectSecurityHeaders(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(expected)) expect([name, headers[name]]).toEqual([name, value]);
  expect(headers['strict-transport-security']).toBeUndefined();
}

const fetched = (answer: { headers: Headers }): Record<string, string> => Object.fromEntries(answer.headers.entries());

describe.each(kinds)('%s security headers and hosts', (kind: Kind) => {
  const table = uniqueName('sr_security');
  let app: App;
  let port: number;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id INT PRIMARY KEY, name VARCHAR(100))`);
    await rawQuery(kind, `INSERT INTO ${q(kind, table)} (id, name) VALUES (1, 'Ada')`);
    app = createApp({
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: {
        requestTimeout: 300,
        allowedHosts: ['localhost', '127.0.0.1', 'api.example.com:8443'],
        cors: { origins: ['http://allowed.example'] },
        endpoints: [
          { path: '/rows/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
          { path: '/rows', endpoint: 'create', resource: 'db', table, id_field: 'id' },
          { path: '/broken', endpoint: 'list', resource: 'db', sql: 'SELECT * FROM sr_no_such_table_anywhere' },
        ],
      },
    });
    await app.start({ port: 0 });
    port = app.address()?.port as number;
  });

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  it('sets them on success, on errors and on 404', async () => {
    const answers = [
      await call(app, 'GET', '/rows/1'),
      await call(app, 'GET', '/rows/999'),
      await call(app, 'GET', '/broken'),
      await call(app, 'GET', '/nowhere'),
      await call(app, 'POST', '/rows', '{"id":', { 'content-type': 'application/json' }),
      await call(app, 'POST', '/rows', '{"id":2}', { 'content-type': 'text/plain' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 500, 404, 400, 415]);
    for (const answer of answers) expectSecurityHeaders(fetched(answer));
  });

  it('sets them on the answers written before routing or on the bare socket', async () => {
    const answers: RawAnswer[] = [
      await sendRaw(port, `GET /rows/${'a'.repeat(9000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`),
      await sendRaw(port, 'GET /rows/%FF HTTP/1.1\r\nHost: localhost\r\n\r\n'),
      await sendRaw(port, 'GARBAGE\r\n\r\n'),
      await sendRaw(port, `GET /rows/1 HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`),
      await sendRaw(port, 'GET /rows/1 HTTP/1.1\r\nHost: localhost\r\n'),
      await sendRaw(port, 'GET /rows/1 HTTP/1.1\r\n\r\n'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([414, 400, 400, 431, 408, 400]);
    for (const answer of answers) expectSecurityHeaders(answer.headers);
  });

  it('keeps CORS working alongside them', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/rows/1`, { headers: { origin: 'http://allowed.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('http://allowed.example');
    expectSecurityHeaders(fetched(response));
  });

  it.each(['evil.example', 'evil.example:8077', 'localhost.evil.example', 'api.example.com', 'api.example.com:80'])(
    'answers 421 HOST_NOT_ALLOWED for Host: %s, without repeating it',
    async (host) => {
      const answer = await requestWithHost(port, '/rows/1', host);
      expect(answer.status).toBe(421);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body)).toEqual({ code: 'nok', message: expect.stringContaining('server.allowedHosts'), error: 'HOST_NOT_ALLOWED' });
      expect(answer.body).not.toContain(host);
      expectSecurityHeaders(answer.headers);
    },
  );

  it('refuses a write for another Host before the body is read', async () => {
    const body = '{"id":5,"name":"Rebound"}';
    const answer = await sendRaw(port, `POST /rows HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(answer.status).toBe(421);
    expect(await rawQuery(kind, `SELECT id FROM ${q(kind, table)} WHERE id = 5`)).toEqual([]);
  });

  it.each(['localhost', 'localhost:8077', '127.0.0.1:1234', 'LOCALHOST', 'api.example.com:8443'])('serves Host: %s from the list', async (host) => {
    const answer = await requestWithHost(port, '/rows/1', host);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'ok', data: { id: 1 } });
  });
});

describe('security profile keys', () => {
  const lib = join(__dirname, 'fixtures', 'hardening-handlers.js');

  it('sends Strict-Transport-Security only when server.hsts is set', async () => {
    const app = createApp({ server: { lib, hsts: { maxAge: 600, includeSubDomains: false }, endpoints: [{ path: '/big', handler: 'big' }] } });
    await app.start({ port: 0 });
    try {
      const answer = await call(app, 'GET', '/big');
      expect(answer.headers.get('strict-transport-security')).toBe('max-age=600');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await app.stop();
    }
  });

  it.each([
    [{ json: { maxDepth: 0 } }, 'server.json.maxDepth: must be an integer from 1 to 1000'],
    [{ json: { maxDepth: 1001 } }, 'server.json.maxDepth: must be an integer from 1 to 1000'],
    [{ json: { anyContentType: 'yes' } }, 'server.json.anyContentType: must be true or false'],
    [{ json: true }, 'server.json: must be a mapping, got a boolean'],
    [{ allowedHosts: [] }, 'server.allowedHosts: must be a list of host names (or host:port)'],
    [{ allowedHosts: ['ok', 7] }, 'server.allowedHosts[1]: must be a string, got an integer'],
    [{ exposeErrors: 1 }, 'server.exposeErrors: must be true or false, got an integer'],
    [{ requestTimeout: -1 }, 'server.requestTimeout: must be an integer from 0 to 2147483647'],
    [{ hsts: 'on' }, 'server.hsts: must be a boolean or a mapping, got a string'],
  ])('refuses %j', (server, problem) => {
    const message = `profile has 1 problem:\n- ${problem}`;
    expect(() => createApp({ server: { lib, ...server, endpoints: [{ path: '/big', handler: 'big' }] } })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message }));
  });
});
