/**
 * SQL templates of SPEC §4: `{{name}}` placeholders become bound parameters.
 *
 * The template is tokenized once with the quoting rules of its dialect, so a placeholder is
 * recognised only where it can stand for a value: bare in the SQL text, or inside a string
 * literal. Comments and postgres dollar-quoted strings are copied untouched.
 */
export type Dialect = 'mysql' | 'postgres';

/** A template parsed once per endpoint; binding it per request does no parsing. */
export interface CompiledTemplate {
  /** SQL text with the dialect's placeholders (`?` or `$1..$n`) in place of every `{{name}}`. */
  readonly sql: string;
  /** Variable name for each bound parameter, in parameter order (a name repeats if used twice). */
  readonly parameterNames: readonly string[];
  /** Distinct variable names the template needs. */
  readonly variables: readonly string[];
  /** Parameter values in order, looking each name up with `lookup`. */
  bind(lookup: (name: string) => unknown): unknown[];
}

/**
 * A template that can not be compiled, or (when raised by a caller) a variable that can not be
 * bound. `variable` names the placeholder concerned when there is one.
 */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';

  constructor(
    readonly reason: string,
    readonly variable?: string,
  ) {
    super(variable === undefined ? reason : `template variable "${variable}": ${reason}`);
  }
}

/**
 * Compiles `template` for `dialect`: every `{{name}}` becomes a bound parameter.
 * @throws TemplateError when the template is malformed or puts a placeholder where no value fits.
 */
export function compileTemplate(template: string, dialect: Dialect): CompiledTemplate {
  const scanner = dialect === 'mysql' ? new MysqlScanner(template) : new PostgresScanner(template);
  const { sql, parameterNames } = scanner.compile();
  const variables = [...new Set(parameterNames)];
  return Object.freeze({
    sql,
    parameterNames: Object.freeze(parameterNames),
    variables: Object.freeze(variables),
    bind: (lookup: (name: string) => unknown): unknown[] => parameterNames.map((name) => lookup(name)),
  });
}

const VARIABLE_NAME = /^[A-Za-z0-9_.-]+$/;
/** Words that make the mysql literal after them a typed or charset-introduced one. */
const MYSQL_LITERAL_PREFIX = /^(?:[nxb]|_\w+)$/i;

type Segment =
  | { readonly kind: 'text'; readonly raw: string }
  | { readonly kind: 'variable'; readonly name: string; readonly at: number };

/** One operand of a concatenation: a re-emitted literal part or a parameter marker. */
interface ConcatPiece {
  readonly sql: string;
  readonly isParameter: boolean;
}

/** How a string literal is written, which decides how its text parts are re-emitted. */
interface LiteralStyle {
  readonly backslashEscapes: boolean;
  /** A raw text part of this literal, as a standalone single-quoted literal of the dialect. */
  readonly requote: (raw: string) => string;
}

const MYSQL_SINGLE_QUOTED: LiteralStyle = { backslashEscapes: true, requote: (raw) => `'${raw}'` };
const MYSQL_DOUBLE_QUOTED: LiteralStyle = {
  backslashEscapes: true,
  requote: (raw) => `'${doubleQuotedToSingleQuoted(raw)}'`,
};
const POSTGRES_STANDARD: LiteralStyle = { backslashEscapes: false, requote: (raw) => `'${raw}'` };
const POSTGRES_ESCAPE: LiteralStyle = { backslashEscapes: true, requote: (raw) => `E'${raw}'` };

/**
 * Rewrites the body of a mysql "..." string for '...': backslash escapes mean the same in both,
 * a doubled `""` becomes `"` and a bare `'` must be doubled.
 */
function doubleQuotedToSingleQuoted(raw: string): string {
  let result = '';
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i];
    if (c === '\\') {
      result += raw.slice(i, i + 2);
      i += 1;
    } else if (c === '"') {
      result += '"';
      i += 1; // the body can only hold `"` doubled
    } else {
      result += c === "'" ? "''" : c;
    }
  }
  return result;
}

function isWordStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c >= '\u0080';
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function isWordChar(c: string): boolean {
  return isWordStart(c) || isDigit(c) || c === '$';
}

function describePosition(source: string, index: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < index; i += 1) {
    if (source[i] === '\n') {
      line += 1;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${index - lineStart + 1}`;
}

/**
 * Single-pass tokenizer shared by the dialects. Text the template does not change stays
 * "pending" and is copied in one slice when the next rewritten token is emitted.
 */
abstract class TemplateScanner {
  protected pos = 0;
  private pendingFrom = 0;
  private readonly sqlParts: string[] = [];
  private readonly parameterNames: string[] = [];

  constructor(protected readonly source: string) {}

  compile(): { sql: string; parameterNames: string[] } {
    while (this.pos < this.source.length) {
      if (!this.scanToken()) this.pos += 1;
    }
    this.sqlParts.push(this.source.slice(this.pendingFrom));
    return { sql: this.sqlParts.join(''), parameterNames: this.parameterNames };
  }

  /** Consumes the token at the cursor and returns true, or returns false for a plain character. */
  protected abstract scanToken(): boolean;

  protected abstract parameterMarker(parameterNumber: number): string;

  /** One text value made of literal parts and parameters, usable where the literal stood. */
  protected abstract concatenation(pieces: readonly ConcatPiece[]): string;

  protected char(offset = 0): string {
    return this.source.charAt(this.pos + offset);
  }

  protected fail(reason: string, at: number, variable?: string): never {
    throw new TemplateError(`${reason} at ${describePosition(this.source, at)}`, variable);
  }

  protected scanBarePlaceholder(): boolean {
    const start = this.pos;
    const name = this.readPlaceholder();
    this.replaceToken(start, this.bindVariable(name));
    return true;
  }

  protected readWord(): string {
    const start = this.pos;
    while (this.pos < this.source.length && isWordChar(this.char())) this.pos += 1;
    return this.source.slice(start, this.pos);
  }

  /** A string literal opening at the cursor; `start` is earlier when a prefix such as E belongs to it. */
  protected scanStringLiteral(start: number, style: LiteralStyle): boolean {
    const segments = this.scanQuotedBody(style.backslashEscapes);
    const variable = this.firstVariable(segments);
    if (!variable) return true;
    if (segments.length === 1) {
      this.replaceToken(start, this.bindVariable(variable.name));
    } else {
      const pieces = segments.map((segment) => this.concatPiece(segment, style));
      this.replaceToken(start, this.concatenation(pieces));
    }
    return true;
  }

  /** A literal with a type or charset prefix (N'', X'', _utf8mb4'' …): copied, never templated. */
  protected scanPrefixedLiteral(prefix: string, backslashEscapes: boolean): boolean {
    const variable = this.firstVariable(this.scanQuotedBody(backslashEscapes));
    if (variable) {
      this.fail(`a placeholder inside a ${prefix}-prefixed literal is not supported`, variable.at, variable.name);
    }
    return true;
  }

  /** A quoted identifier; `valueIfWhole` accepts `"{{x}}"` as a value, as postgres templates write it. */
  protected scanQuotedIdentifier(valueIfWhole: boolean): boolean {
    const start = this.pos;
    const segments = this.scanQuotedBody(false, 'quoted identifier');
    const variable = this.firstVariable(segments);
    if (!variable) return true;
    if (!valueIfWhole || segments.length !== 1) {
      this.fail('placeholders bind values, not identifiers', variable.at, variable.name);
    }
    this.replaceToken(start, this.bindVariable(variable.name));
    return true;
  }

  protected skipLineComment(): boolean {
    while (this.pos < this.source.length && this.char() !== '\n' && this.char() !== '\r') this.pos += 1;
    return true;
  }

  protected skipBlockComment(nests: boolean): boolean {
    const start = this.pos;
    let depth = 0;
    do {
      if (this.pos >= this.source.length) this.fail('unterminated block comment', start);
      if (this.char() === '/' && this.char(1) === '*' && (nests || depth === 0)) {
        depth += 1;
        this.pos += 2;
      } else if (this.char() === '*' && this.char(1) === '/') {
        depth -= 1;
        this.pos += 2;
      } else {
        this.pos += 1;
      }
    } while (depth > 0);
    return true;
  }

  /**
   * The body of a quoted token opening at the cursor, split into raw text and placeholders.
   * A doubled quote is always an escape; a backslash escapes the next character when asked.
   */
  private scanQuotedBody(backslashEscapes: boolean, what = 'string literal'): Segment[] {
    const open = this.pos;
    const quote = this.char();
    const segments: Segment[] = [];
    this.pos += 1;
    let textStart = this.pos;
    for (;;) {
      if (this.pos >= this.source.length) this.fail(`unterminated ${what}`, open);
      const c = this.char();
      if (c === quote && this.char(1) !== quote) break;
      if (c === quote || (backslashEscapes && c === '\\')) {
        this.pos += 2;
      } else if (c === '{' && this.char(1) === '{') {
        this.pushText(segments, textStart, this.pos);
        const at = this.pos;
        segments.push({ kind: 'variable', name: this.readPlaceholder(), at });
        textStart = this.pos;
      } else {
        this.pos += 1;
      }
    }
    this.pushText(segments, textStart, this.pos);
    this.pos += 1;
    return segments;
  }

  private pushText(segments: Segment[], from: number, to: number): void {
    if (to > from) segments.push({ kind: 'text', raw: this.source.slice(from, to) });
  }

  private firstVariable(segments: readonly Segment[]): Extract<Segment, { kind: 'variable' }> | undefined {
    for (const segment of segments) if (segment.kind === 'variable') return segment;
    return undefined;
  }

  /** Reads `{{ name }}` at the cursor and returns the name. */
  private readPlaceholder(): string {
    const open = this.pos;
    const close = this.source.indexOf('}}', open + 2);
    if (close < 0) this.fail('unterminated placeholder "{{"', open);
    const name = this.source.slice(open + 2, close).trim();
    if (!VARIABLE_NAME.test(name)) {
      const written = this.source.slice(open, close + 2);
      this.fail(`invalid placeholder ${written}: a name is letters, digits, "_", "." or "-"`, open);
    }
    this.pos = close + 2;
    return name;
  }

  private concatPiece(segment: Segment, style: LiteralStyle): ConcatPiece {
    return segment.kind === 'text'
      ? { sql: style.requote(segment.raw), isParameter: false }
      : { sql: this.bindVariable(segment.name), isParameter: true };
  }

  private bindVariable(name: string): string {
    this.parameterNames.push(name);
    return this.parameterMarker(this.parameterNames.length);
  }

  /** Replaces the source from `start` up to the cursor with `sql`. */
  private replaceToken(start: number, sql: string): void {
    this.sqlParts.push(this.source.slice(this.pendingFrom, start), sql);
    this.pendingFrom = this.pos;
  }
}

/** MySQL/MariaDB with the default sql_mode: "..." is a string, backslashes escape. */
class MysqlScanner extends TemplateScanner {
  protected scanToken(): boolean {
    switch (this.char()) {
      case "'":
        return this.scanStringLiteral(this.pos, MYSQL_SINGLE_QUOTED);
      case '"':
        return this.scanStringLiteral(this.pos, MYSQL_DOUBLE_QUOTED);
      case '`':
        return this.scanQuotedIdentifier(false);
      case '#':
        return this.skipLineComment();
      case '-':
        return this.isDashDashComment() && this.skipLineComment();
      case '/':
        return this.char(1) === '*' && this.skipBlockComment(false);
      case '{':
        return this.char(1) === '{' && this.scanBarePlaceholder();
      case '?':
        // the driver would count it as a parameter and shift every value after it
        return this.fail('a bare "?" would be taken as a parameter; use {{name}}', this.pos);
      default:
        return isWordStart(this.char()) && this.scanWord();
    }
  }

  protected parameterMarker(): string {
    return '?';
  }

  protected concatenation(pieces: readonly ConcatPiece[]): string {
    return `CONCAT(${pieces.map((piece) => piece.sql).join(', ')})`;
  }

  /** MySQL needs whitespace (or the end) after `--` for a comment: `5--1` is arithmetic. */
  private isDashDashComment(): boolean {
    const after = this.char(2);
    return this.char(1) === '-' && (after === '' || after <= ' ');
  }

  /** A word, or the N/X/B/_charset prefix of the literal that follows it. */
  private scanWord(): boolean {
    const word = this.readWord();
    const next = this.char();
    if ((next === "'" || next === '"') && MYSQL_LITERAL_PREFIX.test(word)) {
      return this.scanPrefixedLiteral(word, true);
    }
    return true;
  }
}

