/**
 * YAML error messages that never show a secret. The `yaml` library's own messages quote the
 * offending source lines, so a syntax error next to `password: hunter2` printed the password.
 * Here the excerpt is built from the source with the value of every secret-looking key
 * replaced by `***`, and the parts of the library's message that quote source text are
 * withheld when they fall on such a value.
 *
 * The scan is line-based and deliberately tolerant: it runs on text that does not parse, so
 * it never relies on the parser's view of the document and masks too much rather than too
 * little (a value that continues on more-indented lines, a block scalar, a quoted value up to
 * its closing quote, a flow mapping value up to its `,`/`}`).
 */
import type { YAMLError } from 'yaml';

export const MASK = '***';

interface Range {
  start: number;
  end: number;
}

const secretWords = /password|passwd|pwd|passphrase|secret|token|apikey|privatekey|credential/;

/** True for a mapping key named like a secret (`password`, `db_token`, `apiKey`, `key`, …). */
export function isSecretKey(rawKey: string): boolean {
  const name = rawKey
    .trim()
    .replace(/^(?:[-?](?:\s+|$))+/, '') // `- key`, `? key`
    .replace(/^(?:[&!]\S*\s+)+/, '') // anchors and tags before the key
    .replace(/^["']+|["']+$/g, '')
    .trim();
  if (secretWords.test(name.toLowerCase().replace(/[\s_.-]+/g, ''))) return true;
  return /(?:^|[^A-Za-z0-9])(?:key|pass)$/i.test(name) || /[a-z0-9](?:Key|Pass)$/.test(name) || /[A-Z0-9](?:KEY|PASS)$/.test(name);
}

/** The text split in lines, with each line's offset; line breaks are `\n` or `\r\n`. */
class Lines {
  readonly starts: number[] = [];
  readonly lines: string[] = [];

  constructor(readonly text: string) {
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      const end = newline < 0 ? text.length : newline;
      this.starts.push(start);
      this.lines.push(text.slice(start, end).replace(/\r$/, ''));
      if (newline < 0) break;
      start = newline + 1;
    }
  }

  get count(): number {
    return this.lines.length;
  }

  /** Index of the line holding `offset` (an offset at the text's end is on the last line). */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  end(line: number): number {
    return this.starts[line] + this.lines[line].length;
  }
}

function indentOf(line: string): number {
  return /^[ \t]*/.exec(line)![0].length;
}

function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

/** Characters after which a `{`, `[` or quote starts a node rather than sitting inside a plain scalar. */
const nodeStarts = new Set(['', ':', ',', '[', '{', '-', '?']);

/** Flow nesting depth before each character of one line, counted from the line's start. */
function flowDepths(line: string): number[] {
  const depths: number[] = new Array(line.length + 1).fill(0);
  let depth = 0;
  let previous = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    depths[i] = depth;
    if ((c === '"' || c === "'") && nodeStarts.has(previous)) {
      const close = closingQuote(line, i);
      const end = close < 0 ? line.length : close;
      for (let k = i; k <= end && k < line.length; k++) depths[k] = depth;
      i = end;
      previous = c;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
      for (let k = i; k < line.length; k++) depths[k] = depth;
      break;
    }
    if ((c === '{' || c === '[') && nodeStarts.has(previous)) depth++;
    else if ((c === '}' || c === ']') && depth > 0) depth--;
    if (!/\s/.test(c)) previous = c;
  }
  depths[line.length] = depth;
  return depths;
}

/** Offset of the quote closing the one at `open` (`\"` and `''` escapes), or -1. */
function closingQuote(text: string, open: number): number {
  const quote = text[open];
  for (let i = open + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

/**
 * Where a flow value starting at `from` ends: the first `,`, `}` or `]` outside the brackets it
 * opens itself (`depth` of them are still open from earlier lines); `stop` is -1 when the line
 * ends first, with `depth` brackets open.
 */
function flowEnd(line: string, from: number, depth = 0): { stop: number; depth: number } {
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']' || c === ',') {
      if (depth === 0) return { stop: i, depth };
      if (c !== ',') depth--;
    }
  }
  return { stop: -1, depth };
}

