import { mysqlDialect, postgresDialect, withRequestClaims } from '../../src';
import { fromDriverError } from '../../src/errors';
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
    expect(sessions?.statementsFor({ tenant: 1 })).toEqual([{ sql: "SELECT set_config('request.jwt.claims', $1, true)", values: ['{"tenant":1}'] }]);
  });

  it('refuse a role claim that is not a non-empty string (403)', () => {
    for (const role of ['', 7, ['reader'], { name: 'reader' }]) {
      expect(() => sessions?.statementsFor({ app: { role } })).toThrow(expect.objectContaining({ code: 'FORBIDDEN', statusCode: 403 }) as Error);
    }
  });

  it('are not made when requestClaims is off, and mysql has none', () => {
    expect(RequestSessions.of('db', {}, postgresDialect)).toBeUndefined();
    expect(RequestSessions.of('db', { requestClaims: false }, mysqlDialect)).toBeUndefined();
    expect(() => RequestSessions.of('db', { requestClaims: true }, mysqlDialect)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }) as Error);
  });
});

describe('insufficient privilege', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['PostgreSQL 42501 (a role not granted, a table not granted, a row-level policy)', { code: '42501', message: 'new row violates row-level security policy for table "t"' }, 'FORBIDDEN'],
    ["MySQL's table access denied (42000, shared with syntax errors)", { code: 'ER_TABLEACCESS_DENIED_ERROR', sqlState: '42000', message: 'SELECT command denied' }, 'DB_ERROR'],
    ["MySQL's access denied at login (28000)", { code: 'ER_ACCESS_DENIED_ERROR', sqlState: '28000', message: 'Access denied for user' }, 'DB_ERROR'],
  ])('maps %s', (_label, driverError, code) => {
    expect(fromDriverError('read on t', Object.assign(new Error(String(driverError.message)), driverError))).toMatchObject({ code });
  });
});
