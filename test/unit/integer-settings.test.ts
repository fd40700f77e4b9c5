import { createApp, type App } from '../../src/host/app';
import { SqlResourceError } from '../../src/errors';
import { runCli } from '../support/cli';
import { profileFiles } from '../support/profile-files';

/**
 * Hostile values for integer settings, wherever they come from: written in the YAML profile,
 * substituted from the environment with `{{NAME}}`, or given on the command line. Each is
 * refused with CONFIG_INVALID and a message naming where and the key; the value is never
 * quoted (it may be a secret from the environment), except on the command line.
 * No database: the profile is refused before anything connects.
 */

const hostile = ['12abc', '1e3', '-1', '9007199254740992'];

/** An integer setting of the profile, how to write it in YAML, and the rule its refusal states. */
interface Setting {
  key: string;
  yaml: (value: string) => string;
  message: string;
}

/**
 * The refusal of a profile file with one problem: at the line and column of the setting's value,
 * the setting's path, then the rule. `lastKey` is found in `yaml` to know where the value stands.
 */
function oneProblem(yaml: string, key: string, rule: string): string {
  const lastKey = key.split('.').pop()!;
  const lines = yaml.split('\n');
  const line = lines.findIndex((text) => text.trimStart().startsWith(`${lastKey}: `));
  const column = lines[line].indexOf(`${lastKey}: `) + lastKey.length + 3;
  return `profile has 1 problem:\n- line ${line + 1}, column ${column}: ${key}: ${rule}`;
}

/** What the profile schema says of a number that is not an integer. */
const notAnInteger = 'must be an integer, got a number';

const resource = (extra: string, server = ''): string =>
  `resources:\n  db:\n    _class: mysql\n    server:\n      host: 127.0.0.1\n      database: test\n${server}${extra}`;

const settings: Setting[] = [
  { key: 'server.port', yaml: (v) => `server:\n  port: ${v}\n`, message: 'must be an integer from 0 to 65535' },
  { key: 'server.bodyLimit', yaml: (v) => `server:\n  bodyLimit: ${v}\n`, message: 'must be a positive integer' },
  { key: 'server.requestTimeout', yaml: (v) => `server:\n  requestTimeout: ${v}\n`, message: 'must be an integer from 0 to 2147483647' },
  { key: 'server.json.maxDepth', yaml: (v) => `server:\n  json:\n    maxDepth: ${v}\n`, message: 'must be an integer from 1 to 1000' },
  { key: "resources.db.server.port", yaml: (v) => resource('', `      port: ${v}\n`), message: 'must be an integer from 1 to 65535' },
  { key: 'resources.db.streamBatchSize', yaml: (v) => resource(`    streamBatchSize: ${v}\n`), message: 'must be a positive integer' },
  { key: 'resources.db.keepAliveInterval', yaml: (v) => resource(`    keepAliveInterval: ${v}\n`), message: 'must be an integer from 0 to 2147483' },
  { key: 'resources.db.server.connectionLimit', yaml: (v) => resource('', `      connectionLimit: ${v}\n`), message: 'must be an integer from 1 to 10000' },
  { key: 'resources.db.server.connectTimeout', yaml: (v) => resource('', `      connectTimeout: ${v}\n`), message: 'must be an integer from 0 to 2147483647' },
  {
    key: 'resources.pg.server.max',
    yaml: (v) => `resources:\n  pg:\n    _class: postgresql\n    server:\n      host: 127.0.0.1\n      database: test\n      max: ${v}\n`,
    message: 'must be an integer from 1 to 10000',
  },
];

/** Settings whose string values take `{{NAME}}` from the environment. */
const fromEnvironment = settings.filter((setting) => !/streamBatchSize|keepAliveInterval/.test(setting.key));

const writeProfile = profileFiles('sr-integers-').write;

function refusal(build: () => unknown): SqlResourceError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(SqlResourceError);
    return error as SqlResourceError;
  }
  throw new Error('expected the profile to be refused');
}

