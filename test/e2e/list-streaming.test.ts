import { createApp, type App } from '../../src';
import { call } from '../support/http';
import { digitsTable, fillNumbersSql, kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

/** Rows a list reads before it answers: two batches of 200. */
const readBeforeAnswer = 400;

describe.each(kinds)('%s list: small results whole, long ones streamed', (kind: Kind) => {
  const numbers = uniqueName('sr_numbers');
  let app: App;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, numbers)} (n INT PRIMARY KEY)`);
    await rawQuery(kind, fillNumbersSql(kind, q(kind, numbers), 1000));
    app = createApp({
      resources: {
        db: resourceConfig(kind, {}, { keepAliveInterval: 0 }),
        pairs: resourceConfig(kind, {}, { keepAliveInterval: 0, streamBatchSize: 2 }),
      },
      server: {
        endpoints: [
          { path: '/numbers', endpoint: 'list', resource: 'db', sql: `SELECT n FROM ${q(kind, numbers)} WHERE n <= {{count}} ORDER BY n` },
          { path: '/numbers-in-pairs', endpoint: 'list', resource: 'pairs', sql: `SELECT n FROM ${q(kind, numbers)} WHERE n <= {{count}} ORDER BY n` },
          // The subquery finds ten rows where n = at: the statement fails at that row, after sending the ones before it
          // (no ORDER BY, so nothing is sorted first; both servers scan this freshly filled table in n order).
          {
            path: '/failing',
            endpoint: 'list',
            resource: 'db',
            sql: `SELECT n, (SELECT d FROM ${digitsTable} AS digits WHERE n = {{at}}) AS boom FROM ${q(kind, numbers)}`,
          },
        ],
      },
    });
    await app.start({ port: 0 });
  });

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, numbers)}`);
  });

  const oneToN = (count: number): { n: number }[] => Array.from({ length: count }, (_, index) => ({ n: index + 1 }));

  it.each([0, 1, 199, 200])('answers %i rows whole, with a Content-Length', async (count) => {
    const answer = await call(app, 'GET', `/numbers?count=${count}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(answer.text)));
    expect(answer.headers.get('transfer-encoding')).toBeNull();
    expect(answer.body).toEqual({ code: 'ok', message: `list /numbers`, data: oneToN(count), total: count });
  });

  it.each([201, 400, 401, 1000])('streams %i rows chunked, in the same envelope', async (count) => {
    const answer = await call(app, 'GET', `/numbers?count=${count}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('transfer-encoding')).toBe('chunked');
    expect(answer.headers.get('content-length')).toBeNull();
    expect(answer.body).toEqual({ code: 'ok', message: `list /numbers`, data: oneToN(count), total: count });
    expect(answer.text).toBe(JSON.stringify(answer.body));
  });

  it('follows the resource\'s streamBatchSize: whole up to one batch, streamed past it', async () => {
    for (const count of [1, 2, 3, 9]) {
      const answer = await call(app, 'GET', `/numbers-in-pairs?count=${count}`);
      expect(answer.body).toEqual({ code: 'ok', message: `list /numbers-in-pairs`, data: oneToN(count), total: count });
      expect(answer.headers.get('transfer-encoding')).toBe(count > 2 ? 'chunked' : null);
    }
  });

  it.each([1, 150, 350])('answers an error status when the query fails at row %i, before the answer starts', async (at) => {
    const answer = await call(app, 'GET', `/failing?at=${at}`);
    expect(answer.status).toBe(500);
    expect(answer.body.code).toBe('nok');
    // 5xx messages are generic; the database's words are in the log under the request id.
    expect(answer.body).toMatchObject({ error: 'DB_ERROR', message: expect.stringMatching(/^internal error \(request \S+\)$/) });
    expect((await call(app, 'GET', '/numbers?count=3')).body.data).toEqual(oneToN(3));
  });

  it('cuts the body when the query fails after the answer has started, and stays usable', async () => {
    const at = readBeforeAnswer + 300;
    const response = await fetch(`http://127.0.0.1:${app.address()?.port}/failing?at=${at}`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow('terminated');
    expect((await call(app, 'GET', '/numbers?count=3')).body.data).toEqual(oneToN(3));
  });
});
