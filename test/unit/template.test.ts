import { SqlResourceError } from '../../src/errors';
import { compileTemplate, Dialect, ParameterRule, TemplateError } from '../../src/template';

interface Expected {
  readonly sql: string;
  readonly parameterNames: readonly string[];
}

interface SharedCase {
  readonly title: string;
  readonly template: string;
  readonly mysql: Expected;
  readonly postgres: Expected;
}

interface DialectCase {
  readonly title: string;
  readonly template: string;
  readonly expected: Expected;
}

function expected(sql: string, ...parameterNames: string[]): Expected {
  return { sql, parameterNames };
}

const DIALECTS: readonly Dialect[] = ['mysql', 'postgres'];

const sharedCases: readonly SharedCase[] = [
  {
    title: 'a bare placeholder',
    template: 'SELECT * FROM t WHERE id = {{id}}',
    mysql: expected('SELECT * FROM t WHERE id = ?', 'id'),
    postgres: expected('SELECT * FROM t WHERE id = $1', 'id'),
  },
  {
    title: 'spaces inside the braces',
    template: 'SELECT * FROM t WHERE id = {{ id }}',
    mysql: expected('SELECT * FROM t WHERE id = ?', 'id'),
    postgres: expected('SELECT * FROM t WHERE id = $1', 'id'),
  },
  {
    title: 'names with dots, dashes and digits',
    template: 'SELECT {{user.id}}, {{page-size}}, {{v2_x}}',
    mysql: expected('SELECT ?, ?, ?', 'user.id', 'page-size', 'v2_x'),
    postgres: expected('SELECT $1, $2, $3', 'user.id', 'page-size', 'v2_x'),
  },
  {
    title: 'a single-quoted placeholder',
    template: "SELECT * FROM t WHERE name = '{{name}}'",
    mysql: expected('SELECT * FROM t WHERE name = ?', 'name'),
    postgres: expected('SELECT * FROM t WHERE name = $1', 'name'),
  },
  {
    title: 'a double-quoted placeholder',
    template: 'SELECT * FROM t WHERE name = "{{name}}"',
    mysql: expected('SELECT * FROM t WHERE name = ?', 'name'),
    postgres: expected('SELECT * FROM t WHERE name = $1', 'name'),
  },
  {
    title: 'the reference engine example',
    template: 'SELECT * FROM t WHERE a = "{{key}}" AND b = "{{configParam}}"',
    mysql: expected('SELECT * FROM t WHERE a = ? AND b = ?', 'key', 'configParam'),
    postgres: expected('SELECT * FROM t WHERE a = $1 AND b = $2', 'key', 'configParam'),
  },
  {
    title: 'a LIKE pattern around a placeholder',
    template: "SELECT * FROM t WHERE name LIKE '%{{q}}%'",
    mysql: expected("SELECT * FROM t WHERE name LIKE CONCAT('%', ?, '%')", 'q'),
    postgres: expected("SELECT * FROM t WHERE name LIKE ('%' || CAST($1 AS text) || '%')", 'q'),
  },
  {
    title: 'a LIKE prefix pattern (empty parts are dropped)',
    template: "SELECT * FROM t WHERE name LIKE '{{q}}%'",
    mysql: expected("SELECT * FROM t WHERE name LIKE CONCAT(?, '%')", 'q'),
    postgres: expected("SELECT * FROM t WHERE name LIKE (CAST($1 AS text) || '%')", 'q'),
  },
  {
    title: 'several placeholders in one literal',
    template: "SELECT 'a{{x}}b{{y}}'",
    mysql: expected("SELECT CONCAT('a', ?, 'b', ?)", 'x', 'y'),
    postgres: expected("SELECT ('a' || CAST($1 AS text) || 'b' || CAST($2 AS text))", 'x', 'y'),
  },
  {
    title: 'adjacent placeholders in one literal',
    template: "SELECT '{{a}}{{b}}'",
    mysql: expected('SELECT CONCAT(?, ?)', 'a', 'b'),
    postgres: expected('SELECT (CAST($1 AS text) || CAST($2 AS text))', 'a', 'b'),
  },
  {
    title: 'several variables',
    template: "SELECT * FROM t WHERE a = {{a}} AND b = '{{b}}' AND c = {{c}}",
    mysql: expected('SELECT * FROM t WHERE a = ? AND b = ? AND c = ?', 'a', 'b', 'c'),
    postgres: expected('SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3', 'a', 'b', 'c'),
  },
  {
    title: 'a repeated variable (one parameter per occurrence)',
    template: "SELECT * FROM t WHERE a = {{x}} OR b LIKE '%{{x}}' OR c = '{{x}}'",
    mysql: expected("SELECT * FROM t WHERE a = ? OR b LIKE CONCAT('%', ?) OR c = ?", 'x', 'x', 'x'),
    postgres: expected("SELECT * FROM t WHERE a = $1 OR b LIKE ('%' || CAST($2 AS text)) OR c = $3", 'x', 'x', 'x'),
  },
  {
    title: 'a placeholder in a -- comment',
    template: 'SELECT * FROM t -- filter on {{x}}\nWHERE a = {{y}}',
    mysql: expected('SELECT * FROM t -- filter on {{x}}\nWHERE a = ?', 'y'),
    postgres: expected('SELECT * FROM t -- filter on {{x}}\nWHERE a = $1', 'y'),
  },
  {
    title: 'placeholders in a block comment',
    template: "SELECT /* {{x}} '{{y}}' */ * FROM t WHERE a = {{z}}",
    mysql: expected("SELECT /* {{x}} '{{y}}' */ * FROM t WHERE a = ?", 'z'),
    postgres: expected("SELECT /* {{x}} '{{y}}' */ * FROM t WHERE a = $1", 'z'),
  },
  {
    title: 'a doubled quote in a literal with a placeholder',
    template: "SELECT 'it''s {{x}}'",
    mysql: expected("SELECT CONCAT('it''s ', ?)", 'x'),
    postgres: expected("SELECT ('it''s ' || CAST($1 AS text))", 'x'),
  },
  {
    title: 'comment markers inside a string are text',
    template: "SELECT '-- not /* a comment' AS c FROM t WHERE a = {{a}}",
    mysql: expected("SELECT '-- not /* a comment' AS c FROM t WHERE a = ?", 'a'),
    postgres: expected("SELECT '-- not /* a comment' AS c FROM t WHERE a = $1", 'a'),
  },
  {
    title: 'a template without placeholders, unchanged',
    template: "SELECT id,\n  name\nFROM t WHERE name <> 'x' -- done",
    mysql: expected("SELECT id,\n  name\nFROM t WHERE name <> 'x' -- done"),
    postgres: expected("SELECT id,\n  name\nFROM t WHERE name <> 'x' -- done"),
  },
];

