import { mysqlDialect, postgresDialect } from '../../src/dialects';

/** What `check` reads to find the placeholder a syntax error points at, per driver's error shape. */
describe('where a syntax error points in the SQL', () => {
  const mariadbParseError = (near: string, line: number): Record<string, unknown> => ({
    code: 'ER_PARSE_ERROR',
    message: `You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '${near}' at line ${line}`,
  });
  const mysqlOffset = (error: unknown, sql: string): number | undefined => mysqlDialect.errors.syntaxErrorOffset?.(error, sql);
  const postgresOffset = (error: unknown, sql: string): number | undefined => postgresDialect.errors.syntaxErrorOffset?.(error, sql);

  it('mysql: the quoted rest of the statement, found from its end', () => {
    expect(mysqlOffset(mariadbParseError('? WHERE id = ?', 1), 'SELECT * FROM ? WHERE id = ?')).toBe(14);
    expect(mysqlOffset(mariadbParseError('', 1), 'SELECT * FROM t WHERE')).toBe(21);
  });

  it('mysql: a rest cut with "...", found from the start of the line the error names', () => {
    const sql = `SELECT ${'a, '.repeat(10)}b FROM t\nWHERE x = ? ORDER BY ? ? LIMIT 10 ${'-- padding '.repeat(10)}`;
    const rest = sql.slice(sql.indexOf('? ?') + 2);
    expect(mysqlOffset(mariadbParseError(`${rest.slice(0, 80)}...`, 2), sql)).toBe(sql.indexOf('? ?') + 2);
  });

  it('mysql: no offset for another error, or a message without the quoted rest', () => {
    expect(mysqlOffset({ code: 'ER_NO_SUCH_TABLE', message: "Table 'test.t' doesn't exist" }, 'SELECT * FROM t')).toBeUndefined();
    expect(mysqlOffset({ code: 'ER_PARSE_ERROR', message: 'syntax error' }, 'SELEC 1')).toBeUndefined();
  });

  it("postgres: `position` counts characters from 1, so a character outside the BMP before it counts once", () => {
    const sql = "SELECT '🎉' AS a FROM $1";
    expect(postgresOffset({ code: '42601', position: '22' }, sql)).toBe(sql.indexOf('$1'));
    expect(postgresOffset({ code: '42601', position: '1' }, 'SELEC 1')).toBe(0);
  });

  it('postgres: no offset for another SQLSTATE or without a position', () => {
    expect(postgresOffset({ code: '42P01', position: '15' }, 'SELECT * FROM nope')).toBeUndefined();
    expect(postgresOffset({ code: '42601' }, 'SELEC 1')).toBeUndefined();
  });
});
