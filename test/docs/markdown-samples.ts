import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Kind } from '../support/servers';

/**
 * Code blocks of docs/*.md (and README.md) and the HTML comment that marks each one:
 *
 *   <!-- sample: name [mysql|postgres] [fixture] [profile=other] -->
 *                                                      ts: run it; yaml: build it with createApp;
 *                                                      console: replay its commands (console-session.ts)
 *   <!-- fixture-sql: mysql|postgres -->               tables every sample of the page starts with, for that kind
 *   <!-- file: name -->                                written as `name` next to the page's profiles (server.lib code)
 *   <!-- no-run: reason -->                            shown only, on purpose
 *
 * A ts or console sample runs against the page's fixture app; with `profile=other`, against an
 * app built from the page's yaml sample `other` instead (on the same fixture tables).
 * A page may say `<!-- sample-kinds: mysql -->` to run its samples against one kind only, and
 * `<!-- sample-env: NAME=value … -->` to set environment variables while its samples run (what
 * its profiles read as `{{NAME}}`: a secret the page shows being exported, for instance).
 * A page without its own fixture profile or fixture SQL for a kind uses the ones of
 * `<kind>.md` (mysql.md, postgres.md). A yaml sample whose marker names no kind is
 * kind-neutral: each run sets its resources' `_class` to the kind it runs against.
 */
export const rootDir = join(__dirname, '..', '..');
export const docsDir = join(rootDir, 'docs');

/** Pages written by other work streams, whose code blocks follow their own rules. */
export const unmanagedPages = new Set(['performance.md']);

/** Languages whose blocks must carry a marker, so no sample can silently go unchecked. */
export const checkedLanguages = new Set(['ts', 'typescript', 'js', 'javascript', 'yaml', 'yml', 'json', 'console', 'sh', 'bash', 'shell']);

/** Languages a `sample` marker can run. */
export const runnableLanguages = new Set(['ts', 'yaml', 'console']);

export type Marker =
  | { type: 'sample'; name: string; kinds?: Kind[]; fixture: boolean; profile?: string }
  | { type: 'fixture-sql'; kind: Kind }
  | { type: 'file'; name: string }
  | { type: 'no-run'; reason: string };

export interface CodeBlock {
  page: string;
  /** 1-based line of the block's first code line in the page. */
  line: number;
  lang: string;
  code: string;
  marker?: Marker;
}

export interface Page {
  name: string;
  kinds: Kind[];
  /** Environment variables set while the page's samples run (`sample-env`). */
  env: Record<string, string>;
  blocks: CodeBlock[];
}

export const allKinds: Kind[] = ['mysql', 'postgres'];
const isKind = (word: string): word is Kind => (allKinds as string[]).includes(word);

function parseMarker(comment: string, where: string): Marker | undefined {
  const match = /^<!--\s*([a-z-]+):\s*(.*?)\s*-->$/.exec(comment.trim());
  if (!match) return undefined;
  const [, type, rest] = match;
  const words = rest.split(/\s+/).filter(Boolean);
  if (type === 'sample') {
    const [name, ...flags] = words;
    if (!name) throw new Error(`${where}: a sample marker needs a name`);
    const profiles = flags.filter((flag) => /^profile=[\w.-]+$/.test(flag)).map((flag) => flag.slice('profile='.length));
    const unknown = flags.filter((flag) => flag !== 'fixture' && !isKind(flag) && !/^profile=[\w.-]+$/.test(flag));
    if (unknown.length > 0) throw new Error(`${where}: unknown sample flag(s) ${unknown.join(', ')}`);
    if (profiles.length > 1) throw new Error(`${where}: a sample runs against one profile`);
    const kinds = flags.filter(isKind);
    return { type, name, kinds: kinds.length > 0 ? kinds : undefined, fixture: flags.includes('fixture'), profile: profiles[0] };
  }
  if (type === 'fixture-sql') {
    if (!isKind(rest)) throw new Error(`${where}: fixture-sql needs mysql or postgres`);
    return { type, kind: rest };
  }
  if (type === 'file') {
    if (!/^[\w.-]+$/.test(rest)) throw new Error(`${where}: a file marker needs a plain file name`);
    return { type, name: rest };
  }
  if (type === 'no-run') return { type, reason: rest };
  return undefined;
}

export function parsePage(name: string, text: string): Page {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  const kindsDeclaration = /<!--\s*sample-kinds:\s*([a-z ,]+?)\s*-->/.exec(text);
  const kinds = kindsDeclaration ? kindsDeclaration[1].split(/[\s,]+/).filter(isKind) : allKinds;
  const envDeclaration = /<!--\s*sample-env:\s*(.*?)\s*-->/.exec(text);
  const env: Record<string, string> = {};
  for (const pair of envDeclaration ? envDeclaration[1].split(/\s+/).filter(Boolean) : []) {
    const match = /^([A-Za-z_]\w*)=(.*)$/.exec(pair);
    if (!match) throw new Error(`${name}: sample-env takes NAME=value pairs, not '${pair}'`);
    env[match[1]] = match[2];
  }
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\w*)/.exec(lines[index]);
    if (!open) continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end += 1;
    if (end === lines.length) throw new Error(`${name}:${index + 1}: code block is never closed`);
    let before = index - 1;
    while (before >= 0 && lines[before].trim() === '') before -= 1;
    const marker = before >= 0 ? parseMarker(lines[before], `${name}:${before + 1}`) : undefined;
    blocks.push({ page: name, line: start + 1, lang: open[1], code: lines.slice(start, end).join('\n'), marker });
    index = end;
  }
  return { name, kinds, env, blocks };
}

/** The pages of docs/ this suite manages, parsed. */
export function readPages(): Page[] {
  return readdirSync(docsDir)
    .filter((file) => file.endsWith('.md') && !unmanagedPages.has(file))
    .sort()
    .map((file) => parsePage(file, readFileSync(join(docsDir, file), 'utf8')));
}

/** README.md, parsed like a page (its blocks carry no markers: see doc-samples.test.ts). */
export function readReadme(): Page {
  return parsePage('README.md', readFileSync(join(rootDir, 'README.md'), 'utf8'));
}

/** The kinds a marked block runs against on its page. */
export function kindsOf(page: Page, block: CodeBlock): Kind[] {
  return block.marker?.type === 'sample' && block.marker.kinds ? block.marker.kinds : page.kinds;
}

/** The `// → text` comments of a sample, in order: what its console.log calls must print. */
export function expectedOutput(code: string): string[] {
  return [...code.matchAll(/\/\/ → (.*)$/gm)].map((match) => normalize(match[1]));
}

export function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