const dialectCases: Record<Dialect, readonly DialectCase[]> = {
  mysql: [
    {
      title: 'a placeholder in a # comment',
      template: 'SELECT * FROM t # {{x}}\nWHERE a = {{y}}',
      expected: expected('SELECT * FROM t # {{x}}\nWHERE a = ?', 'y'),
    },
    {
      title: '-- without a following space is arithmetic, not a comment',
      template: 'SELECT 5--{{x}}',
      expected: expected('SELECT 5--?', 'x'),
    },
    {
      title: 'a -- comment at the very end',
      template: 'SELECT {{x}} --',
      expected: expected('SELECT ? --', 'x'),
    },
    {
      title: 'block comments do not nest',
      template: 'SELECT /* a /* b */ {{x}}',
      expected: expected('SELECT /* a /* b */ ?', 'x'),
    },
    {
      title: 'a backslash-escaped quote in a string',
      template: "SELECT 'it\\'s {{x}}'",
      expected: expected("SELECT CONCAT('it\\'s ', ?)", 'x'),
    },
    {
      title: 'an escaped backslash before the closing quote',
      template: "SELECT 'C:\\\\' = {{x}}",
      expected: expected("SELECT 'C:\\\\' = ?", 'x'),
    },
    {
      title: 'a backslash-escaped brace is not a placeholder',
      template: "SELECT '\\{{x}}'",
      expected: expected("SELECT '\\{{x}}'"),
    },
    {
      title: 'a double-quoted string with mixed text becomes single-quoted parts',
      template: 'SELECT "it\'s ""{{x}}"" \\"ok\\""',
      expected: expected('SELECT CONCAT(\'it\'\'s "\', ?, \'" \\"ok\\"\')', 'x'),
    },
    {
      title: 'a question mark inside a string or comment',
      template: "SELECT 'why?' /* ? */ , {{x}} # ?",
      expected: expected("SELECT 'why?' /* ? */ , ? # ?", 'x'),
    },
    {
      title: 'a charset-introduced literal without a placeholder',
      template: "SELECT _utf8mb4'abc', N'def', {{x}}",
      expected: expected("SELECT _utf8mb4'abc', N'def', ?", 'x'),
    },
    {
      title: 'a word directly before a string is not a prefix',
      template: "SELECT {{x}} AS'label'",
      expected: expected("SELECT ? AS'label'", 'x'),
    },
    {
      title: 'a backquoted identifier without a placeholder',
      template: 'SELECT `we``ird {x}` FROM t WHERE a = {{a}}',
      expected: expected('SELECT `we``ird {x}` FROM t WHERE a = ?', 'a'),
    },
  ],
  postgres: [
    {
      title: 'placeholders in $$ and $tag$ dollar-quoted strings',
      template: "SELECT $$ {{x}} $$, $tag$ '{{y}}' $$ $tag$, {{z}}",
      expected: expected("SELECT $$ {{x}} $$, $tag$ '{{y}}' $$ $tag$, $1", 'z'),
    },
    {
      title: 'block comments nest',
      template: 'SELECT /* a /* {{x}} */ {{y}} */ {{z}}',
      expected: expected('SELECT /* a /* {{x}} */ {{y}} */ $1', 'z'),
    },
    {
      title: '-- starts a comment without a following space',
      template: 'SELECT {{x}} --{{y}}\n, {{z}}',
      expected: expected('SELECT $1 --{{y}}\n, $2', 'x', 'z'),
    },
    {
      title: 'a backslash is literal in a standard string',
      template: "SELECT 'C:\\' = {{x}}",
      expected: expected("SELECT 'C:\\' = $1", 'x'),
    },
    {
      title: 'an E-string with a backslash-escaped quote',
      template: "SELECT E'it\\'s {{x}}'",
      expected: expected("SELECT (E'it\\'s ' || CAST($1 AS text))", 'x'),
    },
    {
      title: 'an E-string that is exactly one placeholder',
      template: "SELECT e'{{x}}'",
      expected: expected('SELECT $1', 'x'),
    },
    {
      title: 'an E-string without a placeholder',
      template: "SELECT E'a\\'b', {{x}}",
      expected: expected("SELECT E'a\\'b', $1", 'x'),
    },
    {
      title: 'a word ending in e before a string is not an E prefix',
      template: "SELECT * FROM t WHERE a = SOME'{x}' OR b = {{x}}",
      expected: expected("SELECT * FROM t WHERE a = SOME'{x}' OR b = $1", 'x'),
    },
    {
      title: 'a quoted identifier without a placeholder',
      template: 'SELECT "my ""col""" FROM t WHERE a = {{a}}',
      expected: expected('SELECT "my ""col""" FROM t WHERE a = $1', 'a'),
    },
    {
      title: 'a $ inside an identifier does not open a dollar quote',
      template: 'SELECT a$b$ FROM t WHERE a = {{a}}',
      expected: expected('SELECT a$b$ FROM t WHERE a = $1', 'a'),
    },
    {
      title: 'jsonb ? operators are text',
      template: "SELECT * FROM t WHERE data ? 'k' AND data ?| array['a'] AND id = {{id}}",
      expected: expected("SELECT * FROM t WHERE data ? 'k' AND data ?| array['a'] AND id = $1", 'id'),
    },
    {
      title: 'a cast after a quoted placeholder',
      template: "SELECT '{{d}}'::date, {{n}}::int",
      expected: expected('SELECT $1::date, $2::int', 'd', 'n'),
    },
    {
      title: 'parameters numbered past nine',
      template: Array.from({ length: 11 }, (_, i) => `{{v${i}}}`).join(','),
      expected: expected(
        '$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11',
        ...Array.from({ length: 11 }, (_, i) => `v${i}`),
      ),
    },
  ],
};