describe('integer settings written in the YAML profile', () => {
  describe.each(settings)('$key', ({ key, yaml, message }) => {
    it.each(hostile)('refuses %s, naming the key', (value) => {
      const error = refusal(() => createApp(writeProfile(yaml(value))));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(oneProblem(yaml(value), key, message));
    });

    it.each(['"1e3"', "'12abc'", '1000.0', '0x3E8', '0o1750', '01000', '+1000'])('refuses %s too', (value) => {
      expect(refusal(() => createApp(writeProfile(yaml(value)))).message).toBe(oneProblem(yaml(value), key, message));
    });

    it.each(['1.5', '.inf'])('refuses %s as the schema finds it: not an integer', (value) => {
      expect(refusal(() => createApp(writeProfile(yaml(value)))).message).toBe(oneProblem(yaml(value), key, notAnInteger));
    });

    it('accepts decimal digits, quoted or not', () => {
      expect(() => createApp(writeProfile(yaml('1000')))).not.toThrow();
      expect(() => createApp(writeProfile(yaml("'1000'")))).not.toThrow();
    });
  });

  it('reads the accepted values as integers', () => {
    const app = createApp(writeProfile(resource('    streamBatchSize: 50\n    keepAliveInterval: "0"\n', '      port: 6000\n')));
    const db = app.resources.get('db') as unknown as { streamBatchSize: number; keepAliveInterval: number; config: { server: { port: number } } };
    expect([db.streamBatchSize, db.keepAliveInterval, db.config.server.port]).toEqual([50, 0, 6000]);
  });

  it('leaves other numbers as YAML reads them, and keeps the text of a non-decimal integer', () => {
    const app = createApp(writeProfile('server:\n  port: 1000\napp:\n  ratio: 1.5\n  big: 1e3\n  hex: 0x10\n  keys:\n    1e3: x\n'));
    expect(app.profile.app).toEqual({ ratio: 1.5, big: '1e3', hex: '0x10', keys: { 1000: 'x' } });
  });
});

describe('integer settings from the environment ({{NAME}})', () => {
  const variable = 'SR_TEST_HOSTILE_INTEGER';

  afterEach(() => {
    delete process.env[variable];
  });

  describe.each(fromEnvironment)('$key', ({ key, yaml, message }) => {
    it.each([...hostile, '1000.0', ' 1000', '0x3E8'])('refuses %p, naming the key and not the value', (value) => {
      process.env[variable] = value;
      const error = refusal(() => createApp(writeProfile(yaml(`'{{${variable}}}'`))));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(oneProblem(yaml(`'{{${variable}}}'`), key, message));
    });

    it('accepts decimal digits, and an empty value is the default', () => {
      process.env[variable] = '1000';
      expect(() => createApp(writeProfile(yaml(`'{{${variable}}}'`)))).not.toThrow();
      process.env[variable] = '';
      expect(() => createApp(writeProfile(yaml(`'{{${variable}}}'`)))).not.toThrow();
    });
  });

  it('never echoes a value that may be a secret', () => {
    process.env[variable] = 'S3cr3t-hunter2';
    const yaml = resource('', `      port: '{{${variable}}}'\n      password: '{{${variable}}}'\n`);
    const error = refusal(() => createApp(writeProfile(yaml)));
    expect(error.message).toBe(oneProblem(yaml, 'resources.db.server.port', 'must be an integer from 1 to 65535'));
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain('S3cr3t');
  });

  it('reads the host port from the environment', async () => {
    process.env[variable] = '0';
    const app: App = createApp({ server: { port: `{{${variable}}}`, endpoints: [{ path: '/h', handler: 'peopleStats' }], lib: require.resolve('../../examples/handlers.js') } });
    await app.start();
    try {
      expect(app.address()?.port).toBeGreaterThan(0);
    } finally {
      await app.stop();
    }
  });
});

describe('start({ port })', () => {
  it.each([-1, 65536, 1.5, 2 ** 53])('refuses %p before starting anything', async (port) => {
    const app = createApp({ resources: {} });
    await expect(app.start({ port })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: 'start(): port must be an integer from 0 to 65535' });
  });
});

describe('integer settings on the command line', () => {
  it.each([...hostile, '1000.0', '0x50', '', ' 80', '65536'])("serve --port=%p is refused, echoing the value", async (value) => {
    const result = await runCli(['serve', 'examples/people.yml', `--port=${value}`]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`--port must be an integer from 0 to 65535, got '${value}'`);
    expect(result.stdout).toBe('');
  });

  it('check lists a refused setting once, under one header', async () => {
    const path = writeProfile(settings[0].yaml('1e3'));
    const result = await runCli(['check', path]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`${path} has 1 problem:\n- line 2, column 9: server.port: must be an integer from 0 to 65535`);
  });

  it('check lists the problems of the endpoints once, under one header', async () => {
    const path = writeProfile(`${resource('')}server:\n  endpoints:\n    - { path: x, endpoint: list, resource: db, sql: 'SELECT 1' }\n    - { path: /y, endpoint: find, resource: db }\n`);
    const result = await runCli(['check', path]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      [
        `${path} has 2 problems:`,
        "- line 9, column 15: server.endpoints[0] (x): path must start with '/'",
        "- line 10, column 29: server.endpoints[1] (/y): endpoint 'find' is not one of list, read, readOne, create, update, delete",
      ].join('\n'),
    );
  });
});
