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
} from '../../src/host/embedded-mode';
import type { Profile } from '../../src/host/profile';

const target = { host: '127.0.0.1', port: 40000, user: 'postgres', password: 'postgres', database: 'postgres' };

const profile: Profile = {
  resources: {
    pg: { _class: 'postgres', server: { host: '{{PGHOST}}', port: '{{PGPORT:-5432}}', database: 'test', max: 4, ssl: false } },
    other: { _class: 'postgres', server: { host: 'db', database: 'x', preparedStatements: true } },
    my: { _class: 'mysql', server: { host: 'maria', database: 'test' } },
  },
  server: { lib: './handlers.js', endpoints: [] },
};

describe('embedded mode: profile rewriting', () => {
  it('points every postgres resource at the embedded server, prepared statements off, and leaves the rest', () => {
    const pointed = pointProfileAt(profile, '/profiles', target);
    expect(pointed.resources?.pg).toEqual({
      _class: 'postgres',
      server: { ...target, max: 4, ssl: false, preparedStatements: false },
    });
    expect((pointed.resources?.other as { server: unknown }).server).toEqual({ ...target, preparedStatements: false });
    expect(pointed.resources?.my).toEqual(profile.resources?.my);
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
    expect(() => readEmbeddedSection(bad as Profile, '/')).toThrow(message);
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
