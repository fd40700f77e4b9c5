import { mysqlDialect, postgresDialect, withRequestClaims, type DriverAdapter, type Executor, type Row } from '../../src';
import { fromDriverError, SqlResourceError } from '../../src/errors';
import { SessionExecutor } from '../../src/executors/session-executor';
import { currentRequestClaims, RequestSessions } from '../../src/request-claims';

describe('withRequestClaims', () => {
  it('sets the claims for the work it runs, across awaits and timers, and nowhere else', async () => {
    expect(currentRequestClaims()).toBeUndefined();
    const claims = { sub: 'ada', tenant: 1 };
    const seen = await withRequestClaims(claims, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentRequestClaims();
    });
    expect(seen).toBe(claims);
    expect(currentRequestClaims()).toBeUndefined();
    expect(withRequestClaims(claims, () => withRequestClaims({ sub: 'bob' }, currentRequestClaims))).toEqual({ sub: 'bob' });
  });

  it('refuses claims that are not an object', () => {
    for (const claims of [null, 'ada', ['ada']]) {
      expect(() => withRequestClaims(claims as never, () => undefined)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
    }
  });
});

describe('the session statements of postgres', () => {
  const sessions = RequestSessions.of('db', { requestClaims: true, roleClaim: 'app.role' }, postgresDialect);
  const withoutRole = RequestSessions.of('db', { requestClaims: true }, postgresDialect);

  it('bind the claims as JSON text and the role as a value, once per claims object', () => {
    const claims = { tenant: 1, app: { role: 'reader"; DROP ROLE x; --' } };
    const statements = sessions?.statementsFor(claims);
    expect(statements).toEqual([
      {
        sql: "SELECT set_config('request.jwt.claims', $1, true), set_config('role', $2, true)",
        values: ['{"tenant":1,"app":{"role":"reader\\"; DROP ROLE x; --"}}', 'reader"; DROP ROLE x; --'],
      },
    ]);
    expect(sessions?.statementsFor(claims)).toBe(statements);
    expect(withoutRole?.statementsFor({ tenant: 1 })).toEqual([{ sql: "SELECT set_config('request.jwt.claims', $1, true)", values: ['{"tenant":1}'] }]);
  });

  it('refuse a role claim that is not a role name (403)', () => {
    for (const role of [7, true, ['reader'], { name: 'reader' }, 'read\0er']) {
      expect(() => sessions?.statementsFor({ app: { role } })).toThrow(
        expect.objectContaining({ code: 'FORBIDDEN', statusCode: 403, message: "the role claim 'app.role' is not a role name (a non-empty string)" }) as Error,
      );
    }
  });

  it('fail closed: with roleClaim, no role claim is 403, never the connection user\'s role', () => {
    const absent = "the caller's credential has no role claim 'app.role', which this resource needs (roleClaim)";
    for (const claims of [{ tenant: 1 }, { app: {} }, { app: { role: null } }, { app: { role: '' } }, { app: 'reader' }]) {
      expect(() => sessions?.statementsFor(claims)).toThrow(expect.objectContaining({ code: 'FORBIDDEN', statusCode: 403, message: absent }) as Error);
    }
  });

  it("refuse 'none' and 'default' in any case, which would reset the role to the connection user's (403)", () => {
    for (const role of ['none', 'NONE', 'None', 'default', 'DEFAULT', 'Default']) {
      expect(() => sessions?.statementsFor({ app: { role } })).toThrow(
        expect.objectContaining({ code: 'FORBIDDEN', message: "the role claim 'app.role' may not reset the role to the connection user's (none, default)" }) as Error,
      );
    }
    // Names that merely contain them are role names like any other: PostgreSQL decides.
    expect(sessions?.statementsFor({ app: { role: 'none_reader' } })[0].values[1]).toBe('none_reader');
    expect(sessions?.statementsFor({ app: { role: ' none' } })[0].values[1]).toBe(' none');
  });

  it('refuse claims holding an integer past 2^53, wherever it is (403): JSON.parse already rounded it', () => {
    const unsafe = JSON.parse('9007199254740993') as number; // as fast-jwt decodes it: …992
    for (const [claims, path] of [
      [{ tenant: unsafe }, 'tenant'],
      [{ org: { tenant: -unsafe } }, 'org.tenant'],
      [{ tenants: [1, 2, 2 ** 60] }, 'tenants.2'],
      [{ orgs: [{ id: 1e21 }] }, 'orgs.0.id'],
    ] as const) {
      for (const session of [sessions, withoutRole]) {
        expect(() => session?.statementsFor({ ...claims, app: { role: 'reader' } })).toThrow(
          expect.objectContaining({ code: 'FORBIDDEN', statusCode: 403, message: `the caller's claim '${path}' is an integer past 2^53, which a JSON number cannot hold exactly: issue it as a string` }) as Error,
        );
      }
    }
    // Safe integers, fractions and ids issued as strings are handed on as they are.
    const fine = { tenant: Number.MAX_SAFE_INTEGER, low: Number.MIN_SAFE_INTEGER, ratio: 0.5, id: '9007199254740993' };
    expect(withoutRole?.statementsFor(fine)[0].values[0]).toBe(JSON.stringify(fine));
  });

  it('are not made when requestClaims is off, and mysql has none', () => {
    expect(RequestSessions.of('db', {}, postgresDialect)).toBeUndefined();
    expect(RequestSessions.of('db', { requestClaims: false }, mysqlDialect)).toBeUndefined();
    expect(() => RequestSessions.of('db', { requestClaims: true }, mysqlDialect)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }) as Error);
  });
});

