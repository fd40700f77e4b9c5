import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { inspect } from 'node:util';
import { ResourceManager } from '../../src/resource-manager';
import type { SqlResource, SqlResourceError } from '../../src';
import { kinds, mysqlServer, postgresServer, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

const sleepSql: Record<Kind, string> = { mysql: 'SELECT SLEEP(0.4) AS slept', postgres: 'SELECT pg_sleep(0.4) AS slept' };

describe.each(kinds)('%s resource lifecycle', (kind: Kind) => {
  const table = uniqueName('sr_life');

  beforeAll(() => rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id INT PRIMARY KEY, name VARCHAR(40))`));
  afterAll(() => rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`));

  function build(server: Record<string, unknown> = {}, options: Record<string, unknown> = {}): SqlResource {
    return new ResourceManager().add('life', resourceConfig(kind, server, options));
  }

  it('emits connect and stop', async () => {
    const resource = build();
    const seen: string[] = [];
    resource.on('connect', (info) => seen.push(`connect ${info.host}:${info.port}/${info.database}`));
    resource.on('stop', () => seen.push('stop'));
    await resource.start();
    await resource.stop();
    const { host, port, database } = kind === 'mysql' ? mysqlServer : postgresServer;
    expect(seen).toEqual([`connect ${host}:${port}/${database}`, 'stop']);
  });

  it('fails to start against a server that is down, naming host, port and database but never the password', async () => {
    const password = 'Sup3r-S3cret-Pw';
    const resource = build({ port: 1, password, connectTimeout: 2000 });
    const error = (await resource.start().catch((caught: unknown) => caught)) as SqlResourceError;
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(error.message).toContain('127.0.0.1:1');
    expect(error.message).toContain("database 'test'");
    for (const text of [error.message, error.stack ?? '', inspect(resource.config, { depth: 5 }), JSON.stringify(resource.config)]) {
      expect(text).not.toContain(password);
    }
    expect(resource.started).toBe(false);
    await resource.stop();
  });

  it('lets in-flight queries finish on stop, loses no write, and refuses calls afterwards', async () => {
    const resource = build();
    await resource.start();
    const slow = Array.from({ length: 5 }, () => resource.query(sleepSql[kind]));
    const writes = Array.from({ length: 20 }, (_, index) => resource.insert(table, { id: index, name: `row ${index}` }));
    const stopped = resource.stop();
    const outcomes = await Promise.allSettled([...slow, ...writes]);
    await stopped;
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const [{ count }] = await rawQuery(kind, `SELECT COUNT(*) AS count FROM ${q(kind, table)}`);
    expect(Number(count)).toBe(20);
    await expect(resource.read(table, { id: 1 })).rejects.toMatchObject({ code: 'NOT_STARTED', statusCode: 503 });
  });

  it('treats a second stop, and a stop before start, as harmless', async () => {
    const never = build();
    await expect(never.stop()).resolves.toBeUndefined();
    const resource = build();
    await resource.start();
    await Promise.all([resource.stop(), resource.stop()]);
    await expect(resource.stop()).resolves.toBeUndefined();
  });

  it('can be started again after a stop', async () => {
    const resource = build();
    await resource.start();
    await resource.stop();
    await resource.start();
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await resource.stop();
  });

  it('answers start through a callback as well', async () => {
    const resource = build();
    const error = await new Promise((resolve) => void resource.start((caught) => resolve(caught)));
    expect(error).toBeNull();
    await resource.stop();
  });
});

describe('mysql keep-alive', () => {
  async function idleSeconds(resource: SqlResource, waitMs: number): Promise<number> {
    await resource.start();
    const [{ id }] = (await resource.query('SELECT CONNECTION_ID() AS id')) as { id: number }[];
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    const [row] = await rawQuery('mysql', 'SELECT TIME AS idle FROM information_schema.PROCESSLIST WHERE ID = ?', [id]);
    await resource.stop();
    return Number(row.idle);
  }

  it('runs SELECT 1 every keepAliveInterval seconds, and not at all with 0', async () => {
    const manager = new ResourceManager();
    const kept = manager.add('kept', resourceConfig('mysql', { connectionLimit: 1 }, { keepAliveInterval: 1 }));
    const idle = manager.add('idle', resourceConfig('mysql', { connectionLimit: 1 }, { keepAliveInterval: 0 }));
    const [keptIdle, idleIdle] = await Promise.all([idleSeconds(kept, 3200), idleSeconds(idle, 3200)]);
    expect(keptIdle).toBeLessThanOrEqual(1);
    expect(idleIdle).toBeGreaterThanOrEqual(2);
  });
});

describe.each(kinds)('%s resource and the process', (kind: Kind) => {
  it('lets the process exit once stopped: no timer or socket is left behind', async () => {
    const config = JSON.stringify(resourceConfig(kind, {}, kind === 'mysql' ? { keepAliveInterval: 1 } : {}));
    const script = `
      const { ResourceManager } = require('./src');
      const resource = new ResourceManager().add('exit', ${config});
      resource.start().then(() => new Promise((r) => setTimeout(r, 1500))).then(() => resource.stop()).then(() => console.log('stopped'));
    `;
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: resolve(__dirname, '../..') });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        done(exitCode);
      });
    });
    // Exited by itself (a process kept alive is killed at 20 s, and its code is then null).
    expect(output.trim()).toBe('stopped');
    expect(code).toBe(0);
  });
});
