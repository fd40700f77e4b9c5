import { SqlResourceError } from '../../src/errors';
import { exactIntegerOf, integerOf, integerRule, integerSetting, isCanonicalInteger } from '../../src/integers';

describe('integerOf', () => {
  it.each([
    [0, 0],
    [-0, 0],
    [12, 12],
    [-1, -1],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    [-Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
    [12n, 12],
    ['0', 0],
    ['12', 12],
    ['-1', -1],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('reads %p as %p', (value, expected) => {
    expect(Object.is(integerOf(value), expected)).toBe(true);
  });

  it.each([
    // text that Number() or parseInt() would read as something
    '12abc',
    '1e3',
    '1E3',
    '1.0',
    '1.5',
    '0x10',
    '0o17',
    '0b1',
    '007',
    '+1',
    '-0',
    ' 7',
    '7 ',
    '1_000',
    '',
    'Infinity',
    // past 2^53: not exact as a number
    '9007199254740992',
    '-9007199254740992',
    '99999999999999999999',
  ])('refuses the text %p', (value) => {
    expect(integerOf(value)).toBeUndefined();
  });

  it.each([
    1.5,
    2 ** 53,
    -(2 ** 53),
    Infinity,
    NaN,
    2n ** 53n,
    true,
    null,
    undefined,
    [1],
    { value: 1 },
  ])('refuses the value %p', (value) => {
    expect(integerOf(value)).toBeUndefined();
  });
});

describe('isCanonicalInteger', () => {
  // Decimal digits only, without a sign but minus, leading zero or -0.
  it.each(['0', '7', '-7', '65535', '9007199254740993'])('accepts %p', (text) => {
    expect(isCanonicalInteger(text)).toBe(true);
  });

  it.each(['', '-0', '007', '+7', '1e3', '1.0', '0x10', ' 7'])('refuses %p', (text) => {
    expect(isCanonicalInteger(text)).toBe(false);
  });
});

describe('integerRule', () => {
  it('says the range in words', () => {
    expect(integerRule({ min: 0, max: 65535 })).toBe('must be an integer from 0 to 65535');
    expect(integerRule({ min: 0, max: Number.MAX_SAFE_INTEGER })).toBe('must be a non-negative integer');
    expect(integerRule({ min: 1, max: Number.MAX_SAFE_INTEGER })).toBe('must be a positive integer');
    expect(integerRule({ min: 5, max: Number.MAX_SAFE_INTEGER })).toBe('must be an integer of at least 5');
  });
});

describe('integerSetting', () => {
  const port = { min: 1, max: 65535 };

  it('answers the fallback when absent: undefined, null or the empty string', () => {
    for (const absent of [undefined, null, '']) expect(integerSetting('profile', 'server.port', absent, 8077, port)).toBe(8077);
  });

  it('reads a number or its decimal text within the range, both ends included', () => {
    expect(integerSetting('profile', 'server.port', 1, 8077, port)).toBe(1);
    expect(integerSetting('profile', 'server.port', '65535', 8077, port)).toBe(65535);
  });

  it.each(['12abc', '1e3', 1.5, -1, 0, 65536, 2 ** 53, '9007199254740992', true, {}])(
    'refuses %p with CONFIG_INVALID naming where and the key, not the value',
    (value) => {
      let caught: unknown;
      try {
        integerSetting("resource 'db'", 'server.port', value, 3306, port);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SqlResourceError);
      expect(caught).toMatchObject({ code: 'CONFIG_INVALID', statusCode: 500, message: "resource 'db': server.port must be an integer from 1 to 65535" });
    },
  );

  it('never quotes the value, which may be a secret from the environment', () => {
    expect(() => integerSetting('profile', 'server.bodyLimit', 'S3cr3t-value', 1024, { min: 1, max: Number.MAX_SAFE_INTEGER })).toThrow(
      /^profile: server\.bodyLimit must be a positive integer$/,
    );
  });
});

describe('exactIntegerOf', () => {
  it.each<[unknown, number | string]>([
    [7, 7],
    ['-12', -12],
    ['9007199254740991', 9007199254740991],
    ['9007199254740993', '9007199254740993'],
    ['-9007199254740993', '-9007199254740993'],
    [9007199254740993n, '9007199254740993'],
    [12n, 12],
  ])('reads %p exactly as %p', (value, expected) => {
    expect(exactIntegerOf(value)).toBe(expected);
  });

  it.each<unknown>(['12abc', '1e3', ' 7', '007', '+1', '-0', '1.0', 1.5, 2 ** 53, Number.NaN, null, true, {}])('refuses %p', (value) => {
    expect(exactIntegerOf(value)).toBeUndefined();
  });
});

describe('integerSetting with showValue', () => {
  it('quotes the refused value only when asked to (values that cannot be secrets)', () => {
    expect(() => integerSetting('child', '--port', '1e3', 0, { min: 0, max: 65535 }, true)).toThrow(/^child: --port must be an integer from 0 to 65535, got 1e3$/);
    expect(() => integerSetting('profile', 'server.port', '1e3', 0, { min: 0, max: 65535 })).toThrow(/^profile: server.port must be an integer from 0 to 65535$/);
  });
});
