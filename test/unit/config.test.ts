import { inspect } from 'node:util';
import { MysqlResource, PostgresResource, ResourceManager, mysqlDialect, register, SqlResource, type SqlResourceError } from '../../src';
import type { DriverAdapter } from '../../src/driver-adapter';
import { clientEncodingOf } from '../../src/dialects/postgres/postgres-adapter';
import { createApp } from '../../src/host/app';

const server = { host: '127.0.0.1', database: 'test' };

function configError(build: () => unknown): SqlResourceError {
  try {
    build();
  } catch (error) {
    return error as SqlResourceError;
  }
  throw new Error('expected a configuration error');
}

describe.each([
  ['mysql', MysqlResource, 3306],
  ['postgres', PostgresResource, 5432],
] as const)('%s configuration', (kind, ResourceClass, defaultPort) => {
  it('applies the defaults', () => {
    const resource = new ResourceClass('db', { _class: kind, server });
    expect(resource.config.server).toMatchObject({ port: defaultPort, charset: 'UTF8MB4_GENERAL_CI', timezone: 'local', preparedStatements: true });
  });

  it('reads streamBatchSize, 200 rows by default, and refuses anything but a positive integer', () => {
    expect(new ResourceClass('db', { _class: kind, server }).streamBatchSize).toBe(200);
    expect(new ResourceClass('db', { _class: kind, server, streamBatchSize: '' }).streamBatchSize).toBe(200);
    expect(new ResourceClass('db', { _class: kind, server, streamBatchSize: 50 }).streamBatchSize).toBe(50);
    expect(new ResourceClass('db', { _class: kind, server, streamBatchSize: '1' }).streamBatchSize).toBe(1);
    for (const bad of [0, -1, 1.5, '12 rows', '12abc', '1e3', '050', 2 ** 53, true, [10], { rows: 10 }]) {
      const error = configError(() => new ResourceClass('db', { _class: kind, server, streamBatchSize: bad }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe("resource 'db': streamBatchSize must be a positive integer");
    }
  });

  it('accepts a numeric string port and passes other server keys through', () => {
    const resource = new ResourceClass('db', { _class: kind, server: { ...server, port: '6000', connectTimeout: 1500 } });
    expect(resource.config.server.port).toBe(6000);
    expect(resource.config.server.driverOptions).toEqual({ connectTimeout: 1500 });
  });

  it.each([
    [{ _class: kind }, 'server is required'],
    [{ _class: kind, server: 'db.example' }, 'server must be an object'],
    [{ _class: kind, server: { database: 'test' } }, 'server.host is required'],
    [{ _class: kind, server: { host: '127.0.0.1' } }, 'server.database is required'],
    [{ _class: kind, server: { ...server, host: 42 } }, 'server.host must be a string'],
    [{ _class: kind, server: { ...server, port: 'http' } }, 'server.port must be an integer from 1 to 65535'],
    [{ _class: kind, server: { ...server, port: 70000 } }, 'server.port must be an integer from 1 to 65535'],
    [{ _class: kind, server: { ...server, port: '1e3' } }, 'server.port must be an integer from 1 to 65535'],
    [{ _class: kind, server: { ...server, timezone: 'Europe/Paris' } }, 'server.timezone must be'],
    [{ _class: kind, server: { ...server, user: ['root'] } }, 'server.user must be a string'],
    [{ _class: kind, server: { ...server, preparedStatements: 'yes' } }, 'server.preparedStatements must be a boolean'],
    ['mysql://root@127.0.0.1/test', 'configuration must be an object'],
  ])('refuses %p, naming the resource and the key', (config, message) => {
    const error = configError(() => new ResourceClass('orders-db', config));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain("resource 'orders-db'");
    expect(error.message).toContain(message);
  });

  it('substitutes {{ENV}} in server strings and names an undefined variable', () => {
    process.env.SR_TEST_DB_HOST = '127.0.0.9';
    const resource = new ResourceClass('db', { _class: kind, server: { host: '{{SR_TEST_DB_HOST}}', database: 'db_{{ SR_TEST_DB_HOST }}' } });
    expect(resource.config.server.host).toBe('127.0.0.9');
    expect(resource.config.server.database).toBe('db_127.0.0.9');
    const error = configError(() => new ResourceClass('db', { _class: kind, server: { ...server, password: '{{SR_TEST_UNDEFINED_VAR}}' } }));
    expect(error.message).toBe("resource 'db': server.password refers to the undefined environment variable SR_TEST_UNDEFINED_VAR");
  });

  it('keeps the password out of logs, JSON and errors', () => {
    const password = 'pa55-word-xyz';
    const resource = new ResourceClass('db', { _class: kind, server: { ...server, password } });
    expect(resource.config.server.password).toBe(password);
    expect(JSON.stringify(resource.config)).not.toContain(password);
    expect(inspect(resource, { depth: 6 })).not.toContain(password);
    const error = configError(() => new ResourceClass('db', { _class: kind, server: { ...server, password, port: 'x' } }));
    expect(error.message).not.toContain(password);
  });

  it('freezes its configuration', () => {
    const resource = new ResourceClass('db', { _class: kind, server });
    expect(Object.isFrozen(resource.config)).toBe(true);
    expect(Object.isFrozen(resource.config.server)).toBe(true);
  });
});

describe('kind-specific configuration', () => {
  it('mysql reads keepAliveInterval in seconds, 20 by default', () => {
    expect(new MysqlResource('db', { _class: 'mysql', server }).keepAliveInterval).toBe(20);
    expect(new MysqlResource('db', { _class: 'mysql', server, keepAliveInterval: '0' }).keepAliveInterval).toBe(0);
    expect(configError(() => new MysqlResource('db', { _class: 'mysql', server, keepAliveInterval: -1 })).message).toBe(
      "resource 'db': keepAliveInterval must be an integer from 0 to 2147483",
    );
  });

  it('mysql refuses a charset mysql2 does not know, at load', () => {
    expect(configError(() => new MysqlResource('db', { _class: 'mysql', server: { ...server, charset: 'KLINGON_CI' } })).message).toBe(
      "resource 'db': server.charset 'KLINGON_CI' is not a charset or collation mysql2 knows",
    );
    expect(new MysqlResource('db', { _class: 'mysql', server: { ...server, charset: 'utf8_general_ci' } }).config.server.charset).toBe('utf8_general_ci');
  });

  it('postgres maps UTF8 charsets to the client encoding and refuses others', () => {
    for (const charset of ['UTF8_GENERAL_CI', 'UTF-8', 'utf8mb4']) {
      const resource = new PostgresResource('db', { _class: 'postgres', server: { ...server, charset } });
      expect({ charset, kept: resource.config.server.charset, clientEncoding: clientEncodingOf(resource.config.server.charset) }).toEqual({
        charset,
        kept: charset,
        clientEncoding: 'UTF8',
      });
    }
    expect(configError(() => new PostgresResource('db', { _class: 'postgres', server: { ...server, charset: 'LATIN1_SWEDISH_CI' } })).message).toBe(
      "resource 'db': server.charset must be a UTF8 charset for postgres (the pg driver decodes UTF-8 only)",
    );
  });
});

describe('registry and resource manager', () => {
  it('builds each kind from _class, and names an unknown one', () => {
    const manager = new ResourceManager();
    expect(manager.add('a', { _class: 'mysql', server })).toBeInstanceOf(MysqlResource);
    expect(manager.add('b', { _class: 'postgres', server })).toBeInstanceOf(PostgresResource);
    const error = configError(() => manager.add('c', { _class: 'oracle', server }));
    expect(error).toMatchObject({ code: 'UNKNOWN_CLASS' });
    expect(error.message).toContain("unknown _class 'oracle'");
    expect(error.message).toContain("resource 'c'");
    expect(configError(() => manager.add('d', { server })).message).toContain("resource 'd': _class is required");
  });

  it('gets, tells existence and names an unknown id', () => {
    const manager = new ResourceManager();
    const resource = manager.add('main', { _class: 'mysql', server });
    expect(manager.get('main')).toBe(resource);
    expect(manager.exist('main')).toBe(true);
    expect(manager.exist('other')).toBe(false);
    expect(() => manager.get('other')).toThrow("no resource with id 'other' (declared: main)");
    expect(() => manager.add('main', { _class: 'mysql', server })).toThrow('declared twice');
  });

  it('accepts new classes and refuses to replace a built-in one', () => {
    class CustomResource extends SqlResource {
      constructor(id: string, config: unknown) {
        super(id, config, mysqlDialect, 1);
      }
      protected createAdapter(): DriverAdapter {
        throw new Error('not used');
      }
    }
    register('custom', CustomResource);
    expect(new ResourceManager().add('x', { _class: 'custom', server })).toBeInstanceOf(CustomResource);
    expect(() => register('mysql', CustomResource)).toThrow('built in');
  });

  it('createApp refuses a broken resource configuration', () => {
    expect(() => createApp({ resources: { db: { _class: 'mysql', server: { host: '127.0.0.1' } } } })).toThrow(
      "profile has 1 problem:\n- resources.db.server: 'database' is required",
    );
    expect(() => createApp('/nonexistent/profile.yml')).toThrow('cannot read profile');
  });
});
