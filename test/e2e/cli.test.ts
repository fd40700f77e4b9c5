import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { rawQuery, resourceConfig, uniqueName } from '../support/servers';
import { runCli, spawnCli, waitForLine } from '../support/cli';

const examples = resolve(__dirname, '../../examples');

async function runSqlFile(kind: 'mysql' | 'postgres', file: string): Promise<void> {
  const statements = readFileSync(join(examples, file), 'utf8').split(';').map((sql) => sql.trim()).filter(Boolean);
  for (const sql of statements) await rawQuery(kind, sql);
}

describe('sql-resources CLI', () => {
  let workDir: string;
  const table = uniqueName('sr_cli');

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'sr-cli-'));
    await runSqlFile('mysql', 'people.mysql.sql');
    await runSqlFile('postgres', 'people.postgres.sql');
    await rawQuery('postgres', `CREATE TABLE ${table} (id INT PRIMARY KEY, name TEXT)`);
  });

  afterAll(async () => {
    rmSync(workDir, { recursive: true, force: true });
    await rawQuery('postgres', `DROP TABLE IF EXISTS ${table}`);
  });

  it('check answers 0 for the example profile', async () => {
    const result = await runCli(['check', 'examples/people.yml']);
    // The example has no server.auth: each endpoint that changes data is named (SPEC §7).
    const open = ['POST /mysql/people (create)', 'PUT /mysql/people/:id (update)', 'DELETE /mysql/people/:id (delete)', 'POST /pg/people (create)', 'PUT /pg/people/:id (update)', 'DELETE /pg/people/:id (delete)'];
    expect(result.stderr.split('\n').filter(Boolean)).toEqual(open.map((route) => `warning: endpoint ${route} is open to anyone who reaches the port: set server.auth to require a credential`));
    expect(result.stdout).toContain('examples/people.yml: ok');
    expect(result.code).toBe(0);
  });

  it('check reports a missing table and a missing id column with a non-zero exit code', async () => {
    const profile = join(workDir, 'broken.yml');
    writeFileSync(
      profile,
      stringify({
        resources: { db: resourceConfig('postgres') },
        server: {
          endpoints: [
            { path: '/gone/:id', endpoint: 'readOne', resource: 'db', table: 'sr_no_such_table', id_field: 'id' },
            { path: '/bad/:id', endpoint: 'delete', resource: 'db', table, id_field: 'uuid' },
            { path: '/good/:id', endpoint: 'delete', resource: 'db', table, id_field: 'id' },
          ],
        },
      }),
    );
    const result = await runCli(['check', profile]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("GET /gone/:id: table 'sr_no_such_table' does not exist in resource 'db'");
    expect(result.stderr).toContain(`DELETE /bad/:id: table '${table}' has no column 'uuid' (id_field)`);
    // /good/ is named only by the warning for open write endpoints (no server.auth), never as a problem.
    const lines = result.stderr.split('\n').filter(Boolean);
    const warnings = lines.filter((line) => line.startsWith('warning: '));
    expect(warnings).toEqual(['/bad/:id', '/good/:id'].map((path) => `warning: endpoint DELETE ${path} (delete) is open to anyone who reaches the port: set server.auth to require a credential`));
    expect(lines.filter((line) => !line.startsWith('warning: ') && line.includes('/good/'))).toEqual([]);
  });

  it('check reports an unreachable database and an invalid profile', async () => {
    const profile = join(workDir, 'down.yml');
    writeFileSync(profile, stringify({ resources: { db: resourceConfig('mysql', { port: 1, password: 'hunter2-secret' }) } }));
    const down = await runCli(['check', profile]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('127.0.0.1:1');
    expect(down.stderr).not.toContain('hunter2-secret');
    const invalid = join(workDir, 'invalid.yml');
    writeFileSync(invalid, stringify({ resources: { db: { _class: 'oracle', server: {} } } }));
    const refused = await runCli(['check', invalid]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`${invalid} has 1 problem:\n- line 3, column 13: resources.db._class: 'oracle' is not one of mysql, mariadb, postgres, postgresql`);
  });

  it('check reports a YAML syntax error without printing the password next to it', async () => {
    const profile = join(workDir, 'syntax.yml');
    writeFileSync(profile, 'resources:\n  db:\n    _class: mysql\n    server:\n      password: hunter2-syntax: oops\n      host: 127.0.0.1\n');
    const result = await runCli(['check', profile]);
    expect(result.code).toBe(1);
    const output = result.stdout + result.stderr;
    expect(output).toContain(`profile ${profile} is not valid YAML/JSON: `);
    expect(output).toContain('at line 5, column ');
    expect(output).toContain('      password: ***');
    expect(output).not.toContain('hunter2');
  });

  it('serve runs the example profile until SIGINT, with $app reachable from server.lib', async () => {
    const child = spawnCli(['serve', 'examples/people.yml', '--port', '0']);
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/\S+)/);
      // The tables may hold more than the three example rows (earlier runs): count them first.
      const [{ people: mysqlPeople }] = await rawQuery('mysql', 'SELECT COUNT(*) AS people FROM example_people');
      const [{ people: postgresPeople }] = await rawQuery('postgres', 'SELECT COUNT(*)::int AS people FROM example_people');
      const stats = await (await fetch(`${url}/stats`)).json();
      expect(stats).toEqual({
        code: 'ok',
        message: 'people on both databases (/stats)',
        data: { mysql: Number(mysqlPeople), postgres: postgresPeople },
      });
      const mysqlRows = await rawQuery('mysql', 'SELECT id, name, city FROM example_people ORDER BY id');
      const list = await (await fetch(`${url}/mysql/people`)).json();
      expect(list).toEqual({ code: 'ok', message: 'list /mysql/people', data: mysqlRows, total: Number(mysqlPeople) });
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      // Nothing listens any more: the connection is refused (not a timeout, not an HTTP error).
      await expect(fetch(`${url}/stats`)).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serve refuses a bad --port', async () => {
    const result = await runCli(['serve', 'examples/people.yml', '--port', 'eighty']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--port must be an integer from 0 to 65535, got 'eighty'");
  });
});
