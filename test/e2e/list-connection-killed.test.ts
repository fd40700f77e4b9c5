import { request } from 'node:http';
import { stringify } from 'yaml';
import { spawnCli, waitForLine } from '../support/cli';
import { profileFiles } from '../support/profile-files';
import { kinds, rawQuery, resourceConfig, type Kind } from '../support/servers';

/**
 * A database server that ends a connection while a list streams from it (a restart, a KILL, an
 * administrator's pg_terminate_backend) ends that list's answer, and nothing else: the host keeps
 * running and answering. Served by the CLI in a process of its own, so that an uncaught error
 * (an 'error' event nobody listens to) would end it, as it would end a real host.
 */
describe.each(kinds)('%s: a connection ended by the server under a streaming list', (kind: Kind) => {
  const files = profileFiles('sr-killed-list-');
  const marker = `sr_killed_list_${process.pid}_${kind}`;
  // Slow enough per row that the list is still streaming when its connection is ended.
  const listSql =
    kind === 'mysql'
      ? `SELECT SLEEP(0.001) AS s, seq AS n, '${marker}' AS m FROM seq_1_to_20000`
      : `SELECT pg_sleep(0.001) AS s, n, '${marker}' AS m FROM generate_series(1, 20000) AS n`;
  const endConnection = async (): Promise<number> => {
    if (kind === 'postgres') {
      const ended = await rawQuery(kind, `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE query LIKE '%${marker}%' AND pid <> pg_backend_pid()`);
      return ended.length;
    }
    const running = await rawQuery(kind, `SELECT id FROM information_schema.processlist WHERE info LIKE '%${marker}%' AND info NOT LIKE '%processlist%'`);
    for (const { id } of running) await rawQuery(kind, `KILL ${Number(id)}`);
    return running.length;
  };

  it('ends that answer, and the host goes on answering', async () => {
    const profile = files.write(
      stringify({
        name: 'killed-list',
        resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0, streamBatchSize: 50 }) },
        server: { endpoints: [{ path: '/slow', endpoint: 'list', resource: 'db', sql: listSql }, { path: '/up', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS up' }] },
      }),
    );
    const child = spawnCli(['serve', profile, '--port', '0']);
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/\S+)/);
      // The answer has begun (its first batches are sent) when the server ends the connection.
      const body = await new Promise<{ received: number; ended: Promise<string> }>((resolve, reject) => {
        request(`${url}/slow`, (response) => {
          let received = 0;
          const ended = new Promise<string>((done) => {
            response.on('end', () => done('end'));
            response.on('error', () => done('error'));
            response.on('close', () => done('close'));
          });
          response.once('data', (chunk: Buffer) => {
            received += chunk.length;
            resolve({ received, ended });
          });
          response.on('data', (chunk: Buffer) => (received += chunk.length));
        })
          .on('error', reject)
          .end();
      });
      expect(body.received).toBeGreaterThan(0);
      expect(await endConnection()).toBe(1);
      // The body stops short of its 20,000 rows: the host cut it when the statement failed.
      expect(['error', 'close', 'end']).toContain(await body.ended);
      const up = await fetch(`${url}/up`);
      expect([up.status, await up.json()]).toEqual([200, { code: 'ok', message: 'list /up', data: [{ up: 1 }], total: 1 }]);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
    }
  });
});
