import { PostgresResource, withRequestClaims, type Executor, type SqlResource } from '../../src';
import { fromDriverError } from '../../src/errors';
import { SessionExecutor } from '../../src/executors/session-executor';
import { ResourceManager } from '../../src/resource-manager';
import { runningStatements as running, waitUntil } from '../support/activity';
import { createRowLevelSecurity, dropRowLevelSecurity, type RowLevelSecurity } from '../support/row-level-security';
import { kinds, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

/**
 * `requestClaims: true` (SPEC §7) against a real PostgreSQL with a real row-level security
 * policy. The test server's users are superusers, which bypass RLS even with FORCE: the resource
 * connects as a login role of its own, NOINHERIT, that holds no privilege on the table and is a
 * member of `reader`, which does. Statements can reach the table only as `reader`, through
 * `roleClaim`, so each passing read also proves the role was switched.
 */

const table = uniqueName('rls_rows');
/** A table granted to no role of the test: every statement on it is refused (42501). */
const hidden = uniqueName('rls_hidden');
const login = uniqueName('sr_rls_login');
const reader = uniqueName('sr_rls_reader');
const outsider = uniqueName('sr_rls_outsider');
const tenantOf = "(nullif(current_setting('request.jwt.claims', true), '')::json->>'tenant')::int";
const rls: RowLevelSecurity = {
  table,
  login,
  reader,
  others: [outsider],
  columns: 'tenant_id INT NOT NULL, label TEXT NOT NULL',
  policy: `tenant_id = ${tenantOf}`,
};

const tenant = (id: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ sub: `user-${id}`, tenant: id, db_role: reader, ...extra });
type Session = { claims: string | null; user: string; inTransaction: boolean };

/**
 * What a statement of `resource` finds: the claims setting (one set locally once reads '' after
 * its transaction: null here), its role, and whether it runs inside a transaction block, which
 * only a SAVEPOINT tells (25P01 outside one).
 */
async function sessionOf(resource: SqlResource): Promise<Session> {
  const [row] = await resource.select<Session>(`SELECT current_setting('request.jwt.claims', true) AS claims, current_user AS "user"`);
  const inTransaction = await resource.execute('SAVEPOINT sr_probe').then(
    () => true,
    (error: { sqlState?: string }) => {
      if (error.sqlState === '25P01') return false;
      throw error;
    },
  );
  return { claims: row.claims || null, user: row.user, inTransaction };
}

const labels = (rows: { label: string }[]): string[] => rows.map((row) => row.label).sort();

