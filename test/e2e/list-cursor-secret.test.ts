import { createApp, SqlResourceError, type App, type Profile } from '../../src';
import { startedApps } from '../support/apps';
import { call } from '../support/http';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

/**
 * `server.cursorSecret` (SPEC §6, several hosts behind one address): hosts that share it accept
 * each other's cursors; a host with another key, or none, refuses them with a 400. The secret
 * never appears in the error a profile with a short one gets.
 */
const sharedSecret = 'cursor-secret-shared-by-two-hosts-0123456789';

describe.each(kinds)('%s list cursors across hosts', (kind: Kind) => {
  const table = uniqueName('sr_cursor_hosts');
  const apps = startedApps();

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id INT NOT NULL PRIMARY KEY, name VARCHAR(20) NOT NULL)`);
    await rawQuery(kind, `INSERT INTO ${q(kind, table)} (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')`);
  });

  afterAll(async () => {
    await apps.stopAll();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  const profile = (cursorSecret?: string): Profile => ({
    resources: { db: { _class: kind, ...resourceConfig(kind) } },
    server: {
      ...(cursorSecret === undefined ? {} : { cursorSecret }),
      endpoints: [{ path: '/names', endpoint: 'list', resource: 'db', table, page: { defaultLimit: 2 } }],
    },
  });

  const ids = (data: unknown): unknown[] => (data as { id: unknown }[]).map((row) => row.id);

  it('a cursor of one host pages on another with the same cursorSecret, and is refused by a host with another key or none', async () => {
    const first = await apps.start(profile(sharedSecret));
    const second = await apps.start(profile(sharedSecret));
    const other = await apps.start(profile('another-cursor-secret-of-at-least-32-bytes'));
    const none: App = await apps.start(profile());
    const page1 = await call(first, 'GET', '/names');
    expect(ids(page1.body.data)).toEqual([1, 2]);
    const next = (page1.body as { page?: { next?: string } }).page?.next as string;
    expect(next).toMatch(/^\/names\?limit=2&after=/);
    const onSecond = await call(second, 'GET', next);
    expect({ status: onSecond.status, ids: ids(onSecond.body.data) }).toEqual({ status: 200, ids: [3, 4] });
    for (const host of [other, none]) {
      const refused = await call(host, 'GET', next);
      expect({ status: refused.status, error: refused.body.error, field: refused.body.field }).toEqual({ status: 400, error: 'INVALID_PARAMETER', field: 'after' });
    }
  });

  it('takes the secret from the environment, and refuses a short one without showing it', async () => {
    const short = 'short-secret-9f8e7d';
    let refusal: unknown;
    try {
      createApp(profile(short));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(SqlResourceError);
    expect((refusal as SqlResourceError).message).toBe("profile has 1 problem:\n- server.cursorSecret: must be a string of at least 32 bytes (usually {{ENV}})");
    expect(JSON.stringify({ message: (refusal as Error).message, cause: String((refusal as Error).cause) })).not.toContain(short);

    process.env.SR_TEST_CURSOR_SECRET = sharedSecret;
    try {
      const fromEnv = await apps.start(profile('{{SR_TEST_CURSOR_SECRET}}'));
      const literal = await apps.start(profile(sharedSecret));
      const next = ((await call(fromEnv, 'GET', '/names')).body as { page?: { next?: string } }).page?.next as string;
      expect(ids((await call(literal, 'GET', next)).body.data)).toEqual([3, 4]);
    } finally {
      delete process.env.SR_TEST_CURSOR_SECRET;
    }
  });
});
