import { writeFileSync } from 'node:fs';
import { createApp, MysqlResource, register, SqlResourceError } from '../../src';
import { problemsOf } from '../../src/host/problems';
import { maxProfileBytes } from '../../src/host/profile';
import { runCli } from '../support/cli';
import { profileFiles } from '../support/profile-files';

/**
 * The profile schema and the checks beside it, as a newcomer meets them: mistakes that used to
 * pass silently are refused at load, every one at once, with the line and column of the file and
 * a suggestion where one is close. No database: nothing connects before a profile is valid.
 */

const files = profileFiles('sr-schema-');

const kinds = ['mysql', 'postgres'] as const;

/** A resource `db` of `kind`: six lines, so that the lines below it are the same for both kinds. */
const resourceOf = (kind: string): string => `resources:\n  db:\n    _class: ${kind}\n    server:\n      host: 127.0.0.1\n      database: test\n`;
const mysqlResource = resourceOf('mysql');

/** The problems a profile file is refused with, one line each. */
function problemsOfFile(yaml: string): readonly string[] {
  try {
    createApp(files.write(yaml));
  } catch (error) {
    expect(error).toBeInstanceOf(SqlResourceError);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    return problemsOf(error);
  }
  throw new Error('expected the profile to be refused');
}

describe.each(kinds)('unknown keys (%s)', (kind) => {
  const resource = resourceOf(kind);

  it('refuses endpoints put at the top level, saying where they belong', () => {
    const yaml = `${resource}endpoints:\n  - { path: /t, endpoint: list, resource: db, sql: 'SELECT 1' }\n`;
    expect(problemsOfFile(yaml)).toEqual(["line 7, column 1: profile: unknown key 'endpoints' (did you mean 'server.endpoints'? it belongs under 'server:')"]);
  });

  it('refuses a misspelt key of the server section and of a resource, with the key it resembles', () => {
    const yaml = `resources:\n  db:\n    _class: ${kind}\n    sever_typo: 1\n    server:\n      host: 127.0.0.1\n      database: test\n      prot: 3306\nserver:\n  prot: 8080\n`;
    expect(problemsOfFile(yaml)).toEqual([
      "line 4, column 5: resources.db: unknown key 'sever_typo'",
      "line 8, column 7: resources.db.server: unknown key 'prot' (did you mean 'port'?)",
      "line 10, column 3: server: unknown key 'prot' (did you mean 'port'?)",
    ]);
  });

  it('refuses tabel on a table endpoint, suggesting table', () => {
    const yaml = `${resource}server:\n  endpoints:\n    - { path: /t/:id, endpoint: readOne, resource: db, tabel: t, id_field: id }\n`;
    expect(problemsOfFile(yaml)).toEqual([
      'line 9, column 7: server.endpoints[0] (/t/:id): a readOne endpoint needs table',
      "line 9, column 56: server.endpoints[0] (/t/:id): unknown key 'tabel' (did you mean 'table'?)",
    ]);
  });

  it('accepts a configuration key the endpoint template uses, and refuses one it does not', () => {
    const used = createApp(files.write(`${resource}server:\n  endpoints:\n    - { path: /c, endpoint: list, resource: db, category: test, sql: 'SELECT * FROM t WHERE c = {{category}}' }\n`));
    expect(used.endpoints[0].config).toMatchObject({ category: 'test' });
    const unused = `${resource}server:\n  endpoints:\n    - { path: /c, endpoint: list, resource: db, categroy: test, sql: 'SELECT * FROM t WHERE c = {{category}}' }\n`;
    expect(problemsOfFile(unused)).toEqual(["line 9, column 49: server.endpoints[0] (/c): unknown key 'categroy': no template of this endpoint uses it (did you mean 'category'?)"]);
  });

  it('says so when a key is used only inside a SQL comment, where the template does not read it', () => {
    const yaml = `${resource}server:\n  endpoints:\n    - { path: /c, endpoint: list, resource: db, owner: ann, sql: "SELECT * FROM t -- {{owner}}\\n" }\n`;
    expect(problemsOfFile(yaml)).toEqual([
      "line 9, column 49: server.endpoints[0] (/c): unknown key 'owner': no template of this endpoint uses it ({{owner}} stands only where the template reads no variables: in a SQL comment or a dollar-quoted string)",
    ]);
  });

  it("suggests the template variable a misspelt configuration key meant", () => {
    const yaml = `${resource}server:\n  endpoints:\n    - { path: /c, endpoint: list, resource: db, countyr: fr, sql: 'SELECT * FROM t WHERE c = {{country}}' }\n`;
    expect(problemsOfFile(yaml)).toEqual(["line 9, column 49: server.endpoints[0] (/c): unknown key 'countyr': no template of this endpoint uses it (did you mean 'country'?)"]);
  });

  it("checks an endpoint's template and keys even when its resource's settings are refused", () => {
    const yaml = `${resource}      prot: 1\nserver:\n  endpoints:\n    - { path: /c, endpoint: list, resource: db, categroy: x, sql: 'SELECT * FROM t WHERE c = {{category}}' }\n    - { path: /d, endpoint: list, resource: db, sql: "SELECT * FROM t WHERE c = '{{x}}" }\n`;
    expect(problemsOfFile(yaml)).toEqual([
      "line 7, column 7: resources.db.server: unknown key 'prot' (did you mean 'port'?)",
      "line 10, column 49: server.endpoints[0] (/c): unknown key 'categroy': no template of this endpoint uses it (did you mean 'category'?)",
      'line 11, column 7: server.endpoints[1] (/d): sql template: unterminated string literal at line 1, column 27',
    ]);
  });
});