describe('postgres: requestClaims hands the verified claims to row-level security', () => {
  let db: SqlResource;
  let plain: SqlResource;
  let asLogin: SqlResource;

  beforeAll(async () => {
    await createRowLevelSecurity(rls);
    await rawQuery('postgres', `INSERT INTO "${table}" (tenant_id, label) VALUES (1, 'one-a'), (1, 'one-b'), (2, 'two-a'), (2, 'two-b')`);
    await rawQuery('postgres', `INSERT INTO "${table}" (tenant_id, label) SELECT 1 + n % 2, 'bulk-' || n FROM generate_series(1, 10) AS n`);
    await rawQuery('postgres', `CREATE TABLE "${hidden}" (id SERIAL PRIMARY KEY, label TEXT NOT NULL)`);
    await rawQuery('postgres', `INSERT INTO "${hidden}" (label) VALUES ('a'), ('b'), ('c')`);
    const resources = new ResourceManager();
    // One connection: each test also shows what the next user of that connection finds.
    db = resources.add('db', resourceConfig('postgres', { user: login, max: 1 }, { requestClaims: true, roleClaim: 'db_role', streamBatchSize: 2 }));
    plain = resources.add('plain', resourceConfig('postgres', { max: 1 }));
    // The same login role, without requestClaims.
    asLogin = resources.add('asLogin', resourceConfig('postgres', { user: login, max: 1 }, { streamBatchSize: 2 }));
    await Promise.all([db.start(), plain.start(), asLogin.start()]);
  });

  afterAll(async () => {
    await Promise.all([db?.stop(), plain?.stop(), asLogin?.stop()]);
    await rawQuery('postgres', `DROP TABLE IF EXISTS "${hidden}"`);
    await dropRowLevelSecurity(rls);
  });

  it('reads only the rows of the tenant in the claims, as the role of roleClaim', async () => {
    const rows = await withRequestClaims(tenant(1), () => db.query<{ label: string }>(`SELECT label FROM "${table}" WHERE label LIKE 'one-%' OR label LIKE 'two-%'`));
    expect(labels(rows as { label: string }[])).toEqual(['one-a', 'one-b']);
    const [twoA] = await rawQuery('postgres', `SELECT id FROM "${table}" WHERE label = 'two-a'`);
    await withRequestClaims(tenant(1), async () => {
      expect(await db.read(table, { id: twoA.id as number })).toEqual([]);
      expect(await db.read(table, { label: 'one-a' })).toMatchObject([{ tenant_id: 1, label: 'one-a' }]);
    });
    const session = await withRequestClaims(tenant(2), () => sessionOf(db));
    expect({ ...session, claims: JSON.parse(session.claims ?? 'null') as unknown }).toEqual({ claims: tenant(2), user: reader, inTransaction: true });
  });

  it('streams (the list endpoint) only the tenant\'s rows, in batches, in one transaction', async () => {
    const batches: { label: string; tenant_id: number }[][] = [];
    await withRequestClaims(tenant(2), async () => {
      for await (const batch of db.streamBatches<{ label: string; tenant_id: number }>(`SELECT label, tenant_id FROM "${table}" WHERE label LIKE 'bulk-%' ORDER BY id`)) batches.push(batch);
    });
    expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
    expect(batches.flat().map((row) => row.label)).toEqual(['bulk-1', 'bulk-3', 'bulk-5', 'bulk-7', 'bulk-9']);
    // Committed and pooled again: the next statement finds no setting and no transaction.
    expect(await sessionOf(db)).toEqual({ claims: null, user: login, inTransaction: false });
  });

  it('inserts, updates and deletes only the tenant\'s rows; a row of another tenant is refused (403)', async () => {
    const [twoB] = await rawQuery('postgres', `SELECT id FROM "${table}" WHERE label = 'two-b'`);
    await withRequestClaims(tenant(1), async () => {
      const inserted = await db.insert<{ id: number; tenant_id: number; label: string }>(table, { tenant_id: 1, label: 'one-new' });
      expect(inserted).toMatchObject({ tenant_id: 1, label: 'one-new' });
      await expect(db.insert(table, { tenant_id: 2, label: 'smuggled' })).rejects.toMatchObject({ code: 'FORBIDDEN', statusCode: 403, sqlState: '42501' });
      expect(await db.updateOne(table, { label: 'one-renamed' }, { id: inserted.id })).toMatchObject({ id: inserted.id, label: 'one-renamed' });
      expect(await db.updateOne(table, { label: 'taken-over' }, { id: twoB.id as number })).toBeUndefined();
      // Moving a row of one's own to another tenant fails WITH CHECK.
      await expect(db.updateOne(table, { tenant_id: 2 }, { id: inserted.id })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect(await db.deleteOne(table, { id: twoB.id as number })).toEqual({ affectedRows: 0 });
      expect(await db.deleteOne(table, { id: inserted.id })).toEqual({ affectedRows: 1 });
      expect(await db.update(table, { label: 'everything' }, { tenant_id: 2 })).toEqual({ affectedRows: 0 });
    });
    const rows = await rawQuery('postgres', `SELECT tenant_id, label FROM "${table}" WHERE label NOT LIKE 'bulk-%' ORDER BY label`);
    expect(rows).toEqual([
      { tenant_id: 1, label: 'one-a' },
      { tenant_id: 1, label: 'one-b' },
      { tenant_id: 2, label: 'two-a' },
      { tenant_id: 2, label: 'two-b' },
    ]);
  });

  it('binds the claims and the role: SQL in a claim is only text', async () => {
    const hostile = "'; DROP TABLE t; --";
    const claims = tenant(1, { name: hostile, [`x", "tenant": 2, "y`]: `"); DROP TABLE "${table}"; --` });
    const [row] = await withRequestClaims(claims, () => db.select<{ name: string; tenant: string }>(`SELECT current_setting('request.jwt.claims', true)::json->>'name' AS name, ${tenantOf}::text AS tenant`));
    expect(row).toEqual({ name: hostile, tenant: '1' });
    // No such role (22023): the claims are at fault, and the client is not told the name back.
    const noSuchRole = await withRequestClaims(tenant(1, { db_role: `${reader}"; DROP TABLE "${table}"; --` }), () => db.query('SELECT 1')).catch((error: unknown) => error);
    expect(noSuchRole).toMatchObject({ code: 'FORBIDDEN', statusCode: 403, sqlState: '22023', clientMessage: 'setting the claims of the request failed: the caller may not do this (role, claim or row-level policy) (22023)' });
    expect(await rawQuery('postgres', `SELECT count(*)::int AS n FROM "${table}"`)).toEqual([{ n: 14 }]);
  });

  it('a role the connection user may not assume is FORBIDDEN, and leaves no transaction nor setting behind', async () => {
    const asOutsider = tenant(1, { db_role: outsider });
    await expect(withRequestClaims(asOutsider, () => db.read(table, { label: 'one-a' }))).rejects.toMatchObject({ code: 'FORBIDDEN', statusCode: 403, sqlState: '42501' });
    await expect(withRequestClaims(asOutsider, () => db.updateOne(table, { label: 'x' }, { label: 'one-a' }))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const stream = withRequestClaims(asOutsider, () => db.streamBatches(`SELECT label FROM "${table}"`));
    await expect(withRequestClaims(asOutsider, () => stream.next())).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await sessionOf(db)).toEqual({ claims: null, user: login, inTransaction: false });
  });

  it('fails closed: a role claim absent, empty, no role name, none or default is FORBIDDEN before any statement', async () => {
    const absent = "the caller's credential has no role claim 'db_role', which this resource needs (roleClaim)";
    const notARole = "the role claim 'db_role' is not a role name (a non-empty string)";
    const reset = "the role claim 'db_role' may not reset the role to the connection user's (none, default)";
    const refusals: [Record<string, unknown>, string][] = [
      [{ tenant: 1 }, absent],
      [tenant(1, { db_role: null }), absent],
      [tenant(1, { db_role: '' }), absent],
      [tenant(1, { db_role: ['admin'] }), notARole],
      [tenant(1, { db_role: `${reader}\0` }), notARole],
      ...['none', 'NONE', 'None', 'default', 'DEFAULT'].map((role): [Record<string, unknown>, string] => [tenant(1, { db_role: role }), reset]),
    ];
    for (const [claims, message] of refusals) {
      const outcomes = await withRequestClaims(claims, () =>
        Promise.all([
          db.read(table, { label: 'one-a' }).catch((error: unknown) => error),
          db.updateOne(table, { label: 'x' }, { label: 'one-a' }).catch((error: unknown) => error),
          db.streamBatches(`SELECT label FROM "${table}"`).next().catch((error: unknown) => error),
        ]),
      );
      // No sqlState: refused here, before the database saw a statement.
      for (const outcome of outcomes) expect(outcome).toEqual(expect.objectContaining({ code: 'FORBIDDEN', statusCode: 403, message, sqlState: undefined }));
    }
    expect(await sessionOf(db)).toEqual({ claims: null, user: login, inTransaction: false });
    // What the check keeps out: PostgreSQL takes `none` for RESET ROLE, back to the login role.
    const [row] = await rawQuery('postgres', `SELECT set_config('role', 'none', false) AS role, current_user AS "user"`);
    expect(row).toEqual({ role: 'none', user: 'postgres' });
  });

  it('refuses claims holding an integer past 2^53 before any statement: JSON.parse rounded it to another tenant', async () => {
    const rounded = JSON.parse('{"tenant":9007199254740993}') as { tenant: number };
    expect(rounded.tenant).toBe(2 ** 53);
    for (const [claims, path] of [
      [tenant(1, rounded), 'tenant'],
      [tenant(1, { orgs: [{ id: rounded.tenant }] }), 'orgs.0.id'],
    ] as const) {
      await expect(withRequestClaims(claims, () => db.query('SELECT 1'))).rejects.toEqual(
        expect.objectContaining({
          code: 'FORBIDDEN',
          statusCode: 403,
          message: `the caller's claim '${path}' is an integer past 2^53, which a JSON number cannot hold exactly: issue it as a string`,
          sqlState: undefined,
        }),
      );
    }
    // Issued as a string it stays exact, and reaches the policy as it is.
    const [row] = await withRequestClaims(tenant(1, { big: '9007199254740993' }), () => db.select<{ big: string }>("SELECT current_setting('request.jwt.claims', true)::json->>'big' AS big"));
    expect(row.big).toBe('9007199254740993');
  });

  it('insufficient privilege (42501) is FORBIDDEN under the claims of a request only: without requestClaims it is a 500', async () => {
    // The login role holds no privilege on either table: on a resource without requestClaims, a grant the server lacks.
    const withoutClaims = await Promise.all([
      asLogin.read(table, { label: 'one-a' }).catch((error: unknown) => error),
      asLogin.updateOne(hidden, { label: 'x' }, { id: 1 }).catch((error: unknown) => error),
      asLogin.streamBatches(`SELECT label FROM "${hidden}"`).next().catch((error: unknown) => error),
      // Claims change nothing on such a resource.
      withRequestClaims(tenant(1), () => asLogin.query(`SELECT label FROM "${hidden}"`)).catch((error: unknown) => error),
    ]);
    for (const outcome of withoutClaims) expect(outcome).toMatchObject({ code: 'DB_ERROR', statusCode: 500, sqlState: '42501' });
    expect(withoutClaims[0]).toMatchObject({ clientMessage: `read on ${table} failed: database error (42501)` });
    // The same refusal under the claims of a request, on each path: a statement, a transaction, a stream.
    const denied = {
      code: 'FORBIDDEN',
      statusCode: 403,
      sqlState: '42501',
      clientMessage: 'running the statement under the claims of the request failed: the caller may not do this (role, claim or row-level policy) (42501)',
    };
    await withRequestClaims(tenant(1), async () => {
      await expect(db.query(`SELECT label FROM "${hidden}"`)).rejects.toMatchObject({ ...denied, message: `running the statement under the claims of the request failed: permission denied for table ${hidden} (42501)` });
      await expect(db.updateOne(hidden, { label: 'x' }, { id: 1 })).rejects.toMatchObject(denied);
      await expect(db.streamBatches(`SELECT label FROM "${hidden}"`).next()).rejects.toMatchObject(denied);
      // Refused at a later row (query_to_xml runs its query only there): the stream fails after its first batches.
      const batches: unknown[] = [];
      const late = (async () => {
        const sql = `SELECT label, CASE WHEN label = 'bulk-10' THEN query_to_xml('SELECT 1 FROM "${hidden}"', false, false, '') END AS n FROM "${table}" WHERE label LIKE 'bulk-%' ORDER BY id`;
        for await (const batch of db.streamBatches(sql)) batches.push(batch);
      })();
      await expect(late).rejects.toMatchObject(denied);
      expect(batches).toHaveLength(2);
      // Other errors keep their code.
      await expect(db.query('SELECT * FROM sr_no_such_table')).rejects.toMatchObject({ code: 'DB_ERROR', sqlState: '42P01' });
    });
    expect(await sessionOf(db)).toEqual({ claims: null, user: login, inTransaction: false });
    expect(await rawQuery('postgres', `SELECT label FROM "${hidden}" ORDER BY id`)).toEqual([{ label: 'a' }, { label: 'b' }, { label: 'c' }]);
  });

  it("only the claims' own faults in setting them are FORBIDDEN: a statement timeout is not", async () => {
    // The settings of a request are quick: a slow one stands in for a server under load.
    const slow = new SessionExecutor(plain.adapter, [
      { sql: "SET LOCAL statement_timeout = '50ms'", values: [] },
      { sql: 'SELECT pg_sleep(2)', values: [] },
    ]);
    const timedOut = await slow.run('SELECT 1', []).catch((error: unknown) => error);
    expect(timedOut).toMatchObject({ code: '57014' });
    expect(fromDriverError('query', timedOut)).toMatchObject({ code: 'DB_ERROR', statusCode: 500 });
    // Rolled back, and the connection serves the next statement outside any transaction.
    expect(await sessionOf(plain)).toMatchObject({ inTransaction: false });
  });

  it('outside withRequestClaims, statements run as before: no setting, no role, no transaction', async () => {
    expect(await sessionOf(db)).toEqual({ claims: null, user: login, inTransaction: false });
    // Without claims, the login role's missing privilege is the server's, as on any resource.
    await expect(db.read(table, { label: 'one-a' })).rejects.toMatchObject({ code: 'DB_ERROR', statusCode: 500, sqlState: '42501' });
    // A resource without requestClaims ignores the claims of the request it serves.
    expect(await withRequestClaims(tenant(1), () => sessionOf(plain))).toMatchObject({ claims: null, inTransaction: false });
  });

  it('keeps each concurrent request\'s claims apart', async () => {
    const seen = await Promise.all(
      [1, 2, 1, 2, 2, 1].map((id) =>
        withRequestClaims(tenant(id), async () => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
          const rows = await db.read<{ tenant_id: number; label: string }>(table, { label: id === 1 ? 'one-a' : 'two-a' });
          return rows.map((row) => row.tenant_id);
        }),
      ),
    );
    expect(seen).toEqual([[1], [2], [1], [2], [2], [1]]);
  });

  it('cancels a statement of a request whose caller left, and the pool stays healthy', async () => {
    const tag = `rls_cancel_${Date.now()}`;
    const controller = new AbortController();
    const outcome = withRequestClaims(tenant(1), () => db.query(`SELECT pg_sleep(5), '${tag}' AS tag`, [], { signal: controller.signal })).catch((error: unknown) => error);
    expect(await waitUntil(async () => (await running('postgres', tag)) === 1, 2000)).toBe(true);
    controller.abort();
    expect(await waitUntil(async () => (await running('postgres', tag)) === 0, 1000)).toBe(true);
    expect(await outcome).toMatchObject({ sqlState: '57014' });
    expect(await withRequestClaims(tenant(1), () => db.read(table, { label: 'one-a' }))).toHaveLength(1);
    expect(await sessionOf(db)).toEqual({ claims: null, user: login, inTransaction: false });
  });
});

