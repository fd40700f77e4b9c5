import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/** Runs the CLI from its TypeScript source, as `sql-resources <args>` would. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/host/cli.ts', ...args], {
    cwd: root,
    env: { ...env, TS_NODE_PROJECT: resolve(root, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end; `env` adds to this process's environment. */
export function runCli(args: string[], timeoutMs = 60_000, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = spawnCli(args, { ...process.env, ...env });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((done) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Resolves with the first stdout line matching `pattern`. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  return new Promise((resolveLine, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; output: ${seen}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolveLine(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited with ${code} before ${pattern}; output: ${seen}`)));
  });
}
