import { isDigit, isWordChar, isWordStart, TemplateScanner, type ConcatPiece, type LiteralStyle } from '../../template-scanner';

const POSTGRES_STANDARD: LiteralStyle = { backslashEscapes: false, requote: (raw) => `'${raw}'` };
const POSTGRES_ESCAPE: LiteralStyle = { backslashEscapes: true, requote: (raw) => `E'${raw}'` };

export class PostgresScanner extends TemplateScanner {
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
    this.noteWord(word);
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
    this.noteOtherToken();
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
