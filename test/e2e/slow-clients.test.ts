import { connect, type Socket } from 'node:net';
import { createApp, type App } from '../../src';
import { leaveAfter, runningStatements as running, waitUntil } from '../support/activity';
import { call } from '../support/http';
import { fillNumbersSql, kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A client that asks for `path` and never reads the answer; resolves once the request is sent. */
function neverReads(app: App, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: app.address()?.port as number }, () => {
      socket.pause();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, () => resolve(socket));
    });
    socket.on('error', reject);
    // A small receive buffer makes the answer stall sooner.
    socket.setNoDelay(true);
  });
}

const sleepSql: Record<Kind, (tag: string) => string> = {
  mysql: (tag) => `SELECT SLEEP(5) AS slept, '${tag}' AS tag`,
  postgres: (tag) => `SELECT pg_sleep(5)::text AS slept, '${tag}' AS tag`,
};

describe.each(kinds)('%s: slow and gone clients', (kind: Kind) => {
  const numbers = uniqueName('sr_many');
  const tag = `slow_${kind}_${process.pid}`;
  let app: App;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, numbers)} (n INT PRIMARY KEY, pad VARCHAR(40) DEFAULT 'abcdefghijklmnopqrstuvwxyz0123456789')`);
    await rawQuery(kind, fillNumbersSql(kind, q(kind, numbers), 200_000));
    app = createApp({
      resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
      server: {
        // No writeTimeout: a reader that never reads keeps its stream until it leaves, so a point read
        // that waited for one would never answer.
        writeTimeout: 0,
        endpoints: [
          { path: '/sleep-list', endpoint: 'list', resource: 'db', sql: sleepSql[kind](`${tag}_list`) },
          { path: '/sleep-one', endpoint: 'readOne', resource: 'db', sql: sleepSql[kind](`${tag}_one`) },
          { path: '/many', endpoint: 'list', resource: 'db', sql: `SELECT n, pad FROM ${q(kind, numbers)} ORDER BY n` },
          { path: '/numbers/:id', endpoint: 'readOne', resource: 'db', table: numbers, id_field: 'n' },
        ],
      },
    });
    await app.start({ port: 0 });
  }, 60_000);

  afterAll(async () => {
    await app.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, numbers)}`);
  });

  it.each(['list', 'one'])('a client that leaves 50 ms into a 5 s query (%s) has it cancelled within 1 s', async (which) => {
    const statementTag = `${tag}_${which}`;
    await leaveAfter(app, `/sleep-${which}`, 50);
    expect(await waitUntil(async () => (await running(kind, statementTag)) === 0, 1000)).toBe(true);
    expect((await call(app, 'GET', '/numbers/7')).body.data).toEqual({ n: 7, pad: 'abcdefghijklmnopqrstuvwxyz0123456789' });
  });

  it('12 clients that never read a 200,000-row list do not hold up 100 point reads', async () => {
    const stalled = await Promise.all(Array.from({ length: 12 }, () => neverReads(app, '/many')));
    try {
      await pause(300);
      const answered: number[] = [];
      for (let batch = 0; batch < 10; batch++) {
        await Promise.all(
          Array.from({ length: 10 }, async (_, index) => {
            const id = batch * 10 + index + 1;
            const answer = await call(app, 'GET', `/numbers/${id}`);
            expect(answer.status).toBe(200);
            expect((answer.body.data as { n: number }).n).toBe(id);
            answered.push(id);
          }),
        );
      }
      expect(answered.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  }, 30_000);

  it('an answer that makes no progress for server.writeTimeout is cut, and its stream slot comes back', async () => {
    // A pool of 3 keeps 2 connections back: one stream at a time.
    const narrow = createApp({
      resources: { db: resourceConfig(kind, kind === 'mysql' ? { connectionLimit: 3 } : { max: 3 }, { keepAliveInterval: 0 }) },
      server: { writeTimeout: 1500, endpoints: [{ path: '/many', endpoint: 'list', resource: 'db', sql: `SELECT n, pad FROM ${q(kind, numbers)} ORDER BY n` }] },
    });
    await narrow.start({ port: 0 });
    const stalled = await neverReads(narrow, '/many');
    try {
      await pause(200);
      const askedAt = Date.now();
      // Waits for the only stream slot, which the stalled reader holds until writeTimeout cuts it.
      const answer = await call(narrow, 'GET', '/many');
      expect(answer.body.total).toBe(200_000);
      expect(Date.now() - askedAt).toBeGreaterThanOrEqual(1000);
    } finally {
      stalled.destroy();
      await narrow.stop();
    }
  }, 30_000);
});
