import { createApp } from '../../src';
import { leaveAfter as leaveEarly } from '../support/activity';
import { call } from '../support/http';
import { kinds, resourceConfig, type Kind, digitsTable } from '../support/servers';


/** 10,000 rows (more than every buffer between the driver and the socket), after a 0.3 s wait. */
const slowRowsSql: Record<Kind, string> = {
  mysql: `SELECT z.s, a.d * 1000 + b.d * 100 + c.d * 10 + e.d AS n FROM (SELECT SLEEP(0.3) AS s) z, ${digitsTable} a, ${digitsTable} b, ${digitsTable} c, ${digitsTable} e`,
  postgres: 'SELECT z.s::text AS s, n FROM (SELECT pg_sleep(0.3) AS s) z, generate_series(0, 9999) AS n',
};

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe.each(kinds)('%s list, client gone while the query runs', (kind: Kind) => {
  it('frees the connection and lets the host stop', async () => {
    const pool = kind === 'mysql' ? { connectionLimit: 1 } : { max: 1 };
    const app = createApp({
      resources: { db: resourceConfig(kind, pool, { keepAliveInterval: 0 }) },
      server: {
        endpoints: [
          { path: '/slow-rows', endpoint: 'list', resource: 'db', sql: slowRowsSql[kind] },
          { path: '/one', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS one' },
        ],
      },
    });
    await app.start({ port: 0 });
    let stopped = false;
    try {
      // The client leaves before the first row: the answer is sent to a closed socket.
      await leaveEarly(app, '/slow-rows', 100);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The only pooled connection must be back, and nothing left in flight.
      const answer = await within(call(app, 'GET', '/one'), 5000, 'a request after the client left');
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ code: 'ok', total: 1 });
      await within(app.stop(), 5000, 'app.stop()');
      stopped = true;
    } finally {
      if (!stopped) void app.stop();
    }
  });
});
