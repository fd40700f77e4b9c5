import { compileTemplate, Dialect, TemplateError } from '../../src/template';

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