/** PostgreSQL with standard_conforming_strings on (the default since 9.1). */
class PostgresScanner extends TemplateScanner {
  protected scanToken(): boolean {
    switch (this.char()) {
      case "'":
        return this.scanStringLiteral(this.pos, POSTGRES_STANDARD);
      case '"':
        return this.scanQuotedIdentifier(true);
      case '$':
        return this.scanDollar();
      case '-':
        return this.char(1) === '-' && this.skipLineComment();
      case '/':
        return this.char(1) === '*' && this.skipBlockComment(true);
      case '{':
        return this.char(1) === '{' && this.scanBarePlaceholder();
      default:
        return isWordStart(this.char()) && this.scanWord();
    }
  }

  protected parameterMarker(parameterNumber: number): string {
    return `$${parameterNumber}`;
  }

  /** The CAST gives each parameter a type: postgres can not infer one in `unknown || unknown`. */
  protected concatenation(pieces: readonly ConcatPiece[]): string {
    const operands = pieces.map((piece) => (piece.isParameter ? `CAST(${piece.sql} AS text)` : piece.sql));
    return `(${operands.join(' || ')})`;
  }

  /** A word, or the E/B/X/N/U& prefix of the literal that follows it. */
  private scanWord(): boolean {
    const start = this.pos;
    const word = this.readWord().toLowerCase();
    const next = this.char();
    if (next === "'" && word === 'e') return this.scanStringLiteral(start, POSTGRES_ESCAPE);
    if (next === "'" && (word === 'b' || word === 'x' || word === 'n')) {
      return this.scanPrefixedLiteral(word.toUpperCase(), false);
    }
    if (word === 'u' && next === '&' && (this.char(1) === "'" || this.char(1) === '"')) {
      this.pos += 1;
      return this.char() === "'" ? this.scanPrefixedLiteral('U&', false) : this.scanQuotedIdentifier(false);
    }
    return true;
  }

  /** `$tag$…$tag$` is copied untouched; `$1` is refused; any other `$` is plain text. */
  private scanDollar(): boolean {
    const start = this.pos;
    if (isDigit(this.char(1))) {
      this.fail('a positional parameter "$n" would collide with the bound ones; use {{name}}', start);
    }
    const tagEnd = this.dollarTagEnd();
    if (tagEnd < 0) return false;
    const delimiter = this.source.slice(start, tagEnd + 1);
    const close = this.source.indexOf(delimiter, tagEnd + 1);
    if (close < 0) this.fail('unterminated dollar-quoted string', start);
    this.pos = close + delimiter.length;
    return true;
  }

  /** Index of the `$` closing a `$tag$` delimiter at the cursor, or -1 if there is none. */
  private dollarTagEnd(): number {
    let i = this.pos + 1;
    if (this.source.charAt(i) === '$') return i;
    if (!isWordStart(this.source.charAt(i))) return -1;
    while (i < this.source.length && isWordChar(this.source.charAt(i)) && this.source.charAt(i) !== '$') i += 1;
    return this.source.charAt(i) === '$' ? i : -1;
  }
}
