import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { CodeBlock } from './markdown-samples';
import { rootDir } from './markdown-samples';

/**
 * A ```console block as a session to replay: `$ command` lines, each followed by the output
 * it prints. Four sorts of command are understood:
 *
 *   $ curl [-s] [-i] [-X METHOD] [-H 'Name: value']... [-d 'body'] URL   # 201 optional comment
 *   $ npx sql-resources check profile.yml                                # exit code 1
 *   $ export NAME=value        NAME=$(node script.js …)                   # a session variable
 *   $ printf %s "$KEY" | sha256sum                                       # any other command
 *
 * curl requests go to the app under test, whatever host and port the URL names; the printed
 * body (and with -i the status line and the headers) must be what the server answers.
 * A comment starting with a status code checks the status too. `sql-resources` commands run
 * the CLI from source in the page's workspace; their output must match, and the exit code is
 * the comment's `exit code N` (0 when not given). An assignment (`NAME=…`, `export NAME=…`)
 * is evaluated by /bin/sh in the workspace, prints nothing, and sets a variable of the session;
 * `$NAME` and `${NAME}` then read it in later commands (outside single quotes, as a shell
 * would). Any other command runs in /bin/sh in the workspace, like the CLI, with the session's
 * variables in its environment and `NODE_PATH` at the project's node_modules, so `node file.js`
 * finds the packages the project has.
 */
export interface SessionStep {
  /** 1-based line of the `$` line in the page. */
  line: number;
  /** The command as written, without its trailing comment. */
  command: string;
  comment: string;
  output: string[];
}

/** The variables a session has set so far (`NAME=…`, `export NAME=…`). */
export type SessionVariables = Map<string, string>;

export function parseSession(block: CodeBlock): SessionStep[] {
  const steps: SessionStep[] = [];
  block.code.split('\n').forEach((text, index) => {
    if (text.startsWith('$ ')) {
      const { command, comment } = splitComment(text.slice(2), `${block.page}:${block.line + index}`);
      steps.push({ line: block.line + index, command, comment, output: [] });
    } else if (steps.length === 0) {
      if (text.trim() !== '') throw new Error(`${block.page}:${block.line + index}: a session starts with a '$ ' command line`);
    } else {
      steps[steps.length - 1].output.push(text);
    }
  });
  for (const step of steps) while (step.output.length > 0 && step.output[step.output.length - 1].trim() === '') step.output.pop();
  return steps;
}

/** A command line and its trailing `# comment`: the first `#` that starts a word outside quotes. */
export function splitComment(line: string, where: string): { command: string; comment: string } {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const c = line[index];
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') index += 1;
      else if (c === quote) quote = undefined;
    } else if (c === '\\') index += 1;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (index === 0 || line[index - 1] === ' ' || line[index - 1] === '\t')) {
      return { command: line.slice(0, index).trim(), comment: line.slice(index + 1).trim() };
    }
  }
  if (quote !== undefined) throw new Error(`${where}: unterminated ${quote} quote`);
  return { command: line.trim(), comment: '' };
}

/** `$NAME` or `${NAME}` at `index` of `line`: the variable's value and where the reference ends. */
function expand(line: string, index: number, variables: SessionVariables, where: string): { text: string; end: number } {
  const match = /^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/.exec(line.slice(index));
  if (!match) throw new Error(`${where}: '$' is supported only as $NAME or \${NAME} in a replayed curl or sql-resources command`);
  const name = match[1] ?? match[2];
  const value = variables.get(name);
  if (value === undefined) throw new Error(`${where}: $${name} is not set by an earlier step of the session`);
  return { text: value, end: index + match[0].length };
}

/**
 * POSIX-shell words of one command: single and double quotes, backslashes, and `$NAME` /
 * `${NAME}` read from the session's variables (not inside single quotes).
 */
