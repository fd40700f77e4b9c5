import { inspect } from 'node:util';
import { SqlResourceError } from '../../src/errors';
import { loadProfile } from '../../src/host/profile';
import { isSecretKey } from '../../src/host/yaml-errors';
import { profileFiles } from '../support/profile-files';

const secret = 'hunter2-S3cr3t';

const profiles = profileFiles('sr-profile-');
const writeProfile = profiles.write;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Loads `text` from a file, expects it refused as invalid YAML, and returns the error. */
function refused(text: string): { path: string; message: string; error: SqlResourceError } {
  const path = writeProfile(text);
  try {
    loadProfile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(SqlResourceError);
    const refusal = error as SqlResourceError;
    expect(refusal.code).toBe('CONFIG_INVALID');
    // toMatch prints the whole message when the start differs.
    expect(refusal.message).toMatch(new RegExp(`^${escapeRegExp(`profile ${path} is not valid YAML/JSON: `)}`));
    return { path, message: refusal.message, error: refusal };
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

/** The refusal names `line`, shows `***`, and nowhere (message, cause, stack) holds `value`. */
function expectMasked(text: string, line: number, value = secret): string {
  const { message, error } = refused(text);
  expect(message).toContain(`at line ${line}, column `);
  expect(message).toContain('***');
  expect(message).not.toContain(value);
  expect(inspect(error)).not.toContain(value);
  expect(JSON.stringify(error)).not.toContain(value);
  // no fragment of it either
  expect(message).not.toContain('S3cr3t');
  expect(message).not.toContain('hunter2');
  return message;
}

describe('loadProfile', () => {
  it('reads a valid profile, secrets included', () => {
    const path = writeProfile(`name: ok\nresources:\n  db:\n    _class: mysql\n    server: { host: h, password: '${secret}' }\n`);
    expect(loadProfile(path)).toEqual({ name: 'ok', resources: { db: { _class: 'mysql', server: { host: 'h', password: secret } } } });
  });

  it('refuses a missing file and a top level that is not a mapping', () => {
    expect(() => loadProfile(profiles.path('missing.yml'))).toThrow(/^cannot read profile /);
    const path = writeProfile('- a\n- b\n');
    expect(() => loadProfile(path)).toThrow(`profile ${path} must hold a mapping at its top level`);
  });
});

describe('YAML syntax errors do not print secret values', () => {
  it('the error on the line of the password', () => {
    const message = expectMasked(`name: x\nresources:\n  db:\n    password: ${secret}: oops\n`, 4);
    expect(message).toContain('    password: ***');
    expect(message).toContain('Nested mappings are not allowed in compact mappings');
  });

  it('the password on the line before the error', () => {
    const message = expectMasked(`server:\n  password: ${secret}\n  host: db.example: oops\n`, 3);
    expect(message).toContain('  password: ***\n  host: db.example: oops\n');
  });

  it('the password on the line after the error', () => {
    const message = expectMasked(`server:\n  host: db.example: oops\n  password: ${secret}\n`, 2);
    expect(message.endsWith('  host: db.example: oops\n        ^\n  password: ***')).toBe(true);
  });

  it('the password line more indented than its siblings', () => {
    expectMasked(`server:\n  host: h\n   password: ${secret}\n`, 2);
  });

  it('a password without a space after the colon', () => {
    expectMasked(`password:${secret}\nuser: x\n`, 1);
  });

  it('a flow mapping on one line', () => {
    const message = expectMasked(`server: { host: db.example, password: ${secret}, port: 1 }}\n`, 1);
    expect(message).toContain('server: { host: db.example, password: ***, port: 1 }}');
  });

  it('a flow mapping that is not closed', () => {
    expectMasked(`server: { host: h, password: ${secret}\n`, 2);
  });

  it('a flow mapping whose password is on the next line', () => {
    expectMasked(`server: { host: h, password:\n   ${secret} }\nother: a: b\n`, 3);
  });

  it('JSON', () => {
    const message = expectMasked(`{"server": {"host": "h", "password": "${secret}", "port": 1}}}\n`, 1);
    expect(message).toContain('"password": ***, "port": 1}}}');
  });

  it('double-quoted, single-quoted and quoted values holding commas', () => {
    expectMasked(`password: "${secret}" trailing\n`, 1);
    expectMasked(`password: '${secret}' key: value\n`, 1);
    expectMasked(`server: { host: h, "password": "${secret}, still", port: 1 }}\n`, 1, `${secret}, still`);
    expectMasked(`server: { host: h, 'password': 'a, ${secret}', port: 1 }}\n`, 1);
  });

  it('a quoted value that is never closed', () => {
    expectMasked(`server:\n  password: "${secret}\n  host: h\n`, 4);
  });

  it('a password after a quoted value that is never closed', () => {
    expectMasked(`name: "unclosed\npassword: ${secret}\n`, 3);
  });

  it('a bad escape sequence or tag inside the value (the message itself quotes the source)', () => {
    expectMasked(`password: "hunter2\\qS3cr3t"\n`, 1, 'hunter2\\qS3cr3t');
    expectMasked(`password: !${secret}!x value\n`, 1);
    const message = expectMasked(`password: |${secret}\n`, 1);
    expect(message).toContain('Block scalar header includes extra characters: ***');
  });

  it('a block scalar, with the error after it', () => {
    const message = expectMasked(`server:\n  password: |\n    ${secret}\n    second line\n  host: h: oops\n`, 5);
    expect(message).toContain('  host: h: oops');
    expect(message).not.toContain('second line');
  });

  it('a block scalar with a mis-indented line (the error is on that line)', () => {
    expectMasked(`server:\n  password: >-\n    first\n   ${secret}\n`, 4);
    expectMasked(`password: |\n${secret}\nuser: x\n`, 2);
  });

  it('a plain value continued on the next lines', () => {
    expectMasked(`server:\n  password: first\n    ${secret}\n  host: h: oops\n`, 4);
    expectMasked(`server:\n  password:\n    ${secret}\n  host: h: oops\n`, 4);
  });

  it('a password broken over a less-indented line', () => {
    expectMasked(`server:\n  password: hunter2-\nS3cr3t\n  host: h\n`, 3, 'S3cr3t');
  });

  it('a sequence of secrets', () => {
    expectMasked(`credentials:\n- ${secret}\n- second\nhost: h: oops\n`, 4);
  });

  it('a secret key that lost its colon, or whose value follows a stray bracket or comma', () => {
    expectMasked(`server:\n  host: h\n  password ${secret}\n`, 3);
    expectMasked(`server:\n  host: h\n  password=${secret}\n`, 3);
    expectMasked(`server:\n  host: h\n  password, ${secret}\n`, 3);
    const message = expectMasked(`server: { host: h, password:] ${secret}, port: 1 }\n`, 1);
    expect(message).toContain('password:] ***, port: 1 }');
    expectMasked(`server: { host: h, token} "${secret}", port: 1 }\n`, 1);
  });

  it('an explicit key', () => {
    expectMasked(`? password\n: ${secret}\nhost: h: oops\n`, 3);
  });

  it('CRLF line endings', () => {
    expectMasked(`a: 1\r\npassword: ${secret}: oops\r\n`, 2);
  });

  it('a line longer than the excerpt shows', () => {
    const message = expectMasked(`server: { note: ${'x'.repeat(90)}, password: ${secret} }}\n`, 1);
    expect(message).toContain('xxx, password: *** }}\n');
  });

  it('every key named like a secret', () => {
    const keys = ['Password', 'DB_PASSWORD', 'passwd', 'pwd', 'client_secret', 'secretAccessKey', 'token', 'authToken', 'apikey', 'api_key', 'api-key', 'ApiKey',
      'private_key', 'privateKey', 'credentials', 'key', 'ssh_key', 'signingKey', 'SSH_KEY', "'password'", '"db-password"'];
    for (const key of keys) {
      const message = expectMasked(`server:\n  host: h\n  ${key}: ${secret}: oops\n`, 3);
      expect(message).toContain(`  ${key}: ***`);
    }
  });

  it('a password in a URL', () => {
    const message = expectMasked(`server:\n  url: postgres://app:${secret}@db.example/app: oops\n`, 2);
    expect(message).toContain('postgres://app:***@db.example/app');
  });

  it('keeps other values as they are', () => {
    const { path, message } = refused('server:\n  host: db.example\n  user: app: oops\n');
    expect(message).toBe(
      `profile ${path} is not valid YAML/JSON: Nested mappings are not allowed in compact mappings at line 3, column 9:\n\n` +
        '  host: db.example\n  user: app: oops\n        ^',
    );
  });

  it('points at the masked value when the error is inside it', () => {
    const { message } = refused(`a: 1\npassword: ${secret}: oops\n`);
    expect(message.endsWith('a: 1\npassword: ***\n          ^^^')).toBe(true);
  });
});

describe('YAML warnings do not print secret values', () => {
  it('an unknown tag on the password', () => {
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const path = writeProfile(`server:\n  password: !${secret} value\n`);
      expect(loadProfile(path)).toEqual({ server: { password: 'value' } });
      expect(warn).toHaveBeenCalledTimes(1);
      const [text] = warn.mock.calls[0] as [string];
      expect(text).toContain(`profile ${path}: Unresolved tag: *** at line 2, column 13`);
      expect(text).not.toContain('S3cr3t');
    } finally {
      warn.mockRestore();
    }
  });
});

describe('isSecretKey', () => {
  it.each(['password', 'PASSWORD', 'db_password', 'dbPassword', 'passwd', 'pwd', 'passphrase', 'secret', 'clientSecret', 'token', 'access_token',
    'apikey', 'api_key', 'api-key', 'apiKey', 'private_key', 'privateKey', 'credential', 'credentials', 'key', 'Key', 'ssh_key', 'sshKey', 'SSH_KEY',
    'pass', 'db_pass', '- password', '? password', '"password"', "'api_key'"])('%s is secret', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each(['host', 'user', 'port', 'database', 'name', 'monkey', 'keys', 'keyword', 'passenger', 'id_field', 'endpoint'])('%s is not', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });
});
