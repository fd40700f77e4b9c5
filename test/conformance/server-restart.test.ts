import { ResourceManager } from '../../src/resource-manager';
import type { SqlResource } from '../../src';
import { startServer, stopServer } from '../support/server-control';
import { kinds, resourceConfig, type Kind } from '../support/servers';

describe.each(kinds)('%s resource across a server restart', (kind: Kind) => {
  let resource: SqlResource;

  beforeAll(async () => {
    resource = new ResourceManager().add('restart', resourceConfig(kind, { connectTimeout: 3000 }, { keepAliveInterval: 0 }));
    resource.on('error', () => undefined);
    await resource.start();
  });

  afterAll(async () => {
    await startServer(kind);
    await resource.stop();
  });

  it('fails clearly while the server is down and succeeds once it is back, in the same process', async () => {
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await stopServer(kind);
    const down = await resource.query('SELECT 1 AS one').catch((error: unknown) => error);
    expect(down).toMatchObject({ code: 'DB_UNAVAILABLE', statusCode: 503 });
    expect((down as Error).message).toMatch(/^query failed: /);
    await startServer(kind);
    // The pool may still hold a connection that died with the old server: one call may fail.
    let answer: unknown;
    for (let attempt = 0; attempt < 3 && answer === undefined; attempt += 1) {
      answer = await resource.query('SELECT 1 AS one').catch(() => undefined);
    }
    expect(answer).toEqual([{ one: 1 }]);
    expect(await resource.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
  }, 120_000);
});