describe('keys of any kind', () => {
  it('never shows a value that may be a secret: unknown keys, wrong types and misplaced passwords are named by key', () => {
    const secret = 'S3cr3t-hunter2';
    const yaml = [
      'resources:',
      '  db:',
      '    _class: mysql',
      `    password: ${secret}`,
      '    server:',
      '      host: 127.0.0.1',
      '      database: test',
      `      passwd: ${secret}`,
      `      user: [${secret}]`,
      `      port: ${secret}`,
      `app_token: ${secret}`,
      '',
    ].join('\n');
    const problems = problemsOfFile(yaml);
    expect(problems).toEqual([
      "line 4, column 5: resources.db: unknown key 'password' (did you mean 'server.password'? it belongs under 'server:')",
      "line 8, column 7: resources.db.server: unknown key 'passwd' (did you mean 'password'?)",
      'line 9, column 13: resources.db.server.user: must be a string, got a list',
      "line 11, column 1: profile: unknown key 'app_token' (application settings go under 'app:' or an 'x-' key)",
    ]);
    expect(problems.join('\n')).not.toContain(secret);
  });

  it('lets a handler endpoint take any key: they are its configuration', () => {
    const app = createApp({ server: { lib: require.resolve('../../examples/handlers.js'), endpoints: [{ path: '/stats', handler: 'peopleStats', greeting: 'Hi', anything: 1 }] } });
    expect(app.profile.server?.endpoints).toEqual([{ path: '/stats', handler: 'peopleStats', greeting: 'Hi', anything: 1 }]);
  });

  it('keeps application settings under app: and x- keys, and refuses other top-level keys', () => {
    const app = createApp({ app: { pageSize: 20 }, 'x-team': 'orders', resources: {} });
    expect([app.profile.app, app.profile['x-team']]).toEqual([{ pageSize: 20 }, 'orders']);
    expect(() => createApp({ pageSize: 20 })).toThrow("profile has 1 problem:\n- profile: unknown key 'pageSize' (application settings go under 'app:' or an 'x-' key)");
  });

  it('suggests the class a misspelt _class meant, and refuses keepAliveInterval on postgres (a mysql setting)', () => {
    const yaml = 'resources:\n  a:\n    _class: postgress\n    server: { host: 127.0.0.1, database: test }\n  b:\n    _class: postgres\n    keepAliveInterval: 5\n    server: { host: 127.0.0.1, database: test }\n';
    expect(problemsOfFile(yaml)).toEqual([
      "line 3, column 13: resources.a._class: 'postgress' is not one of mysql, mariadb, postgres, postgresql (did you mean 'postgres'?)",
      "line 7, column 5: resources.b: unknown key 'keepAliveInterval' (a setting of mysql resources only)",
    ]);
  });

  it('refuses requestClaims on mysql (a postgres setting), a non-boolean one, and roleClaim without it', () => {
    const yaml = [
      'resources:',
      '  a: { _class: mysql, requestClaims: true, server: { host: 127.0.0.1, database: test } }',
      "  b: { _class: postgres, requestClaims: 'yes', server: { host: 127.0.0.1, database: test } }",
      '  c: { _class: postgres, roleClaim: db_role, server: { host: 127.0.0.1, database: test } }',
      '  d: { _class: postgres, requestClaims: true, roleClaim: app.role, server: { host: 127.0.0.1, database: test } }',
      '',
    ].join('\n');
    expect(problemsOfFile(yaml)).toEqual([
      "line 2, column 23: resources.a: unknown key 'requestClaims' (a setting of postgres resources only)",
      'line 3, column 41: resources.b.requestClaims: must be true or false, got a string',
      'line 4, column 37: resources.c.roleClaim: needs requestClaims: true',
    ]);
  });
});