/** `end` moved back over whitespace, but not before `start`. */
function trimEnd(text: string, start: number, end: number): number {
  while (end > start && /\s/.test(text[end - 1])) end--;
  return end;
}

/**
 * A line that starts something else than the value above it: a mapping entry, a sequence item
 * holding a mapping or a collection, or a document marker. A less-indented line that is none of
 * these is taken for part of the value (a mis-indented line of a multi-line secret, say), and
 * masked with it.
 */
function startsNewEntry(line: string): boolean {
  const body = line.replace(/^[ \t]+/, '');
  if (/^-(?:[ \t]|$)/.test(body)) {
    const item = body.replace(/^-[ \t]*/, '');
    return item === '' || /^[{[]/.test(item) || startsNewEntry(item);
  }
  return /^(?:---|\.\.\.|[^\s:#'"{}[\],&*!|>%@`?-][^:#]*:(?:[ \t]|$)|"(?:[^"\\]|\\.)*"[ \t]*:|'(?:[^']|'')*'[ \t]*:)/.test(body);
}

/**
 * True when the `:` starting line `index` gives the value of a secret key on the line above:
 * an explicit key `? name`, or a key left alone at the end of that line.
 */
function keyAboveIsSecret(src: Lines, index: number): boolean {
  const indent = indentOf(src.lines[index]);
  for (let i = index - 1; i >= 0; i--) {
    const line = src.lines[i];
    if (isBlank(line)) continue;
    const explicit = /^[ \t]*\?(.*)$/.exec(line);
    if (explicit) return isSecretKey(explicit[1]);
    const last = /("[^"]*"|'[^']*'|[^\s:,{}[\]]+)[ \t]*$/.exec(line);
    if (last && isSecretKey(last[1])) return true;
    if (indentOf(line) <= indent) return false;
  }
  return false;
}

/**
 * Where the value starts when the key at `position` is secret but not followed by its `:`, as in
 * `password hunter2` or `password=hunter2` (a typo, and the text an error excerpt would show),
 * the line's length if the key ends the line; -1 otherwise. `position` is where a key may
 * start: a line's start or after `{`, `[` or `,`.
 */
function bareSecretKey(line: string, position: number, atLineStart: boolean): number {
  let i = position;
  const skipSpace = (): void => {
    while (i < line.length && /[ \t]/.test(line[i])) i++;
  };
  skipSpace();
  while (atLineStart && /^[-?](?:[ \t]|$)/.test(line.slice(i))) {
    i++;
    skipSpace();
  }
  const start = i;
  if (line[i] === '"' || line[i] === "'") {
    const close = closingQuote(line, i);
    if (close < 0) return -1;
    i = close + 1;
  } else {
    while (i < line.length && !/[\s:,{}[\]=#]/.test(line[i])) i++;
  }
  if (i === start || !isSecretKey(line.slice(start, i))) return -1;
  while (i < line.length && /[ \t=]/.test(line[i])) i++;
  if (i < line.length && ',]}'.includes(line[i])) return strayAfter(line, i);
  return i < line.length && ':#'.includes(line[i]) ? -1 : i;
}

/**
 * After a secret key whose value is cut short by the `,`, `]` or `}` at `stop` (`password:]`,
 * `password, hunter2`), the start of the text that follows if it is a stray value rather than
 * another `key: value`; -1 otherwise.
 */
function strayAfter(line: string, stop: number): number {
  let i = stop + 1;
  while (i < line.length && /[ \t,\]}]/.test(line[i])) i++;
  if (i >= line.length || line[i] === '#') return -1;
  const end = strayEnd(line, i);
  return /:(?:[ \t]|$)/.test(line.slice(i, end)) ? -1 : i;
}

/** End of the flow item at `start`: its closing quote, or the next `,`, `]` or `}`. */
function strayEnd(line: string, start: number): number {
  if (line[start] === '"' || line[start] === "'") {
    const close = closingQuote(line, start);
    if (close >= 0) return close + 1;
  }
  const { stop } = flowEnd(line, start);
  return stop < 0 ? line.length : trimEnd(line, start, stop);
}

/** Index of the first non-blank line after `index`, or -1. */
function nextContentLine(src: Lines, index: number): number {
  for (let i = index + 1; i < src.count; i++) if (!isBlank(src.lines[i])) return i;
  return -1;
}

function nonEmpty(start: number, end: number): Range | undefined {
  return end > start ? { start, end } : undefined;
}

/**
 * The range to mask for the value of a secret key on line `index`, the value being at or after
 * `from` (just after the key's `:`): everything from the value's first character to where the
 * value can end, including the lines that may continue it.
 */
function valueRange(src: Lines, index: number, from: number, inFlow: boolean): Range | undefined {
  const { text } = src;
  const line = src.lines[index];
  const base = src.starts[index];
  const keyIndent = indentOf(line);
  let j = from;
  while (j < line.length && /[ \t]/.test(line[j])) j++;
  let v = j; // the value proper, after anchors and tags
  while (v < line.length && (line[v] === '!' || line[v] === '&')) {
    while (v < line.length && !/[ \t]/.test(line[v])) v++;
    while (v < line.length && /[ \t]/.test(line[v])) v++;
  }
  const start = base + j;
  let end = src.end(index);
  let endLine = index;
  const c = line[v];
  if (v >= line.length || (c === '#' && /\s/.test(line[v - 1] ?? ' '))) {
    // properties or a comment at most on this line: the value is on the next lines
    return extend(src, { start, end }, index, keyIndent, inFlow ? 'flow' : 'indent', true);
  }
  if (c === '"' || c === "'") {
    const close = closingQuote(text, base + v);
    if (close < 0) return { start, end: text.length };
    endLine = src.lineOf(close);
    end = src.end(endLine);
    if (!inFlow) return extend(src, { start, end }, endLine, keyIndent, 'indent', false);
    const closeLine = src.lines[endLine];
    let after = close + 1 - src.starts[endLine];
    while (after < closeLine.length && /[ \t]/.test(closeLine[after])) after++;
    if (after >= closeLine.length || ',}]#'.includes(closeLine[after])) return { start, end: close + 1 };
    const { stop, depth } = flowEnd(closeLine, after);
    if (stop >= 0) return nonEmpty(start, trimEnd(text, start, src.starts[endLine] + stop));
    return extend(src, { start, end }, endLine, keyIndent, 'flow', false, depth);
  }
  if (c === '|' || c === '>') {
    const header = /^[|>][0-9+-]{0,2}/.exec(line.slice(v))![0];
    const rest = isBlank(line.slice(v + header.length)) ? end : base + v + header.length;
    return extend(src, { start: rest, end }, index, keyIndent, 'indent', true);
  }
  if (!inFlow) return extend(src, { start, end }, index, keyIndent, 'indent', false);
  const { stop, depth } = flowEnd(line, v);
  if (stop === v) {
    // `password:]`, `password:,`: the value is empty, but a stray item after it may be the secret
    const stray = strayAfter(line, stop);
    return stray < 0 ? undefined : { start: base + stray, end: base + strayEnd(line, stray) };
  }
  if (stop >= 0) return nonEmpty(start, trimEnd(text, start, base + stop));
  return extend(src, { start, end }, index, keyIndent, 'flow', false, depth);
}

/**
 * Extends `range` over the lines after `line` that may continue the value: in block context
 * the more-indented lines and any line that does not start a new entry (a mis-indented line of
 * the value, as far as one can tell); in flow context the lines up to the value's `,`, `}` or
 * `]`.
 */
function extend(src: Lines, range: Range, line: number, keyIndent: number, mode: 'indent' | 'flow', valueBelow: boolean, depth = 0): Range | undefined {
  let { end } = range;
  let first = true;
  let sequence = false;
  for (let i = line + 1; i < src.count; i++) {
    const content = src.lines[i];
    if (isBlank(content)) continue;
    if (mode === 'flow') {
      const found = flowEnd(content, 0, depth);
      depth = found.depth;
      if (found.stop >= 0) {
        end = Math.max(end, trimEnd(src.text, src.starts[i], src.starts[i] + found.stop));
        break;
      }
      end = src.end(i);
      continue;
    }
    const indent = indentOf(content);
    // `key:` with nothing after it, then `- item` lines at the key's own indentation: a sequence value
    const item = indent === keyIndent && /^[ \t]*-(?:[ \t]|$)/.test(content);
    if (first) sequence = valueBelow && item;
    first = false;
    if (indent > keyIndent || (sequence && item) || !startsNewEntry(content)) end = src.end(i);
    else break;
  }
  return nonEmpty(range.start, end);
}

/** `user:password@` in URLs. */
const urlPassword = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/'"]*:([^\s@/'"]+)@/gi;

/** Offsets of the text to hide: values of secret keys and passwords in URLs; sorted, disjoint. */
function secretRanges(src: Lines): Range[] {
  const ranges: Range[] = [];
  let cursor = 0; // text before it is already masked or scanned
  for (let index = 0; index < src.count; index++) {
    const line = src.lines[index];
    const base = src.starts[index];
    const from = Math.max(0, cursor - base);
    if (from > line.length) continue;
    const depths = flowDepths(line);
    let keyStart = from;
    let atKey = true; // a key may start at keyStart
    for (let i = from; i <= line.length; i++) {
      let valueFrom = -1;
      if (atKey) {
        atKey = false;
        valueFrom = bareSecretKey(line, keyStart, keyStart === 0);
        if (valueFrom === line.length && depths[valueFrom] === 0) {
          // `password` alone on its line: a value only if the next line continues it
          const next = nextContentLine(src, index);
          if (next < 0 || indentOf(src.lines[next]) <= indentOf(line)) valueFrom = -1;
        }
      }
      if (valueFrom < 0) {
        if (i === line.length) break;
        const c = line[i];
        if (c === '{' || c === '[' || c === ',') {
          keyStart = i + 1;
          atKey = true;
          continue;
        }
        if (c !== ':') continue;
        const key = line.slice(keyStart, i);
        keyStart = i + 1;
        const secret = isSecretKey(key) || (isBlank(line.slice(0, i)) && keyAboveIsSecret(src, index));
        if (!secret) continue;
        valueFrom = i + 1;
      }
      const range = valueRange(src, index, valueFrom, depths[valueFrom] > 0);
      if (!range) continue;
      ranges.push(range);
      cursor = range.end;
      if (range.end >= base + line.length) break;
      i = range.end - base - 1;
      keyStart = range.end - base;
    }
  }
  for (const match of src.text.matchAll(urlPassword)) {
    const start = match.index! + match[0].length - 1 - match[1].length;
    ranges.push({ start, end: start + match[1].length });
  }
  ranges.sort((a, b) => a.start - b.start);
  const merged: Range[] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

interface MaskedLine {
  text: string;
  /** Column in `text` of column `col` (0-based) of the source line. */
  map(col: number, atEnd?: boolean): number;
}

/** One source line with its secret parts replaced by `***` (indentation kept). */
function maskLine(src: Lines, ranges: Range[], index: number): MaskedLine {
  const line = src.lines[index];
  const base = src.starts[index];
  const segments: Array<{ from: number; to: number }> = [];
  for (const range of ranges) {
    if (range.end <= base || range.start > base + line.length) continue;
    let from = Math.max(range.start, base) - base;
    const to = Math.min(range.end, base + line.length) - base;
    if (range.start < base) from = Math.max(from, indentOf(line));
    if (to > from) segments.push({ from, to });
  }
  let text = '';
  const starts: Array<{ from: number; to: number; at: number }> = [];
  let previous = 0;
  for (const segment of segments) {
    text += line.slice(previous, segment.from);
    starts.push({ ...segment, at: text.length });
    text += MASK;
    previous = segment.to;
  }
  text += line.slice(previous);
  return {
    text,
    map(col, atEnd = false) {
      let shift = 0;
      for (const segment of starts) {
        if (col < segment.from) break;
        if (col < segment.to) return segment.at + (atEnd ? MASK.length : 0);
        shift = segment.at + MASK.length - segment.to;
      }
      return col + shift;
    },
  };
}

/** The parts of yaml's messages that quote source text, withheld when that text is secret. */
const quoting: Array<[RegExp, string]> = [
  [/^(Unresolved tag|Could not resolve tag|Not a valid tag|Block scalar header includes extra characters|Unknown directive|Unsupported YAML version|Ordered maps must not include duplicate keys|Unresolved plain scalar|Not a YAML token): [\s\S]*$/, `$1: ${MASK}`],
  [/^Invalid escape sequence [\s\S]*$/, `Invalid escape sequence ${MASK}`],
  [/^Verbatim tags aren't resolved, so [\s\S]* is invalid\.$/, `Verbatim tags aren't resolved, so ${MASK} is invalid.`],
  [/^The [\s\S]* tag has no suffix$/, `The ${MASK} tag has no suffix`],
  [/^([\s\S]*?): "[\s\S]*"$/, `$1: ${MASK}`],
];

/** `message` without any secret text of `src` (and without quoted source, if `quotesSecret`). */
function safeMessage(src: Lines, ranges: Range[], message: string, quotesSecret: boolean): string {
  let safe = message;
  if (quotesSecret) for (const [pattern, replacement] of quoting) safe = safe.replace(pattern, replacement);
  // Last line of defence, for quoting this module does not know of: no word of a secret value.
  const words = new Set<string>();
  for (const range of ranges) {
    const value = src.text.slice(range.start, range.end);
    words.add(value.trim());
    for (const word of value.split(/[\s"',{}[\]]+/)) words.add(word);
  }
  for (const word of [...words].filter((w) => w.length >= 3).sort((a, b) => b.length - a.length)) safe = safe.split(word).join(MASK);
  return safe;
}

/** Keeps a masked excerpt line to 80 characters around column `ci`, as yaml does. */
function clip(line: string, ci: number): { line: string; ci: number } {
  if (ci >= 60 && line.length > 80) {
    const trimStart = Math.min(ci - 39, line.length - 79);
    line = '…' + line.substring(trimStart);
    ci -= trimStart - 1;
  }
  if (line.length > 80) line = line.substring(0, 79) + '…';
  return { line, ci };
}

/**
 * A YAML error or warning as text: the library's message, `at line L, column C`, and an excerpt
 * (the line before, the line of the error with a `^` under the error, the line after) where the
 * value of every secret-looking key reads `***`. Parse with `prettyErrors: false`, so that
 * `error.message` holds no excerpt of its own.
 */
export function describeYamlError(text: string, error: YAMLError): string {
  const src = new Lines(text);
  const ranges = secretRanges(src);
  const [pos, posEnd] = error.pos ?? [-1, -1];
  if (!(pos >= 0)) return safeMessage(src, ranges, error.message, true);
  const errorEnd = Math.max(posEnd, pos + 1);
  const quotesSecret = ranges.some((range) => range.start < errorEnd && pos < range.end);
  const message = safeMessage(src, ranges, error.message, quotesSecret);

  const index = src.lineOf(pos);
  const col = pos - src.starts[index];
  const masked = maskLine(src, ranges, index);
  let ci = masked.map(col);
  let count = 1;
  if (src.lineOf(posEnd) === index && posEnd > pos) count = Math.max(1, masked.map(posEnd - src.starts[index], true) - ci);
  const clipped = clip(masked.text, ci);
  ci = clipped.ci;
  count = Math.max(1, Math.min(count, 80 - ci));
  const excerpt: string[] = [];
  if (index > 0 && !isBlank(src.lines[index - 1])) excerpt.push(clip(maskLine(src, ranges, index - 1).text, 0).line);
  excerpt.push(clipped.line);
  const head = `${message} at line ${index + 1}, column ${col + 1}`;
  if (excerpt.every(isBlank)) return head;
  excerpt.push(clipped.line.slice(0, ci).replace(/[^\t]/g, ' ') + ' '.repeat(Math.max(0, ci - clipped.line.length)) + '^'.repeat(count));
  if (index + 1 < src.count && !isBlank(src.lines[index + 1])) excerpt.push(clip(maskLine(src, ranges, index + 1).text, 0).line);
  return `${head}:\n\n${excerpt.join('\n')}`;
}

/** A message (e.g. of an error thrown while converting the document) without secret values of `text`. */
export function redactYamlMessage(text: string, message: string): string {
  const src = new Lines(text);
  return safeMessage(src, secretRanges(src), message, false);
}
