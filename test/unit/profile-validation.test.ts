import { createApp, SqlResourceError } from '../../src';
import { problemsOf as listedProblems } from '../../src/host/problems';

const resources = {
  db: { _class: 'mysql', server: { host: '127.0.0.1', database: 'test' } },
  pg: { _class: 'postgres', server: { host: '127.0.0.1', database: 'test' } },
};

function problemsOf(endpoints: unknown[], server: Record<string, unknown> = {}): string {
  try {
    createApp({ resources, server: { ...server, endpoints } });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the profile to be refused');
}

describe('profile validation at startup', () => {
  it('accepts every endpoint kind with its default method', () => {
    const app = createApp({
      resources,
      server: {
        endpoints: [
          { path: '/a', endpoint: 'list', resource: 'db', sql: 'SELECT 1' },
          { path: '/a/:id', endpoint: 'read', resource: 'db', table: 't', id_field: 'id' },
          { path: '/b/:id', endpoint: 'readOne', resource: 'pg', sql: 'SELECT * FROM t WHERE id = {{id}}' },
          { path: '/a', endpoint: 'create', resource: 'db', table: 't', id_field: 'id' },
          { path: '/a/:id', endpoint: 'update', resource: 'db', table: 't', id_field: 'id' },
          { path: '/a/:id', endpoint: 'delete', resource: 'db', table: 't', id_field: 'id' },
        ],
      },
    });
    expect(app.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`)).toEqual([
      'GET /a',
      'GET /a/:id',
      'GET /b/:id',
      'POST /a',
      'PUT /a/:id',
      'DELETE /a/:id',
    ]);
  });

  it('reports every problem at once, one line each', () => {
    const message = problemsOf([
      { path: '/x', endpoint: 'list', resource: 'nope', sql: 'SELECT 1' },
      { path: '/y', endpoint: 'find', resource: 'db' },
      { path: 'z', endpoint: 'read', resource: 'db', table: 't', id_field: 'id' },
      { path: '/d', endpoint: 'create', resource: 'db', table: 't' },
      { path: '/d', endpoint: 'create', resource: 'db', table: 't' },
      { path: '/m', endpoint: 'list', resource: 'db' },
      { path: '/r/:id', endpoint: 'read', resource: 'db', table: 't' },
      { path: '/u/:id', endpoint: 'update', resource: 'db' },
      { path: '/t', endpoint: 'list', resource: 'db', sql: "SELECT * FROM t WHERE a = '{{x}}" },
      { path: '/h', handler: 'stats' },
      { path: '/v', endpoint: 'list', resource: 'db', sql: 'SELECT 1', method: 'FETCH' },
      'not an endpoint',
    ]);
    const lines = message.split('\n').slice(1);
    expect(message).toMatch(/^profile has 11 problems:/);
    expect(lines).toEqual([
      "- server.endpoints[0] (/x): resource 'nope' is not declared in resources",
      "- server.endpoints[1] (/y): endpoint 'find' is not one of list, read, readOne, create, update, delete",
      "- server.endpoints[2] (z): path must start with '/'",
      '- server.endpoints[4] (/d): duplicate route POST /d',
      '- server.endpoints[5] (/m): a list endpoint needs sql or table',
      '- server.endpoints[6] (/r/:id): a read endpoint needs id_field',
      '- server.endpoints[7] (/u/:id): an update endpoint needs table and id_field',
      expect.stringMatching(/^- server\.endpoints\[8\] \(\/t\): sql template: .*unterminated/),
      "- server.endpoints[9] (/h): handler 'stats' needs server.lib",
      "- server.endpoints[10] (/v): method 'FETCH' is not an HTTP method",
      '- server.endpoints[11]: must be a mapping, got a string',
    ]);
  });

  it('throws one CONFIG_INVALID SqlResourceError whose problems check lists one per line', () => {
    let caught: unknown;
    try {
      createApp({ resources, server: { endpoints: [{ path: 'x', endpoint: 'list', resource: 'db', sql: 'SELECT 1' }, { path: '/y', endpoint: 'find', resource: 'db' }] } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SqlResourceError);
    expect(caught).toMatchObject({ code: 'CONFIG_INVALID', statusCode: 500 });
    expect(listedProblems(caught)).toEqual([
      "server.endpoints[0] (x): path must start with '/'",
      "server.endpoints[1] (/y): endpoint 'find' is not one of list, read, readOne, create, update, delete",
    ]);
    expect((caught as Error).message).toBe(`profile has 2 problems:\n- ${listedProblems(caught).join('\n- ')}`);
  });

  it.each([
    [{ endpoints: 'all' }, 'profile has 1 problem:\n- server.endpoints: must be a list, got a string'],
    [{ cors: ['*'] }, 'profile has 1 problem:\n- server.cors: must be a mapping, got a list'],
    [{ lib: 42, endpoints: [{ path: '/h', handler: 'x' }] }, 'profile has 1 problem:\n- server.lib: must be a string, got an integer'],
  ])('refuses %p with CONFIG_INVALID', (server, message) => {
    expect(() => createApp({ resources, server })).toThrow(expect.objectContaining({ name: 'SqlResourceError', code: 'CONFIG_INVALID', message }));
  });

  it('refuses a server that is not a mapping with CONFIG_INVALID', () => {
    expect(() => createApp({ resources, server: 'x' as unknown as Record<string, unknown> })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: 'profile has 1 problem:\n- server: must be a mapping, got a string' }),
    );
  });

  it('refuses a server.lib that cannot be loaded with CONFIG_INVALID, keeping the cause', () => {
    let caught: unknown;
    try {
      createApp({ resources, server: { lib: '/nonexistent/lib.js', endpoints: [{ path: '/h', handler: 'x' }] } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(/^profile: server\.lib \/nonexistent\/lib\.js cannot be loaded: /) });
    expect((caught as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
  });

  it('refuses a template that puts a placeholder in an identifier', () => {
    expect(problemsOf([{ path: '/t', endpoint: 'list', resource: 'db', sql: 'SELECT * FROM `{{table}}`' }])).toContain('sql template');
  });

  it('refuses a server.lib that does not export the handler', () => {
    expect(problemsOf([{ path: '/h', handler: 'missing' }], { lib: require.resolve('../../examples/handlers.js') })).toContain(
      "server.lib exports no function 'missing'",
    );
    expect(problemsOf([{ path: '/h', handler: 'x' }], { lib: '/nonexistent/lib.js' })).toContain('cannot be loaded');
  });
});

describe('profile server settings', () => {
  it.each([
    [{ port: 'eighty' }, 'server.port: must be an integer from 0 to 65535'],
    [{ port: 70000 }, 'server.port: must be an integer from 0 to 65535'],
    [{ bodyLimit: -5 }, 'server.bodyLimit: must be a positive integer'],
    [{ cors: 'yes' }, 'server.cors: must be a mapping, got a string'],
  ])('refuses %p', async (server, problem) => {
    const message = `profile has 1 problem:\n- ${problem}`;
    const build = async (): Promise<void> => {
      const app = createApp({ resources: {}, server: { ...server, endpoints: [{ path: '/h', handler: 'peopleStats' }], lib: require.resolve('../../examples/handlers.js') } });
      await app.start({ port: 0 });
      await app.stop();
    };
    await expect(build()).rejects.toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message }));
  });
});

describe('profile CORS', () => {
  it('refuses credentials from any origin', () => {
    expect(() => createApp({ resources: {}, server: { cors: { origins: '*', credentials: true } } })).toThrow('cannot allow credentials from any origin');
  });
});