interface RejectedCase {
  readonly title: string;
  readonly template: string;
  readonly message: RegExp;
  readonly variable?: string;
}

const sharedRejections: readonly RejectedCase[] = [
  { title: 'an unterminated single-quoted string', template: "SELECT 'abc", message: /unterminated string literal/ },
  { title: 'an unterminated block comment', template: 'SELECT 1 /* abc', message: /unterminated block comment/ },
  { title: 'an unterminated placeholder', template: 'SELECT {{x', message: /unterminated placeholder/ },
  { title: 'an unterminated placeholder in a string', template: "SELECT '{{x'", message: /unterminated placeholder/ },
  { title: 'an empty placeholder', template: 'SELECT {{ }}', message: /invalid placeholder/ },
  { title: 'a name with a space', template: 'SELECT {{a b}}', message: /invalid placeholder \{\{a b\}\}/ },
  { title: 'a name with a quote', template: "SELECT '{{x' || '}}'", message: /invalid placeholder/ },
];

const dialectRejections: Record<Dialect, readonly RejectedCase[]> = {
  mysql: [
    {
      title: 'a placeholder in a backquoted identifier',
      template: 'SELECT `{{col}}` FROM t',
      message: /not identifiers/,
      variable: 'col',
    },
    {
      title: 'a placeholder among text in a backquoted identifier',
      template: 'SELECT * FROM `t_{{suffix}}`',
      message: /not identifiers/,
      variable: 'suffix',
    },
    { title: 'an unterminated double-quoted string', template: 'SELECT "abc', message: /unterminated string literal/ },
    { title: 'a string ending in an escaped quote', template: "SELECT 'abc\\'", message: /unterminated string literal/ },
    { title: 'an unterminated backquoted identifier', template: 'SELECT `abc', message: /unterminated quoted identifier/ },
    { title: 'a bare ? that would shift the parameters', template: 'SELECT ? , {{x}}', message: /"\?"/ },
    {
      title: 'a placeholder in a prefixed literal',
      template: "SELECT N'{{x}}'",
      message: /N-prefixed literal/,
      variable: 'x',
    },
  ],
  postgres: [
    {
      title: 'a placeholder among text in a quoted identifier',
      template: 'SELECT "col_{{x}}" FROM t',
      message: /not identifiers/,
      variable: 'x',
    },
    {
      title: 'a placeholder in a unicode identifier',
      template: 'SELECT U&"{{x}}" FROM t',
      message: /not identifiers/,
      variable: 'x',
    },
    {
      title: 'a placeholder in a bit-string literal',
      template: "SELECT B'{{x}}'",
      message: /B-prefixed literal/,
      variable: 'x',
    },
    { title: 'an unterminated quoted identifier', template: 'SELECT "abc', message: /unterminated quoted identifier/ },
    { title: 'an unterminated E-string', template: "SELECT E'abc\\'", message: /unterminated string literal/ },
    { title: 'an unterminated $$ string', template: 'SELECT $$ abc', message: /unterminated dollar-quoted/ },
    {
      title: 'a $tag$ string closed by another tag',
      template: 'SELECT $a$ abc $b$',
      message: /unterminated dollar-quoted/,
    },
    { title: 'an unclosed nested comment', template: 'SELECT /* a /* b */', message: /unterminated block comment/ },
    { title: 'a positional parameter', template: 'SELECT $1, {{x}}', message: /positional parameter/ },
  ],
};

