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

/** Index of the first `,`, `}` or `]` at or after `from`, or -1. */
function flowTerminator(line: string, from: number): number {
  for (let i = from; i < line.length; i++) if (line[i] === ',' || line[i] === '}' || line[i] === ']') return i;
  return -1;
}

/** `end` moved back over whitespace, but not before `start`. */
function trimEnd(text: string, start: number, end: number): number {
  while (end > start && /\s/.test(text[end - 1])) end--;
  return end;
}

/** A line that starts a mapping entry of its own (so not a mis-indented value). */
function looksLikeKeyLine(line: string): boolean {
  return /^[ \t]*(?:#|---|\.\.\.|%|(?:[A-Za-z_$][\w$.-]*|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]|$))/.test(line);
}

/** True when the value at `: ` starting line `index` belongs to an explicit key `? name` that is secret. */
function explicitKeyIsSecret(src: Lines, index: number): boolean {
  const indent = indentOf(src.lines[index]);
  for (let i = index - 1; i >= 0; i--) {
    const line = src.lines[i];
    if (isBlank(line)) continue;
    if (indentOf(line) > indent) continue;
    const match = /^[ \t]*\?(.*)$/.exec(line);
    return match !== null && isSecretKey(match[1]);
  }
  return false;
}

/**
 * The range to mask for the value of the secret key whose `:` is at `colon` on line `index`:
 * everything from the value's first character to where the value can end, including the lines
 * that may continue it.
 */
function valueRange(src: Lines, index: number, colon: number, inFlow: boolean): Range | undefined {
  const { text } = src;
  const line = src.lines[index];
  const base = src.starts[index];
  const keyIndent = indentOf(line);
  let j = colon + 1;
  while (j < line.length && /[ \t]/.test(line[j])) j++;
  let v = j; // the value proper, after anchors and tags
  while (v < line.length && (line[v] === '!' || line[v] === '&')) {
    while (v < line.length && !/[ \t]/.test(line[v])) v++;
    while (v < line.length && /[ \t]/.test(line[v])) v++;
  }
  const start = base + (j < line.length ? j : line.length);
  let end = src.end(index);
  let endLine = index;
  let mode: 'indent' | 'flow' | 'none' = inFlow ? 'flow' : 'indent';
  let valueOnNextLine = false;
  const c = line[v];
  if (v >= line.length || (c === '#' && /\s/.test(line[v - 1] ?? ' '))) {
    valueOnNextLine = true; // properties or a comment at most on this line
  } else if (c === '"' || c === "'") {
    const close = closingQuote(text, base + v);
    if (close < 0) return { start, end: text.length };
    endLine = src.lineOf(close);
    const closeLine = src.lines[endLine];
    let after = close + 1 - src.starts[endLine];
    while (after < closeLine.length && /[ \t]/.test(closeLine[after])) after++;
    end = src.end(endLine);
    if (inFlow) {
      if (after >= closeLine.length || ',}]#'.includes(closeLine[after])) return { start, end: close + 1 };
      const stop = flowTerminator(closeLine, after);
      if (stop >= 0) return { start, end: trimEnd(text, start, src.starts[endLine] + stop) };
    }
  } else if (c === '|' || c === '>') {
    const header = /^[|>][0-9+-]{0,2}/.exec(line.slice(v))![0];
    valueOnNextLine = true;
    if (isBlank(line.slice(v + header.length))) {
      const next = Math.min(index + 1, src.count - 1);
      return extend(src, { start: next === index ? end : src.starts[next], end }, index, keyIndent, 'indent', true);
    }
    return extend(src, { start: base + v + header.length, end }, index, keyIndent, 'indent', true);
  } else if (c === '{' || c === '[') {
    const rest = line.slice(v);
    const open = (rest.match(/[{[]/g) ?? []).length;
    const closed = (rest.match(/[}\]]/g) ?? []).length;
    if (inFlow && open <= closed) mode = 'none';
  } else if (inFlow) {
    const stop = flowTerminator(line, v);
    if (stop >= 0) return { start, end: trimEnd(text, start, base + stop) };
  }
  return extend(src, { start, end }, endLine, keyIndent, mode, valueOnNextLine);
}

/** Extends `range` over the lines after `line` that may continue the value. */
function extend(src: Lines, range: Range, line: number, keyIndent: number, mode: 'indent' | 'flow' | 'none', valueOnNextLine: boolean): Range | undefined {
  let { end } = range;
  let first = true;
  for (let i = line + 1; i < src.count && mode !== 'none'; i++) {
    const content = src.lines[i];
    if (isBlank(content)) continue;
    if (mode === 'flow') {
      // a flow value goes on until its `,`, `}` or `]`, whatever the indentation
      const stop = flowTerminator(content, 0);
      if (stop >= 0) {
        end = Math.max(end, trimEnd(src.text, src.starts[i], src.starts[i] + stop));
        break;
      }
      end = src.end(i);
      continue;
    }
    const indent = indentOf(content);
    const sequenceItem = indent === keyIndent && /^[ \t]*-(?:[ \t]|$)/.test(content);
    const misIndented = valueOnNextLine && first && !looksLikeKeyLine(content);
    first = false;
    if (indent > keyIndent || sequenceItem || misIndented) end = src.end(i);
    else break;
  }
  return end > range.start ? { start: range.start, end } : undefined;
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
    for (let i = from; i < line.length; i++) {
      const c = line[i];
      if (c === '{' || c === '[' || c === ',') keyStart = i + 1;
      if (c !== ':') continue;
      const key = line.slice(keyStart, i);
      keyStart = i + 1;
      const secret = isSecretKey(key) || (isBlank(key) && isBlank(line.slice(0, i)) && explicitKeyIsSecret(src, index));
      if (!secret) continue;
      const range = valueRange(src, index, i, depths[i] > 0);
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
 * (the line before and the line of the error, with a `^` under the error) where the value of
 * every secret-looking key reads `***`. Parse with `prettyErrors: false`, so that `error.message`
 * holds no excerpt of its own.
 */
export function describeYamlError(text: string, error: YAMLError): string {
  const src = new Lines(text);
  const ranges = secretRanges(src);
  const [pos, posEnd = pos] = error.pos ?? [-1, -1];
  if (pos === undefined || pos < 0) return safeMessage(src, ranges, error.message, true);
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
  const pointer = clipped.line.slice(0, ci).replace(/[^\t]/g, ' ') + ' '.repeat(Math.max(0, ci - clipped.line.length)) + '^'.repeat(count);
  return `${head}:\n\n${excerpt.join('\n')}\n${pointer}`;
}

/** A message (e.g. of an error thrown while converting the document) without secret values of `text`. */
export function redactYamlMessage(text: string, message: string): string {
  const src = new Lines(text);
  return safeMessage(src, secretRanges(src), message, false);
}
