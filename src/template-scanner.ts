/**
 * The tokenizer SQL templates are read with (SPEC §4), shared by the dialects: each dialect's
 * scanner (dialects/<name>/template-scanner.ts) adds its quoting and comment rules. A
 * placeholder is recognised only where it can stand for a value: bare in the SQL text, or
 * inside a string literal; comments and quoted identifiers are copied untouched.
 */

/**
 * What a parameter's value must be. `value`: anything, bound as given. `non-negative-integer`:
 * the placeholder is the row count or offset of LIMIT, OFFSET or FETCH FIRST/NEXT; its value must
 * be a safe integer ≥ 0 (a number, a bigint or a canonical string of decimal digits) and is
 * bound as a number.
 */
export type ParameterRule = 'value' | 'non-negative-integer';

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

/** What a scanner makes of a template: the SQL with the dialect's markers, and each parameter. */
export interface ScannedTemplate {
  sql: string;
  parameterNames: string[];
  parameterRules: ParameterRule[];
}

const VARIABLE_NAME = /^[A-Za-z0-9_.-]+$/;
type Segment =
  | { readonly kind: 'text'; readonly raw: string }
  | { readonly kind: 'variable'; readonly name: string; readonly at: number };

/** One operand of a concatenation: a re-emitted literal part or a parameter marker. */
export interface ConcatPiece {
  readonly sql: string;
  readonly isParameter: boolean;
}

/** How a string literal is written, which decides how its text parts are re-emitted. */
export interface LiteralStyle {
  readonly backslashEscapes: boolean;
  /** A raw text part of this literal, as a standalone single-quoted literal of the dialect. */
  readonly requote: (raw: string) => string;
}

export function isWordStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c >= '\u0080';
}

export function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