describe('insufficient privilege', () => {
  it.each<[string, Record<string, unknown>]>([
    ['PostgreSQL 42501 outside request claims (a grant the server lacks)', { code: '42501', message: 'permission denied for table t' }],
    ["MySQL's table access denied (42000, shared with syntax errors)", { code: 'ER_TABLEACCESS_DENIED_ERROR', sqlState: '42000', message: 'SELECT command denied' }],
    ["MySQL's access denied at login (28000)", { code: 'ER_ACCESS_DENIED_ERROR', sqlState: '28000', message: 'Access denied for user' }],
  ])('maps %s to DB_ERROR (500)', (_label, driverError) => {
    expect(fromDriverError('read on t', Object.assign(new Error(String(driverError.message)), driverError))).toMatchObject({ code: 'DB_ERROR', statusCode: 500 });
  });
});

/** A pg-like error: its SQLSTATE as `code`. */
const pgError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

/**
 * An adapter whose statements fail as `fail` says (undefined: they succeed), recording what ran;
 * `stream` runs its setup, then yields one batch, then fails as the statement does.
 */
function stubAdapter(fail: (sql: string) => Error | undefined): DriverAdapter & { ran: string[] } {
  const ran: string[] = [];
  const executor: Executor = {
    run: (sql) => {
      ran.push(sql);
      const error = fail(sql);
      return error ? Promise.reject(error) : Promise.resolve({ rows: [], affectedRows: 0 } as never);
    },
  };
  return {
    ran,
    poolSize: 1,
    poolWait: {} as never,
    run: (sql, values) => executor.run(sql, values),
    transaction: (work) => work(executor),
    async *stream(sql, values, _batchSize, _signal, setup): AsyncGenerator<Row[], void, undefined> {
      await setup?.(executor);
      yield [{ n: 1 }];
      await executor.run(sql, values);
      yield [{ n: 2 }];
    },
    open: () => Promise.resolve({ insertReturning: true }),
    columnsStatement: () => ({ sql: '', values: [] }),
    columnsFrom: () => [],
    describe: () => Promise.reject(new Error('not here')),
    close: () => Promise.resolve(),
  };
}

const setup = [{ sql: 'SETUP', values: [] }];