function compileError(template: string, dialect: Dialect): TemplateError {
  try {
    compileTemplate(template, dialect);
  } catch (error) {
    if (error instanceof TemplateError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(template)} to be rejected`);
}

describe.each(DIALECTS)('compileTemplate (%s)', (dialect) => {
  const cases = [
    ...sharedCases.map(({ title, template, ...byDialect }) => ({ title, template, expected: byDialect[dialect] })),
    ...dialectCases[dialect],
  ];

  it.each(cases)('compiles $title', ({ template, expected: { sql, parameterNames } }) => {
    const compiled = compileTemplate(template, dialect);
    expect(compiled.sql).toBe(sql);
    expect(compiled.parameterNames).toEqual(parameterNames);
  });

  it.each([...sharedRejections, ...dialectRejections[dialect]])(
    'rejects $title',
    ({ template, message, variable }) => {
      const error = compileError(template, dialect);
      expect(error.message).toMatch(message);
      expect(error.variable).toBe(variable);
    },
  );

  it('says where the problem is', () => {
    expect(compileError("SELECT 1\n  , 'abc", dialect).message).toMatch(/line 2, column 5/);
  });

  it('lists distinct variables in order of first appearance', () => {
    const compiled = compileTemplate("SELECT {{b}}, '{{a}}', '%{{b}}%', {{c}}, {{a}}", dialect);
    expect(compiled.parameterNames).toEqual(['b', 'a', 'b', 'c', 'a']);
    expect(compiled.variables).toEqual(['b', 'a', 'c']);
  });

  it('binds values in parameter order, as given', () => {
    const compiled = compileTemplate("SELECT {{n}}, '{{d}}', '%{{o}}%', {{none}}, {{n}}", dialect);
    const values: Record<string, unknown> = { n: 42, d: new Date(0), o: { a: 1 }, none: null };
    const bound = compiled.bind((name) => values[name]);
    expect(bound).toEqual([42, values.d, values.o, null, 42]);
    expect(bound[1]).toBe(values.d);
    expect(bound[2]).toBe(values.o);
  });

  it('looks each parameter up once per bind and returns a fresh array', () => {
    const compiled = compileTemplate('SELECT {{a}}, {{b}}, {{a}}', dialect);
    const lookup = jest.fn((name: string) => `${name}!`);
    const first = compiled.bind(lookup);
    expect(lookup.mock.calls.map(([name]) => name)).toEqual(['a', 'b', 'a']);
    expect(compiled.bind(lookup)).not.toBe(first);
  });

  describe('hostile values', () => {
    const template = "SELECT * FROM t WHERE a = {{v}} AND b = '{{v}}' AND c LIKE '%{{v}}%' AND d = \"{{v}}\"";
    const compiled = compileTemplate(template, dialect);

    it.each([
      "' OR 1=1 --",
      '"; DROP TABLE x; --',
      '/* */',
      "\\'; SELECT 1; --",
      '$$; DROP TABLE x; $$',
      '{{v}}',
      'Ünïcödé ✓ 𝔘 \u0000 \u202e',
    ])('binds %j raw and keeps it out of the SQL', (value) => {
      expect(compiled.bind(() => value)).toEqual([value, value, value, value]);
      expect(compiled.sql).not.toContain(value);
      expect(compiled.sql).toBe(compileTemplate(template, dialect).sql);
    });
  });
});

describe('TemplateError', () => {
  it('names the variable it is about', () => {
    const error = new TemplateError('missing value', 'q');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TemplateError');
    expect(error.reason).toBe('missing value');
    expect(error.variable).toBe('q');
    expect(error.message).toBe('template variable "q": missing value');
  });
});

const ANY: ParameterRule = 'value';
const COUNT: ParameterRule = 'non-negative-integer';

interface RuleCase {
  readonly title: string;
  readonly template: string;
  /** The expected parameterNames, one per placeholder in order. */
  readonly names: readonly string[];
  readonly rules: readonly ParameterRule[];
}

const sharedRuleCases: readonly RuleCase[] = [
  { title: 'LIMIT', template: 'SELECT * FROM t ORDER BY id LIMIT {{n}}', names: ['n'], rules: [COUNT] },
  { title: 'LIMIT and OFFSET', template: 'SELECT * FROM t ORDER BY id LIMIT {{n}} OFFSET {{o}}', names: ['n', 'o'], rules: [COUNT, COUNT] },
  { title: 'OFFSET after a literal LIMIT', template: 'SELECT * FROM t ORDER BY id LIMIT 10 OFFSET {{o}}', names: ['o'], rules: [COUNT] },
  { title: 'lowercase and mixed-case keywords', template: 'select * from t limit {{n}} OfFsEt {{o}}', names: ['n', 'o'], rules: [COUNT, COUNT] },
  {
    title: 'comments and line breaks between keyword and placeholder',
    template: 'SELECT * FROM t LIMIT /* page size */\n  -- from the query string\n\t{{n}} OFFSET/**/{{o}}',
    names: ['n', 'o'],
    rules: [COUNT, COUNT],
  },
  { title: 'a single-quoted placeholder as the operand', template: "SELECT * FROM t LIMIT '{{n}}'", names: ['n'], rules: [COUNT] },
  { title: 'a double-quoted placeholder as the operand', template: 'SELECT * FROM t LIMIT "{{n}}"', names: ['n'], rules: [COUNT] },
  { title: 'LIMIT in a subquery', template: 'SELECT * FROM (SELECT * FROM t LIMIT {{n}}) s WHERE s.a = {{a}}', names: ['n', 'a'], rules: [COUNT, ANY] },
  { title: 'a placeholder in WHERE', template: 'SELECT * FROM t WHERE x = {{n}} LIMIT 5', names: ['n'], rules: [ANY] },
  { title: 'the same variable in WHERE and LIMIT', template: 'SELECT * FROM t WHERE x < {{n}} LIMIT {{n}}', names: ['n', 'n'], rules: [ANY, COUNT] },
  { title: "'LIMIT {{n}}' inside a string literal", template: "SELECT * FROM t WHERE note = 'LIMIT {{n}}'", names: ['n'], rules: [ANY] },
  { title: "a literal holding only the placeholder after 'LIMIT' in a string", template: "SELECT 'LIMIT', '{{n}}'", names: ['n'], rules: [ANY] },
  { title: 'LIMIT in a comment', template: 'SELECT * FROM t /* LIMIT */ WHERE a = {{n}} -- LIMIT\n', names: ['n'], rules: [ANY] },
  { title: 'a placeholder after a comma in the select list', template: 'SELECT {{a}}, {{b}} FROM t LIMIT 1', names: ['a', 'b'], rules: [ANY, ANY] },
  { title: 'an expression after LIMIT: only its first operand', template: 'SELECT * FROM t LIMIT {{n}} + {{m}}', names: ['n', 'm'], rules: [COUNT, ANY] },
  { title: 'a parenthesised expression after OFFSET', template: 'SELECT * FROM t OFFSET ({{page}} - 1) * {{size}}', names: ['page', 'size'], rules: [ANY, ANY] },
  { title: 'a concatenation after LIMIT', template: "SELECT * FROM t LIMIT '1{{n}}'", names: ['n'], rules: [ANY] },
  { title: 'a word containing LIMIT', template: 'SELECT * FROM t WHERE rate_limit_id IN ({{a}})', names: ['a'], rules: [ANY] },
  {
    title: 'FETCH FIRST … ROWS ONLY after OFFSET … ROWS',
    template: 'SELECT * FROM t ORDER BY id OFFSET {{o}} ROWS FETCH FIRST {{n}} ROWS ONLY',
    names: ['o', 'n'],
    rules: [COUNT, COUNT],
  },
  { title: 'fetch next … row only, lowercase', template: 'select * from t order by id fetch next {{n}} row only', names: ['n'], rules: [COUNT] },
  { title: 'FETCH FIRST ROW ONLY without a count', template: 'SELECT * FROM t WHERE a = {{a}} FETCH FIRST ROW ONLY', names: ['a'], rules: [ANY] },
];

const dialectRuleCases: Record<Dialect, readonly RuleCase[]> = {
  mysql: [
    { title: 'LIMIT offset, count', template: 'SELECT * FROM t ORDER BY id LIMIT {{a}}, {{b}}', names: ['a', 'b'], rules: [COUNT, COUNT] },
    { title: 'LIMIT literal, count', template: 'SELECT * FROM t ORDER BY id LIMIT 10,{{b}}', names: ['b'], rules: [COUNT] },
    { title: 'LIMIT offset, count with # comments between', template: 'SELECT * FROM t LIMIT {{a}} # offset\n, # count\n {{b}}', names: ['a', 'b'], rules: [COUNT, COUNT] },
    { title: 'a backquoted identifier named limit', template: 'SELECT `limit`, {{a}} FROM t', names: ['a'], rules: [ANY] },
    { title: "MariaDB's LIMIT ROWS EXAMINED", template: 'SELECT * FROM t LIMIT {{n}} ROWS EXAMINED {{m}}', names: ['n', 'm'], rules: [COUNT, COUNT] },
    { title: 'LIMIT ROWS EXAMINED alone', template: 'SELECT * FROM t LIMIT ROWS EXAMINED {{m}}', names: ['m'], rules: [COUNT] },
  ],
  postgres: [
    { title: 'an E-string placeholder as the operand', template: "SELECT * FROM t LIMIT E'{{n}}'", names: ['n'], rules: [COUNT] },
    { title: 'a cast on the operand', template: 'SELECT * FROM t LIMIT {{n}}::int', names: ['n'], rules: [COUNT] },
    { title: 'LIMIT in a dollar-quoted string', template: 'SELECT $$ LIMIT $$, {{n}}', names: ['n'], rules: [ANY] },
    { title: 'a quoted identifier named limit', template: 'SELECT "limit", {{a}} FROM t', names: ['a'], rules: [ANY] },
    { title: 'LIMIT ALL then a placeholder', template: 'SELECT * FROM t LIMIT ALL OFFSET {{o}}', names: ['o'], rules: [COUNT] },
  ],
};

describe.each(DIALECTS)('LIMIT and OFFSET slots (%s)', (dialect) => {
  it.each([...sharedRuleCases, ...dialectRuleCases[dialect]])('recognises $title', ({ template, names, rules }) => {
    const compiled = compileTemplate(template, dialect);
    expect(compiled.parameterNames).toEqual(names);
    expect(compiled.parameterRules).toEqual(rules);
  });

  it('keeps the SQL text as it was', () => {
    const compiled = compileTemplate("SELECT * FROM t LIMIT '{{n}}' OFFSET {{o}}", dialect);
    expect(compiled.sql).toBe(dialect === 'mysql' ? 'SELECT * FROM t LIMIT ? OFFSET ?' : 'SELECT * FROM t LIMIT $1 OFFSET $2');
  });

  const limited = compileTemplate('SELECT * FROM t WHERE x = {{x}} ORDER BY id LIMIT {{n}}', dialect);
  const bindN = (n: unknown): unknown[] => limited.bind((name) => (name === 'n' ? n : 'x-value'));

  it.each([
    [0, 0],
    [7, 7],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    ['0', 0],
    ['2', 2],
    ['10', 10],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    [5n, 5],
  ])('binds %p as the number %p', (value, number) => {
    const bound = bindN(value);
    expect(bound).toEqual(['x-value', number]);
    expect(typeof bound[1]).toBe('number');
  });

  it('binds -0 as 0', () => {
    expect(Object.is(bindN(-0)[1], 0)).toBe(true);
  });

  it.each([
    ['a negative number', -1],
    ['a negative string', '-1'],
    ['a plus sign', '+7'],
    ['a fraction', 2.5],
    ['a fractional string', '2.5'],
    ['a trailing dot', '2.'],
    ['an exponent', '1e1'],
    ['an overflowing string', '99999999999999999999999'],
    ['2^53 as a string', '9007199254740992'],
    ['2^53 + 1 as a string', '9007199254740993'],
    ['2^53 as a number', 2 ** 53],
    ['a number past 2^53', 1e23],
    ['a bigint past 2^53', 2n ** 53n],
    ['a negative bigint', -1n],
    ['a non-numeric string', 'abc'],
    ['digits then text', '2abc'],
    ['a leading space', ' 7'],
    ['a trailing space', '7 '],
    ['a trailing newline', '7\n'],
    ['a leading zero', '07'],
    ['two zeros', '00'],
    ['a hexadecimal string', '0x10'],
    ['an underscore separator', '1_000'],
    ['non-ASCII digits', '\u0663'],
    ['full-width digits', '\uff17'],
    ['the empty string', ''],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['null', null],
    ['undefined', undefined],
    ['a boolean', true],
    ['an array of a number', [2]],
    ['an array of a string', ['2']],
    ['an object', { valueOf: () => 2 }],
  ])('refuses %s with a 400 naming the variable and the rule, not the value', (_title, value) => {
    let caught: unknown;
    try {
      bindN(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SqlResourceError);
    const error = caught as SqlResourceError;
    expect(error.code).toBe('TEMPLATE_VARIABLE');
    expect(error.statusCode).toBe(400);
    expect(error.message).toBe("template variable 'n' must be a non-negative integer (LIMIT/OFFSET)");
  });

  it('checks only the slot occurrence of a variable used elsewhere too', () => {
    const compiled = compileTemplate('SELECT * FROM t WHERE x < {{n}} LIMIT {{n}}', dialect);
    expect(compiled.bind(() => '3')).toEqual(['3', 3]);
    expect(() => compiled.bind(() => 'abc')).toThrow("template variable 'n' must be a non-negative integer (LIMIT/OFFSET)");
  });

  it('leaves values of other parameters untouched and looks each parameter up once', () => {
    const compiled = compileTemplate('SELECT * FROM t WHERE a = {{a}} LIMIT {{n}} OFFSET {{o}}', dialect);
    const object = { any: 'thing' };
    const values: Record<string, unknown> = { a: object, n: '4', o: 0 };
    const lookup = jest.fn((name: string) => values[name]);
    const bound = compiled.bind(lookup);
    expect(bound).toEqual([object, 4, 0]);
    expect(bound[0]).toBe(object);
    expect(lookup.mock.calls.map(([name]) => name)).toEqual(['a', 'n', 'o']);
    expect(compiled.bind(lookup)).not.toBe(bound);
  });

  it('names the offending variable when several slots are bound', () => {
    const compiled = compileTemplate('SELECT * FROM t LIMIT {{size}} OFFSET {{skip}}', dialect);
    const values: Record<string, unknown> = { size: '10', skip: '-10' };
    expect(() => compiled.bind((name) => values[name])).toThrow("template variable 'skip' must be a non-negative integer (LIMIT/OFFSET)");
  });

  it('lets an error of the lookup itself through', () => {
    const missing = new Error('missing');
    expect(() =>
      limited.bind(() => {
        throw missing;
      }),
    ).toThrow(missing);
  });
});