export function shellWords(line: string, where: string, variables: SessionVariables = new Map()): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let index = 0;
  while (index < line.length) {
    const c = line[index];
    if (c === "'") {
      const close = line.indexOf("'", index + 1);
      if (close < 0) throw new Error(`${where}: unterminated ' quote`);
      word = (word ?? '') + line.slice(index + 1, close);
      index = close + 1;
    } else if (c === '"') {
      let text = '';
      index += 1;
      while (index < line.length && line[index] !== '"') {
        if (line[index] === '$') {
          const expanded = expand(line, index, variables, where);
          text += expanded.text;
          index = expanded.end;
          continue;
        }
        if (line[index] === '\\' && '"\\$`'.includes(line[index + 1])) index += 1;
        text += line[index];
        index += 1;
      }
      if (index >= line.length) throw new Error(`${where}: unterminated " quote`);
      word = (word ?? '') + text;
      index += 1;
    } else if (c === '\\') {
      word = (word ?? '') + line[index + 1];
      index += 2;
    } else if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
      index += 1;
    } else if (c === '$') {
      const expanded = expand(line, index, variables, where);
      word = (word ?? '') + expanded.text;
      index = expanded.end;
    } else if ('|;&<>`'.includes(c)) {
      throw new Error(`${where}: '${c}' is not supported in a replayed curl or sql-resources command`);
    } else {
      word = (word ?? '') + c;
      index += 1;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** What a step is, by its first word: an assignment, curl, the CLI, or another shell command. */
export type StepKind = { type: 'assignment'; name: string } | { type: 'curl' } | { type: 'cli' } | { type: 'shell' };

export function stepKind(step: SessionStep): StepKind {
  const assignment = /^(?:export\s+)?([A-Za-z_]\w*)=/.exec(step.command);
  if (assignment) return { type: 'assignment', name: assignment[1] };
  const first = /^\S+/.exec(step.command)?.[0];
  if (first === 'curl') return { type: 'curl' };
  if (first === 'sql-resources' || (first === 'npx' && /^npx\s+sql-resources\b/.test(step.command))) return { type: 'cli' };
  return { type: 'shell' };
}

/** The environment of a session's shell and CLI commands: the process's, plus the session's variables. */
export function sessionEnv(variables: SessionVariables): NodeJS.ProcessEnv {
  return { ...process.env, ...Object.fromEntries(variables), NODE_PATH: join(rootDir, 'node_modules') };
}

/** Runs a command line in /bin/sh in `cwd`; its output is stdout then stderr. */
export function runShell(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliRun> {
  return runProcess('/bin/sh', ['-c', command], cwd, env, timeoutMs);
}

/**
 * Evaluates an assignment step in /bin/sh and answers the value it gives the variable (a
 * command substitution's trailing newlines dropped, as the shell does). An assignment prints
 * nothing: any output, or a failing command, is the mismatch.
 */
export async function runAssignment(step: SessionStep, name: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ value?: string; mismatch?: string }> {
  if (step.output.length > 0) return { mismatch: 'an assignment prints nothing: the session shows output under it' };
  const run = await runShell(`${step.command}\nprintf %s "$${name}"`, cwd, env);
  if (run.code !== 0 || run.stderr !== '') return { mismatch: `exit code ${run.code}; output:\n${run.printed.join('\n')}` };
  return { value: run.stdout };
}

export interface CurlRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** -i: the status line and headers are printed before the body. */
  include: boolean;
}

/** The request a curl command line makes, as curl would make it. */
export function curlRequest(words: string[], where: string): CurlRequest {
  if (words[0] !== 'curl') throw new Error(`${where}: not a curl command`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  let include = false;
  const headers: Record<string, string> = {};
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index];
    const next = (): string => {
      index += 1;
      if (index >= words.length) throw new Error(`${where}: ${word} needs a value`);
      return words[index];
    };
    if (word === '-s' || word === '--silent') continue;
    else if (word === '-i' || word === '--include') include = true;
    else if (word === '-si' || word === '-is') include = true;
    else if (word === '-X' || word === '--request') method = next();
    else if (word === '-H' || word === '--header') {
      const header = next();
      const colon = header.indexOf(':');
      if (colon < 1) throw new Error(`${where}: header '${header}' has no name`);
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === '-d' || word === '--data' || word === '--data-raw') body = next();
    else if (word.startsWith('-')) throw new Error(`${where}: curl option ${word} is not supported by the replay`);
    else if (url === undefined) url = word;
    else throw new Error(`${where}: more than one URL`);
  }
  if (url === undefined) throw new Error(`${where}: no URL`);
  const match = /^(?:https?:\/\/)?(?:localhost|127\.0\.0\.1)(?::\d+)?(\/.*)?$/.exec(url);
  if (!match) throw new Error(`${where}: the URL must be on localhost or 127.0.0.1, not ${url}`);
  // curl -d sends a form unless told otherwise; the host reads it as JSON anyway.
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), path: match[1] ?? '/', headers, body, include };
}