async function outcomes(executor: SessionExecutor): Promise<unknown[]> {
  const streamed = async (): Promise<Row[][]> => {
    const batches: Row[][] = [];
    for await (const batch of executor.stream('STATEMENT', [], 1)) batches.push(batch);
    return batches;
  };
  return Promise.all([
    executor.run('STATEMENT', []).catch((error: unknown) => error),
    executor.transaction((transaction) => transaction.run('STATEMENT', [])).catch((error: unknown) => error),
    streamed().catch((error: unknown) => error),
  ]);
}

describe('the session executor', () => {
  const forbidden = (operation: string, sqlState: string): Record<string, unknown> => ({
    code: 'FORBIDDEN',
    statusCode: 403,
    sqlState,
    clientMessage: `${operation} failed: the caller may not do this (role, claim or row-level policy) (${sqlState})`,
  });

  it.each<[string, string]>([
    ['a role the connection user may not assume', '42501'],
    ['a role that does not exist', '22023'],
  ])('refuses the claims when the database refuses their settings for %s (403)', async (_label, sqlState) => {
    const adapter = stubAdapter((sql) => (sql === 'SETUP' ? pgError(sqlState, 'role "x" does not exist') : undefined));
    const errors = await outcomes(new SessionExecutor(adapter, setup));
    for (const error of errors) {
      expect(error).toBeInstanceOf(SqlResourceError);
      expect(error).toMatchObject(forbidden('setting the claims of the request', sqlState));
      expect((error as SqlResourceError).clientMessage).not.toContain('"x"');
    }
    expect(adapter.ran).toEqual(['SETUP', 'SETUP', 'SETUP']);
  });

  it.each<[string, Error]>([
    ['a statement timeout (57014)', pgError('57014', 'canceling statement due to statement timeout')],
    ['a shutdown (57P01)', pgError('57P01', 'terminating connection due to administrator command')],
    ['a lost connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a failure without a code', new Error('Connection terminated unexpectedly')],
  ])('passes any other failure of the settings on as it is, for the normal mapping: %s', async (_label, failure) => {
    const errors = await outcomes(new SessionExecutor(stubAdapter((sql) => (sql === 'SETUP' ? failure : undefined)), setup));
    for (const error of errors) expect(error).toBe(failure);
    expect(fromDriverError('query', failure).code).not.toBe('FORBIDDEN');
  });

  it("makes a statement's insufficient privilege (42501) FORBIDDEN on every path, without quoting the database", async () => {
    const adapter = stubAdapter((sql) => (sql === 'STATEMENT' ? pgError('42501', 'new row violates row-level security policy for table "secret_t"') : undefined));
    const errors = await outcomes(new SessionExecutor(adapter, setup));
    for (const error of errors) {
      expect(error).toMatchObject({ ...forbidden('running the statement under the claims of the request', '42501'), message: expect.stringContaining('secret_t') as string });
      expect((error as SqlResourceError).clientMessage).not.toContain('secret_t');
      expect((error as SqlResourceError).cause).toMatchObject({ code: '42501' });
    }
  });

  it("leaves a statement's other errors, and the catalogue's own, as they are", async () => {
    const syntax = pgError('42601', 'syntax error at or near "x"');
    for (const error of await outcomes(new SessionExecutor(stubAdapter((sql) => (sql === 'STATEMENT' ? syntax : undefined)), setup))) expect(error).toBe(syntax);
    const notUnique = new SqlResourceError('NOT_UNIQUE', 'update on t: 2 rows match');
    const executor = new SessionExecutor(stubAdapter(() => undefined), setup);
    await expect(executor.transaction(() => Promise.reject(notUnique))).rejects.toBe(notUnique);
  });

  it('hands a stream ended early back to the adapter', async () => {
    let finished = false;
    const adapter = stubAdapter(() => undefined);
    const inner = adapter.stream.bind(adapter);
    adapter.stream = async function* (...args) {
      try {
        yield* inner(...args);
      } finally {
        finished = true;
      }
    };
    for await (const batch of new SessionExecutor(adapter, setup).stream('STATEMENT', [], 1)) {
      expect(batch).toEqual([{ n: 1 }]);
      break;
    }
    expect(finished).toBe(true);
  });
});
