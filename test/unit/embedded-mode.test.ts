import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import {
  curlLine,
  embeddedMaxConnections,
  pointProfileAt,
  postgresResourceIds,
  reachableBaseUrl,
  readEmbeddedSection,
  resolveEmbeddedDataDir,
} from '../../src/host/embedded-postgres/mode';
import { parseServerSettings, serverArgs } from '../../src/host/embedded-postgres/ipc';
import type { Profile } from '../../src/host/profile';
import { SqlResourceError } from '../../src/errors';

const target = { host: '127.0.0.1', port: 40000, user: 'postgres', password: 'postgres', database: 'postgres' };

const profile: Profile = {
  resources: {
    pg: { _class: 'postgres', server: { host: '{{PGHOST}}', port: '{{PGPORT:-5432}}', database: 'test', max: 4, ssl: false } },
    other: { _class: 'postgresql', server: { host: 'db', database: 'x', preparedStatements: true } },
    my: { _class: 'mysql', server: { host: 'maria', database: 'test' } },
    maria: { _class: 'mariadb', server: { host: 'maria', database: 'test' } },
  },
  server: { lib: './handlers.js', endpoints: [] },
};

describe('embedded mode: profile rewriting', () => {
  it('points every postgres resource (postgresql alias included) at the embedded server, prepared statements off, and leaves the rest', () => {
    const pointed = pointProfileAt(profile, '/profiles', target);
    expect(pointed.resources?.pg).toEqual({
      _class: 'postgres',
      server: { ...target, max: 4, ssl: false, preparedStatements: false },
    });
    expect((pointed.resources?.other as { server: unknown }).server).toEqual({ ...target, preparedStatements: false });
    expect((pointed.resources?.other as { _class: string })._class).toBe('postgresql');
    expect(pointed.resources?.my).toEqual(profile.resources?.my);
    expect(pointed.resources?.maria).toEqual(profile.resources?.maria);
    expect(pointed.server?.lib).toBe(resolve('/profiles', 'handlers.js'));
    // The loaded profile itself is not changed.
    expect((profile.resources?.pg as { server: { host: string } }).server.host).toBe('{{PGHOST}}');
    expect(profile.server?.lib).toBe('./handlers.js');
  });

  it('sizes the socket limit at twice the pools, never under 32', () => {
    expect(postgresResourceIds(profile)).toEqual(['pg', 'other']);
    expect(embeddedMaxConnections(profile, ['pg', 'other'])).toBe(32);
    const big = { resources: { a: { _class: 'postgres', server: { max: 20 } }, b: { _class: 'postgres', server: {} } } };
    expect(embeddedMaxConnections(big, ['a', 'b'])).toBe(60);
    // `max` is read as the integer parser reads it: text that is not a canonical integer counts as unset.
    const odd = { resources: { a: { _class: 'postgres', server: { max: '20' } }, b: { _class: 'postgres', server: { max: '1e3' } } } };
    expect(embeddedMaxConnections(odd, ['a', 'b'])).toBe(60);
  });

  it('finds no postgres resource in a profile of mysql, mariadb and unknown classes', () => {
    const none: Profile = { resources: { a: { _class: 'mysql' }, b: { _class: 'mariadb' }, c: { _class: 'Postgres' }, d: 'postgres' } };
    expect(postgresResourceIds(none)).toEqual([]);
    expect(postgresResourceIds({})).toEqual([]);
  });

  it('takes the data folder from the flag, else the environment, else .data/pglite', () => {
    expect(resolveEmbeddedDataDir('/flag', { SQL_RESOURCES_EMBEDDED_PG_DIR: '/env' })).toBe('/flag');
    expect(resolveEmbeddedDataDir(undefined, { SQL_RESOURCES_EMBEDDED_PG_DIR: '/env' })).toBe('/env');
    expect(resolveEmbeddedDataDir(undefined, {})).toBe(resolve('.data/pglite'));
  });
});