/** What curl prints for a response: the body, or with -i the status line, headers and body. */
export async function replayCurl(request: CurlRequest, baseUrl: string): Promise<{ printed: string[]; status: number; headers: Headers }> {
  const response = await fetch(baseUrl + request.path, { method: request.method, headers: request.headers, body: request.body });
  const body = await response.text();
  const printed: string[] = [];
  if (request.include) {
    printed.push(`HTTP/1.1 ${response.status} ${response.statusText}`);
    response.headers.forEach((value, name) => printed.push(`${name}: ${value}`));
    printed.push('');
  }
  printed.push(...body.split('\n'));
  while (printed.length > 0 && printed[printed.length - 1] === '') printed.pop();
  return { printed, status: response.status, headers: response.headers };
}

/** The documented status of a step, from a comment that starts with one (`# 201 created`). */
export function documentedStatus(step: SessionStep): number | undefined {
  const match = /^(\d{3})\b/.exec(step.comment);
  return match ? Number(match[1]) : undefined;
}

/** Headers that describe the connection rather than the answer; -i blocks may leave them out. */
const transportHeaders = new Set(['date', 'connection', 'keep-alive']);

/**
 * Checks a curl step's output. Without -i the printed body must be exactly the documented
 * lines. With -i the status line must match, the documented headers must be exactly the ones
 * answered (in any order; `date`, `connection` and `keep-alive` may be left out), then the body.
 */
export function curlMismatch(step: SessionStep, printed: string[], include: boolean): string | undefined {
  const documented = step.output;
  if (!include) return sameLines(documented, printed);
  const split = (lines: string[]): { head: string[]; body: string[] } => {
    const blank = lines.indexOf('');
    return blank < 0 ? { head: lines, body: [] } : { head: lines.slice(0, blank), body: lines.slice(blank + 1) };
  };
  const want = split(documented);
  const got = split(printed);
  if (want.head[0] !== got.head[0]) return `status line: documented '${want.head[0]}', answered '${got.head[0]}'`;
  const headers = (lines: string[]): string[] =>
    lines
      .slice(1)
      .map((header) => header.replace(/^([^:]+):\s*/, (_all, name: string) => `${name.toLowerCase()}: `))
      .filter((header) => !transportHeaders.has(header.slice(0, header.indexOf(':'))))
      .sort();
  const [wantHeaders, gotHeaders] = [headers(want.head), headers(got.head)];
  if (wantHeaders.join('\n') !== gotHeaders.join('\n')) return `headers: documented ${wantHeaders.join(' | ')}; answered ${gotHeaders.join(' | ')}`;
  return sameLines(want.body, got.body);
}

function sameLines(documented: string[], printed: string[]): string | undefined {
  const want = documented.join('\n').trim();
  const got = printed.join('\n').trim();
  return want === got ? undefined : `documented:\n${want}\nanswered:\n${got}`;
}

/** `npx sql-resources …` / `sql-resources …` as CLI arguments, or undefined for other commands. */
export function cliArguments(words: string[]): string[] | undefined {
  const rest = words[0] === 'npx' ? words.slice(1) : words;
  return rest[0] === 'sql-resources' ? rest.slice(1) : undefined;
}

export interface CliRun {
  code: number | null;
  /** stdout then stderr, by lines, without trailing empty lines. */
  printed: string[];
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source in `cwd`, as the installed `sql-resources` bin would run. */
export function runCliIn(args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliRun> {
  if (args[0] === 'serve') return Promise.reject(new Error('`serve` runs until stopped and cannot be replayed; mark the block no-run'));
  const cliArgs = ['-r', require.resolve('ts-node/register/transpile-only'), `${rootDir}/src/host/cli.ts`, ...args];
  return runProcess(process.execPath, cliArgs, cwd, { ...env, TS_NODE_PROJECT: `${rootDir}/tsconfig.json` }, timeoutMs);
}

function runProcess(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliRun> {
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      const printed = (stdout + stderr).split('\n');
      while (printed.length > 0 && printed[printed.length - 1] === '') printed.pop();
      resolve({ code, printed, stdout, stderr });
    });
  });
}

/** The documented exit code of a CLI step (`# exit code 1`), 0 when none is given. */
export function documentedExitCode(step: SessionStep): number {
  const match = /exit code (\d+)/.exec(step.comment);
  return match ? Number(match[1]) : 0;
}

export function cliMismatch(step: SessionStep, run: CliRun): string | undefined {
  const expected = documentedExitCode(step);
  if (run.code !== expected) return `exit code: documented ${expected}, got ${run.code}; output:\n${run.printed.join('\n')}`;
  return sameLines(step.output, run.printed);
}
