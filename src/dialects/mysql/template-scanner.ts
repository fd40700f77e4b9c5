import { isWordStart, TemplateScanner, type ConcatPiece, type LiteralStyle } from '../../template-scanner';

/** Words that make the mysql literal after them a typed or charset-introduced one. */
const MYSQL_LITERAL_PREFIX = /^(?:[nxb]|_\w+)$/i;
const MYSQL_SINGLE_QUOTED: LiteralStyle = { backslashEscapes: true, requote: (raw) => `'${raw}'` };
const MYSQL_DOUBLE_QUOTED: LiteralStyle = {
  backslashEscapes: true,
  requote: (raw) => `'${doubleQuotedToSingleQuoted(raw)}'`,
};
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

export class MysqlScanner extends TemplateScanner {
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
    this.noteWord(word);
    return true;
  }
}

/** PostgreSQL with standard_conforming_strings on (the default since 9.1). */