describe('embedded mode: the embeddedPostgres section', () => {
  it('resolves the seed against the profile folder and defaults methods to GET', () => {
    const section = readEmbeddedSection(
      { embeddedPostgres: { seed: 'seed.sql', try: [{ path: '/a' }, { method: 'post', path: '/a', body: { x: 1 } }] } },
      '/profiles',
    );
    expect(section).toEqual({
      seed: resolve('/profiles', 'seed.sql'),
      try: [{ method: 'GET', path: '/a' }, { method: 'POST', path: '/a', body: { x: 1 } }],
    });
    expect(readEmbeddedSection({}, '/profiles')).toEqual({ try: [] });
  });

  it.each([
    [{ embeddedPostgres: 'yes' }, 'embeddedPostgres must be a mapping'],
    [{ embeddedPostgres: { seeds: 'x' } }, 'embeddedPostgres.seeds: unknown key'],
    [{ embeddedPostgres: { seed: 3 } }, 'embeddedPostgres.seed must be a file path'],
    [{ embeddedPostgres: { try: {} } }, 'embeddedPostgres.try must be a list'],
    [{ embeddedPostgres: { try: [{ path: 'books' }] } }, 'embeddedPostgres.try[0].path must be a string starting with /'],
    [{ embeddedPostgres: { try: [{ path: '/b', method: 'GET /b' }] } }, 'embeddedPostgres.try[0].method must be an HTTP method'],
  ])('rejects %j', (bad, message) => {
    let thrown: unknown;
    try {
      readEmbeddedSection(bad as Profile, '/');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SqlResourceError);
    expect(thrown).toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining(message) });
  });
});

describe('embedded mode: curl lines', () => {
  it('prints GETs bare and bodies as JSON, quoted for a POSIX shell', () => {
    expect(curlLine({ method: 'GET', path: '/books' }, 'http://127.0.0.1:8077')).toBe('curl -s http://127.0.0.1:8077/books');
    expect(curlLine({ method: 'GET', path: '/b?q=x&y=1' }, 'http://h:1/')).toBe("curl -s 'http://h:1/b?q=x&y=1'");
    expect(curlLine({ method: 'DELETE', path: '/b/1' }, 'http://h:1')).toBe('curl -s -X DELETE http://h:1/b/1');
    const line = curlLine({ method: 'POST', path: '/b', body: { title: "L'été; $(rm -rf /)" } }, 'http://h:1');
    expect(line).toBe(`curl -s -X POST -H 'Content-Type: application/json' -d '{"title":"L'\\''été; $(rm -rf /)"}' http://h:1/b`);
    // The shell hands curl exactly the JSON text.
    const words = execFileSync('sh', ['-c', `printf '%s\\n' ${line.slice('curl '.length)}`], { encoding: 'utf8' }).trimEnd().split('\n');
    expect(words).toEqual(['-s', '-X', 'POST', '-H', 'Content-Type: application/json', '-d', `{"title":"L'été; $(rm -rf /)"}`, 'http://h:1/b']);
  });

  it('turns wildcard listen addresses into loopback URLs', () => {
    expect(reachableBaseUrl({ host: '0.0.0.0', port: 8077 })).toBe('http://127.0.0.1:8077');
    expect(reachableBaseUrl({ host: '::', port: 8077 })).toBe('http://127.0.0.1:8077');
    expect(reachableBaseUrl({ host: '::1', port: 8077 })).toBe('http://[::1]:8077');
    expect(reachableBaseUrl({ host: '127.0.0.1', port: 1 })).toBe('http://127.0.0.1:1');
  });
});

describe('embedded server: the child process arguments', () => {
  it('reads back what the parent writes, with defaults for what it leaves out', () => {
    const settings = { dataDir: '/data', host: '127.0.0.2', port: 5433, maxConnections: 40, template: '/t.tar' };
    expect(parseServerSettings(serverArgs(settings))).toEqual(settings);
    expect(parseServerSettings(['--data-dir', '/data'])).toEqual({ dataDir: '/data', host: '127.0.0.1', port: 0, maxConnections: 32, template: undefined });
  });

  it.each([
    [['--port', '1e3'], '--port must be an integer from 0 to 65535, got 1e3'],
    [['--port', '080'], '--port must be an integer from 0 to 65535, got 080'],
    [['--port', '65536'], '--port must be an integer from 0 to 65535, got 65536'],
    [['--max-connections', '0'], '--max-connections must be an integer from 1 to 10000, got 0'],
    [['--max-connections', '12abc'], '--max-connections must be an integer from 1 to 10000, got 12abc'],
  ])('refuses %j as CONFIG_INVALID', (args, message) => {
    expect(() => parseServerSettings(['--data-dir', '/data', ...args])).toThrow(message);
    expect(() => parseServerSettings(['--data-dir', '/data', ...args])).toThrow(SqlResourceError);
  });

  it('needs --data-dir', () => {
    expect(() => parseServerSettings([])).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('--data-dir is required') }));
  });
});
