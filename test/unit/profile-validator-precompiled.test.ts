import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { compileValidator, writePrecompiledValidator } from '../../src/host/schema/compile';
import { profileSchema } from '../../src/host/schema/profile-schema';

/**
 * `npm run build` writes the built-in classes' validator as code (compile.ts), which a start
 * loads instead of compiling the schema. Written here the same way, it must judge every profile
 * exactly as the validator compiled at run time does, errors and the schema they cite included.
 */

const profiles: [string, unknown][] = [
  ['a valid profile', { name: 'x', resources: { db: { _class: 'mysql', keepAliveInterval: 0, server: { host: 'h', database: 'd', port: '3306' } } }, server: { port: 8077, endpoints: [{ path: '/t', endpoint: 'list', resource: 'db', sql: 'SELECT 1', category: 'c' }] } }],
  ['unknown keys at three levels', { endpoints: [], resources: { db: { _class: 'postgres', keepAliveInterval: 1, server: { host: 'h', database: 'd', prot: 1 } } }, server: { prot: 1 } }],
  ['wrong types and a missing key', { resources: { db: { _class: 'mysql', server: { host: 1 } } }, server: { port: 1.5, cors: [], hsts: 'on', endpoints: [{ path: 'x', endpoint: 'lsit', sql: 5 }, 'no'] } }],
  ['an unknown class', { resources: { db: { _class: 'oracle', server: {} } } }],
  ['not a mapping', ['a list']],
];

describe('the precompiled profile validator', () => {
  let dir = '';
  let precompiled: ValidateFunction;
  const compiled = compileValidator(profileSchema());

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sr-validator-'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    precompiled = require(writePrecompiledValidator(dir)) as ValidateFunction;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const judged = (validate: ValidateFunction, profile: unknown): unknown => {
    const valid = validate(profile);
    return { valid, errors: (validate.errors ?? []).map(({ keyword, instancePath, params, parentSchema }) => ({ keyword, instancePath, params, parentSchema })) };
  };

  it.each(profiles)('judges %s as the run-time compiled validator does', (_name, profile) => {
    expect(judged(precompiled, profile)).toEqual(judged(compiled, profile));
  });

  it('finds the problems it should (the comparison is not between two validators that accept anything)', () => {
    expect(judged(precompiled, profiles[0][1])).toEqual({ valid: true, errors: [] });
    const errors = (judged(precompiled, profiles[1][1]) as { errors: { keyword: string; params: unknown }[] }).errors.filter((error) => error.keyword === 'additionalProperties');
    expect(errors.map((error) => error.params)).toEqual([{ additionalProperty: 'endpoints' }, { additionalProperty: 'keepAliveInterval' }, { additionalProperty: 'prot' }, { additionalProperty: 'prot' }]);
  });
});