describe('requestClaims is a postgres setting', () => {
  const server = { host: '127.0.0.1', database: 'test' };

  it.each<[string, Record<string, unknown>, string]>([
    ['a string', { requestClaims: 'yes' }, "resource 'db': requestClaims must be true or false"],
    ['roleClaim without requestClaims', { roleClaim: 'db_role' }, "resource 'db': roleClaim needs requestClaims: true"],
    ['an empty roleClaim', { requestClaims: true, roleClaim: '' }, "resource 'db': roleClaim must be a claim name (a non-empty string)"],
  ])('refuses %s', (_label, options, message) => {
    expect(() => new PostgresResource('db', { _class: 'postgres', server, ...options })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message }) as Error);
  });

  it('is refused on a mysql resource, which has no such session settings', () => {
    expect(() => new ResourceManager().add('db', { _class: 'mysql', server, requestClaims: true })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: "resource 'db': requestClaims is not available on mysql resources (a setting of postgres resources only)" }) as Error,
    );
    expect(new PostgresResource('db', { _class: 'postgres', server, requestClaims: true }).requestClaims).toBe(true);
    expect(new PostgresResource('db', { _class: 'postgres', server }).requestClaims).toBe(false);
  });
});

/** The adapter seam under it, on both kinds: a stream whose setup runs first in its transaction; a cancellable statement in a transaction. */
describe.each(kinds)('%s: the adapter under requestClaims', (kind: Kind) => {
  let resource: SqlResource;
  const setupSql = kind === 'mysql' ? 'SET @sr_setup = ?' : "SELECT set_config('sr.setup', $1, true)";
  const setup = async (executor: Executor): Promise<void> => void (await executor.run(setupSql, ['set up']));
  // A local setting (postgres) outlives its statement only inside a transaction block.
  const probe = kind === 'mysql' ? 'SELECT @sr_setup AS setup, @@in_transaction AS open FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) n' : "SELECT current_setting('sr.setup', true) AS setup, true AS open FROM generate_series(1, 4)";
  const after = kind === 'mysql' ? 'SELECT @@in_transaction AS open' : "SELECT current_setting('sr.setup', true) = 'set up' AS open";

  beforeAll(async () => {
    resource = new ResourceManager().add('db', resourceConfig(kind, kind === 'mysql' ? { connectionLimit: 1 } : { max: 1 }, { keepAliveInterval: 0 }));
    await resource.start();
  });

  afterAll(async () => {
    await resource.stop();
  });

  it('runs them on its connection, in one transaction committed at the end', async () => {
    const batches: Record<string, unknown>[][] = [];
    for await (const batch of resource.adapter.stream(probe, [], 2, undefined, setup)) batches.push(batch);
    // A result that fills its last batch exactly: the end is read after the reader resumed it.
    expect(batches.map((batch) => batch.length)).toEqual([2, 2]);
    expect(batches.flat().map((row) => [row.setup, Boolean(Number(row.open))])).toEqual(Array.from({ length: 4 }, () => ['set up', true]));
    const [row] = (await resource.query(after)) as Record<string, unknown>[];
    expect(Boolean(Number(row.open))).toBe(false);
  });

  it('cancels a statement of a transaction when its signal aborts, and discards the connection', async () => {
    const tag = `tx_cancel_${kind}_${Date.now()}`;
    const sleep = kind === 'mysql' ? `SELECT SLEEP(5) AS slept, '${tag}' AS tag` : `SELECT pg_sleep(5) AS slept, '${tag}' AS tag`;
    const controller = new AbortController();
    const outcome = resource.adapter.transaction((executor) => executor.run(sleep, [], controller.signal)).catch((error: unknown) => error);
    expect(await waitUntil(async () => (await running(kind, tag)) === 1, 2000)).toBe(true);
    controller.abort();
    expect(await waitUntil(async () => (await running(kind, tag)) === 0, 1000)).toBe(true);
    expect(await outcome).toMatchObject(kind === 'mysql' ? { code: 'ER_QUERY_INTERRUPTED' } : { code: '57014' });
    const [row] = (await resource.query(after)) as Record<string, unknown>[];
    expect(Boolean(Number(row.open))).toBe(false);
  });

  it('fails as its first setup statement does, and the pool stays usable', async () => {
    const broken = resource.adapter.stream(probe, [], 2, undefined, async (executor) => void (await executor.run('SELECT no_such_column', [])));
    await expect(broken.next()).rejects.toBeDefined();
    const [row] = (await resource.query(after)) as Record<string, unknown>[];
    expect(Boolean(Number(row.open))).toBe(false);
  });
});