describe('every problem at once', () => {
  it('lists the schema, resource and endpoint problems of one file together, in the order of the file', () => {
    const yaml = [
      'resources:',
      '  db:',
      '    _class: mysql',
      '    server: { host: 127.0.0.1, database: test, port: 99999 }',
      '  pg:',
      '    _class: postgres',
      '    server: { host: 127.0.0.1 }',
      'server:',
      '  port: 1e3',
      '  endpoints:',
      '    - { path: /a, endpoint: lsit, resource: db, sql: SELECT 1 }',
      '    - { path: /b, endpoint: list, resource: nope, sql: SELECT 1 }',
      '    - { path: /c, endpoint: list, resource: db, sql: 5 }',
      '',
    ].join('\n');
    expect(problemsOfFile(yaml)).toEqual([
      'line 4, column 54: resources.db.server.port: must be an integer from 1 to 65535',
      "line 7, column 13: resources.pg.server: 'database' is required",
      'line 9, column 9: server.port: must be an integer from 0 to 65535',
      "line 11, column 29: server.endpoints[0] (/a): endpoint 'lsit' is not one of list, read, readOne, create, update, delete (did you mean 'list'?)",
      "line 12, column 7: server.endpoints[1] (/b): resource 'nope' is not declared in resources",
      'line 13, column 54: server.endpoints[2] (/c): sql must be a string, got an integer',
    ]);
  });

  it('prints them under one header in check, and serve refuses to start', async () => {
    const path = files.write(`${mysqlResource}endpoints:\n  - { path: /t, endpoint: list, resource: db, sql: 'SELECT 1' }\n`);
    const expected = `${path} has 1 problem:\n- line 7, column 1: profile: unknown key 'endpoints' (did you mean 'server.endpoints'? it belongs under 'server:')`;
    const check = await runCli(['check', path]);
    expect([check.code, check.stderr.trim(), check.stdout]).toEqual([1, expected, '']);
    const serve = await runCli(['serve', path, '--port', '0']);
    expect([serve.code, serve.stderr.trim()]).toEqual([1, `profile has 1 problem:\n${expected.split('\n')[1]}`]);
  });
});

describe('hostile files', () => {
  it('refuses a billion-laughs file without expanding it, in bounded memory', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 10; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    const path = files.write(`app:\n  ${levels.join('\n  ')}\n`);
    // 9^10 strings would need gigabytes; the check runs in a process allowed 200 MB of heap.
    const result = await runCli(['check', path], 120_000, { NODE_OPTIONS: '--max-old-space-size=200' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`${path} has 1 problem:\n- profile ${path} is not valid YAML/JSON: Excessive alias count indicates a resource exhaustion attack`);
  });

  it('refuses a 10 MB profile before reading it, naming the limit', () => {
    const path = files.path('huge.yml');
    const text = `app:\n  filler: "${'x'.repeat(10 * 1024 * 1024)}"\n`;
    writeFileSync(path, text);
    expect(maxProfileBytes).toBe(1024 * 1024);
    expect(() => createApp(path)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: `profile ${path} holds ${text.length} bytes; a profile may hold at most 1048576 (1 MiB)` }));
  });
});

describe('registered classes', () => {
  class RegionalResource extends MysqlResource {
    static override readonly configSchema = {
      ...MysqlResource.configSchema,
      properties: { ...(MysqlResource.configSchema.properties as object), region: { type: 'string', description: 'where the cluster runs' } },
    };
  }
  class PlainResource extends MysqlResource {}
  beforeAll(() => {
    register('regional', RegionalResource);
    register('plain-mysql', PlainResource);
  });

  it("checks a subclass's keys with the schema it inherits, and a class's own keys with its own", () => {
    const server = { host: '127.0.0.1', database: 'test' };
    const app = createApp({ resources: { r: { _class: 'regional', region: 'eu', server }, p: { _class: 'plain-mysql', server } } });
    expect(app.resources.get('r')).toBeInstanceOf(RegionalResource);
    expect(() => createApp({ resources: { p: { _class: 'plain-mysql', region: 'eu', server: { ...server, prot: 1 } } } })).toThrow(
      "profile has 2 problems:\n- resources.p: unknown key 'region' (a setting of regional resources only)\n- resources.p.server: unknown key 'prot' (did you mean 'port'?)",
    );
  });
});