export function isWordChar(c: string): boolean {
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
 * Where the scanner stands in a row-limiting clause; only whitespace and comments keep the
 * state, any other token moves it on.
 */
const enum Clause {
  None,
  /** After LIMIT: the count, or on MySQL the offset of `LIMIT offset, count`. */
  LimitOperand,
  /** After `LIMIT x`: a comma makes the next operand the count of `LIMIT offset, count`. */
  AfterLimitOperand,
  /** After OFFSET, FETCH FIRST/NEXT, or `LIMIT x,`: the operand is a row count or offset. */
  CountOperand,
  /** After FETCH: FIRST or NEXT comes before the count. */
  Fetch,
  /** After `LIMIT [x] ROWS` (MariaDB's `LIMIT ROWS EXAMINED n`): EXAMINED comes before the count. */
  LimitRows,
}

/**
 * Single-pass tokenizer shared by the dialects. Text the template does not change stays
 * "pending" and is copied in one slice when the next rewritten token is emitted.
 */
export abstract class TemplateScanner {
  protected pos = 0;
  private pendingFrom = 0;
  private readonly sqlParts: string[] = [];
  private readonly parameterNames: string[] = [];
  private readonly parameterRules: ParameterRule[] = [];
  private clause = Clause.None;

  constructor(protected readonly source: string) {}

  compile(): ScannedTemplate {
    while (this.pos < this.source.length) {
      if (!this.scanToken()) this.scanPlainCharacter();
    }
    this.sqlParts.push(this.source.slice(this.pendingFrom));
    return { sql: this.sqlParts.join(''), parameterNames: this.parameterNames, parameterRules: this.parameterRules };
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
    this.replaceToken(start, this.bindOperand(name));
    return true;
  }

  protected readWord(): string {
    const start = this.pos;
    while (this.pos < this.source.length && isWordChar(this.char())) this.pos += 1;
    return this.source.slice(start, this.pos);
  }

  /**
   * Moves the clause state past a plain word (not a literal prefix):
   * LIMIT, OFFSET, FETCH FIRST/NEXT and LIMIT … ROWS EXAMINED announce a row count, any other
   * word ends the clause.
   */
  protected noteWord(word: string): void {
    const keyword = word.toUpperCase();
    const clause = this.clause;
    if (keyword === 'LIMIT') this.clause = Clause.LimitOperand;
    else if (keyword === 'OFFSET') this.clause = Clause.CountOperand;
    else if (keyword === 'FETCH') this.clause = Clause.Fetch;
    else if (clause === Clause.Fetch && (keyword === 'FIRST' || keyword === 'NEXT')) this.clause = Clause.CountOperand;
    else if ((clause === Clause.LimitOperand || clause === Clause.AfterLimitOperand) && keyword === 'ROWS') this.clause = Clause.LimitRows;
    else if (clause === Clause.LimitRows && keyword === 'EXAMINED') this.clause = Clause.CountOperand;
    else this.clause = Clause.None;
  }

  /** A token that is not a row count (a literal, an identifier, a dollar string) ends the clause. */
  protected noteOtherToken(): void {
    this.clause = Clause.None;
  }

  /** A string literal opening at the cursor; `start` is earlier when a prefix such as E belongs to it. */
  protected scanStringLiteral(start: number, style: LiteralStyle): boolean {
    const segments = this.scanQuotedBody(style.backslashEscapes);
    const variable = this.firstVariable(segments);
    if (variable && segments.length === 1) {
      // `LIMIT '{{n}}'` compiles to `LIMIT ?` as the bare form does, and gets its rule
      this.replaceToken(start, this.bindOperand(variable.name));
      return true;
    }
    this.noteOtherToken();
    if (variable) {
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
    this.noteOtherToken();
    return true;
  }

  /** A quoted identifier; `valueIfWhole` accepts `"{{x}}"` as a value, as postgres templates write it. */
  protected scanQuotedIdentifier(valueIfWhole: boolean): boolean {
    const start = this.pos;
    const segments = this.scanQuotedBody(false, 'quoted identifier');
    const variable = this.firstVariable(segments);
    if (!variable) {
      this.noteOtherToken();
      return true;
    }
    if (!valueIfWhole || segments.length !== 1) {
      this.fail('placeholders bind values, not identifiers', variable.at, variable.name);
    }
    this.replaceToken(start, this.bindOperand(variable.name));
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

  /**
   * A character no token starts with, at the cursor. Whitespace keeps the clause state; the
   * digits of `LIMIT 10, {{n}}` and the comma after them lead to the count; anything else
   * ends the clause.
   */
  private scanPlainCharacter(): void {
    const c = this.char();
    this.pos += 1;
    if (c <= ' ') return;
    if (this.clause === Clause.LimitOperand && isDigit(c)) {
      while (this.pos < this.source.length && isDigit(this.char())) this.pos += 1;
      this.clause = Clause.AfterLimitOperand;
    } else {
      this.clause = this.clause === Clause.AfterLimitOperand && c === ',' ? Clause.CountOperand : Clause.None;
    }
  }

  /** A placeholder that is a whole operand: a row count or offset when the clause says so. */
  private bindOperand(name: string): string {
    const clause = this.clause;
    const isCount = clause === Clause.LimitOperand || clause === Clause.CountOperand;
    this.clause = clause === Clause.LimitOperand ? Clause.AfterLimitOperand : Clause.None;
    return this.bindVariable(name, isCount ? 'non-negative-integer' : 'value');
  }

  private bindVariable(name: string, rule: ParameterRule = 'value'): string {
    this.parameterNames.push(name);
    this.parameterRules.push(rule);
    return this.parameterMarker(this.parameterNames.length);
  }

  /** Replaces the source from `start` up to the cursor with `sql`. */
  private replaceToken(start: number, sql: string): void {
    this.sqlParts.push(this.source.slice(this.pendingFrom, start), sql);
    this.pendingFrom = this.pos;
  }
}

/** MySQL/MariaDB with the default sql_mode: "..." is a string, backslashes escape. */
