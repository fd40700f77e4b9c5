/**
 * Part 4: start-up. Runs alone with BENCH_PARTS=4, or standalone:
 * `node node_modules/.cache/sql-resources-bench/bench/startup.js` after `tsc -p bench/tsconfig.json`.
 *
 * 1. `sql-resources serve <profile> --port 0` (NOT embedded): from spawning the process until it
 *    prints "listening", for a profile with one resource of each selected kind and two endpoints
 *    against the local servers; median of BENCH_STARTUP_SPAWNS spawns (default 15). Each spawn is
 *    stopped with SIGTERM before the next one starts. BENCH_STARTUP_CLI names the cli.js to run
 *    (default: this bench's build of src/host/cli.ts); BENCH_STARTUP_BASELINE names another build's
 *    cli.js (e.g. a checkout of the previous commit, built with `npm run build`) for a same-machine
 *    A/B: the two alternate spawn by spawn, and which goes first alternates too. One extra,
 *    untimed spawn per cli.js counts the modules it loaded and whether PGlite was among them.
 * 2. The embedded PostgreSQL (development only): how long startEmbeddedPostgres() takes by each
 *    path, from the call until the child reports ready: initdb (a new data dir, no template;
 *    BENCH_STARTUP_INITDB_RUNS, default 1), the `npm install` template (a new data dir;
 *    BENCH_STARTUP_EMBEDDED_RUNS, default 3) and reopening an existing data dir (same count).
 *    These figures used to be wall-clock assertions in the tests. BENCH_STARTUP_EMBEDDED=0 skips it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultTemplatePath, startEmbeddedPostgres, type Initialization } from '../src/host/embedded-postgres/index';
import { intFromEnv } from './env';
import { table as textTable } from './report';
import { runStandalone } from './standalone';
import { servers, type Kind } from './servers';
import { median, round } from './stats';

export interface StartupSettings {
  spawns: number;
  /** The cli.js measured, and the baseline's when there is one. */
  cli: string;
  baseline?: string;
  embedded: boolean;
  initdbRuns: number;
  embeddedRuns: number;
}

export function startupSettingsFromEnv(): StartupSettings {
  const baseline = process.env.BENCH_STARTUP_BASELINE;
  return {
    spawns: intFromEnv('BENCH_STARTUP_SPAWNS', 15),
    cli: resolve(process.env.BENCH_STARTUP_CLI || join(__dirname, '../src/host/cli.js')),
    ...(baseline ? { baseline: resolve(baseline) } : {}),
    embedded: process.env.BENCH_STARTUP_EMBEDDED !== '0',
    initdbRuns: intFromEnv('BENCH_STARTUP_INITDB_RUNS', 1),
    embeddedRuns: intFromEnv('BENCH_STARTUP_EMBEDDED_RUNS', 3),
  };
}

/** Milliseconds from spawn to "listening", one figure per spawn, in the order they ran. */
export interface ServeStartup {
  kind: Kind;
  /** 'current' or 'baseline'. */
  side: 'current' | 'baseline';
  cli: string;
  medianMs: number;
  minMs: number;
  maxMs: number;
  samplesMs: number[];
  /**
   * With a baseline, on the current side: the median over spawn pairs of (current − baseline) ms.
   * Steadier than the difference of the medians when the machine's load drifts during the run.
   */
  pairedDeltaMs?: number;
  /** Modules in require.cache once listening (one untimed spawn). */
  modulesLoaded: number;
  /** Whether any of them was PGlite's (@electric-sql/pglite*). */
  loadsPglite: boolean;
}

export interface EmbeddedStartup {
  initialized: Initialization;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

export interface StartupResult {
  serve: ServeStartup[];
  embedded: EmbeddedStartup[];
}

/** A profile with one resource of `kind` on the local server and two endpoints that need no table. */
function writeProfile(dir: string, kind: Kind): string {
  const server = servers[kind];
  const file = join(dir, `startup-${kind}.json`);
  const profile = {
    name: `startup-${kind}`,
    resources: {
      db: {
        _class: kind,
        server: { host: server.host, port: server.port, user: server.user, database: server.database, ...(server.password ? { password: server.password } : {}) },
      },
    },
    server: {
      endpoints: [
        { path: '/one', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS one' },
        { path: '/two', endpoint: 'list', resource: 'db', sql: 'SELECT 2 AS two' },
      ],
    },
  };
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

/**
 * Spawns `node [preload] cli serve profile --port 0`, resolves with the ms until stdout says
 * "listening", then stops it (SIGTERM) and waits for its exit. `stderr` collects the rest.
 */
function timeServe(cli: string, profile: string, preload?: string): Promise<{ ms: number; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const startedAt = performance.now();
    const child = spawn(process.execPath, [...(preload ? ['-r', preload] : []), cli, 'serve', profile, '--port', '0', '--host', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBUG: '' },
    });
    let stdout = '';
    let stderr = '';
    let ms: number | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (ms === undefined && stdout.includes(' listening on ')) {
        ms = performance.now() - startedAt;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (ms === undefined) reject(new Error(`${cli} serve ${profile} exited (code ${code}, signal ${signal}) before listening:\n${stdout}${stderr}`));
      else resolveRun({ ms, stderr });
    });
  });
}

/** A preload that reports, when the process exits, the modules it had loaded. */
function writeProbe(dir: string): string {
  const file = join(dir, 'startup-probe.js');
  writeFileSync(
    file,
    `process.on('exit', () => {
  const loaded = Object.keys(require.cache);
  process.stderr.write('\\nstartup-probe ' + JSON.stringify({ modules: loaded.length, pglite: loaded.some((path) => path.includes('@electric-sql/pglite')) }) + '\\n');
});\n`,
  );
  return file;
}

async function probeModules(cli: string, profile: string, probe: string): Promise<{ modules: number; pglite: boolean }> {
  const { stderr } = await timeServe(cli, profile, probe);
  const line = /startup-probe (\{.*\})/.exec(stderr);
  if (!line) throw new Error(`startup probe: no report from ${cli}:\n${stderr}`);
  return JSON.parse(line[1]) as { modules: number; pglite: boolean };
}

function summary(samples: number[]): { medianMs: number; minMs: number; maxMs: number } {
  return { medianMs: round(median(samples), 1), minMs: round(Math.min(...samples), 1), maxMs: round(Math.max(...samples), 1) };
}

async function benchServe(kind: Kind, settings: StartupSettings, dir: string, progress: (line: string) => void): Promise<ServeStartup[]> {
  const profile = writeProfile(dir, kind);
  const sides = [{ side: 'current' as const, cli: settings.cli }, ...(settings.baseline ? [{ side: 'baseline' as const, cli: settings.baseline }] : [])];
  for (const { cli } of sides) if (!existsSync(cli)) throw new Error(`startup: ${cli} not found (build it first)`);
  // One unmeasured spawn each, so the file system cache is warm for both.
  for (const { cli } of sides) await timeServe(cli, profile);
  const samples = sides.map(() => [] as number[]);
  for (let spawnIndex = 0; spawnIndex < settings.spawns; spawnIndex++) {
    const order = spawnIndex % 2 === 0 ? sides.map((_, index) => index) : sides.map((_, index) => index).reverse();
    for (const index of order) samples[index].push((await timeServe(sides[index].cli, profile)).ms);
  }
  const probe = writeProbe(dir);
  const results: ServeStartup[] = [];
  for (const [index, { side, cli }] of sides.entries()) {
    const loaded = await probeModules(cli, profile, probe);
    const result: ServeStartup = {
      kind,
      side,
      cli,
      ...summary(samples[index]),
      samplesMs: samples[index].map((ms) => round(ms, 1)),
      ...(side === 'current' && samples.length === 2
        ? { pairedDeltaMs: round(median(samples[0].map((ms, spawnIndex) => ms - samples[1][spawnIndex])), 1) }
        : {}),
      modulesLoaded: loaded.modules,
      loadsPglite: loaded.pglite,
    };
    results.push(result);
    const delta = result.pairedDeltaMs === undefined ? '' : `, ${result.pairedDeltaMs} ms vs baseline (paired median)`;
    progress(`${kind} serve (${side}): median ${result.medianMs} ms over ${settings.spawns} spawns${delta}, ${result.modulesLoaded} modules, PGlite ${result.loadsPglite ? 'loaded' : 'not loaded'}`);
  }
  return results;
}

async function timeEmbeddedStart(dataDir: string, template: string | false): Promise<{ ms: number; initialized: Initialization }> {
  const startedAt = performance.now();
  const embedded = await startEmbeddedPostgres({ dataDir, template });
  const ms = performance.now() - startedAt;
  await embedded.stop();
  return { ms, initialized: embedded.initialized };
}

async function benchEmbedded(settings: StartupSettings, dir: string, progress: (line: string) => void): Promise<EmbeddedStartup[]> {
  const runs: Record<Initialization, number[]> = { initdb: [], template: [], existing: [] };
  const record = (run: { ms: number; initialized: Initialization }): void => {
    runs[run.initialized].push(run.ms);
  };
  for (let index = 0; index < settings.initdbRuns; index++) record(await timeEmbeddedStart(join(dir, `initdb-${index}`), false));
  let template: string | undefined;
  try {
    template = defaultTemplatePath();
  } catch {
    template = undefined;
  }
  if (template && existsSync(template)) {
    for (let index = 0; index < settings.embeddedRuns; index++) record(await timeEmbeddedStart(join(dir, `template-${index}`), template));
  } else {
    progress('embedded: no npm install template (run `npm run prepare`); template starts not measured');
  }
  for (let index = 0; index < settings.embeddedRuns; index++) record(await timeEmbeddedStart(join(dir, 'initdb-0'), false));
  const results = (Object.keys(runs) as Initialization[])
    .filter((initialized) => runs[initialized].length > 0)
    .map((initialized) => ({ initialized, runs: runs[initialized].length, ...summary(runs[initialized]) }));
  for (const result of results) progress(`embedded start (${result.initialized}): median ${result.medianMs} ms over ${result.runs}`);
  return results;
}

/** Part 4 over the selected kinds. */
export async function runStartup(selected: readonly Kind[], settings: StartupSettings, progress: (line: string) => void): Promise<StartupResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sql-resources-bench-startup-'));
  try {
    const serve: ServeStartup[] = [];
    for (const kind of selected) serve.push(...(await benchServe(kind, settings, dir, progress)));
    const embedded = settings.embedded ? await benchEmbedded(settings, dir, progress) : [];
    return { serve, embedded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function startupHeading(settings: StartupSettings): string {
  return (
    `Part 4 — start-up: \`serve\` from spawn to "listening" (one resource, two endpoints, not embedded; median of ${settings.spawns} spawns` +
    `${settings.baseline ? ', current and baseline alternating' : ''}), and the embedded PostgreSQL's start by path`
  );
}

export function startupTable(result: StartupResult): string {
  const serve = textTable(
    ['kind / side', 'median ms', 'min ms', 'max ms', 'Δ paired ms', 'modules', 'PGlite loaded'],
    result.serve.map((r) => [
      `${r.kind} ${r.side}`,
      r.medianMs.toFixed(1),
      r.minMs.toFixed(1),
      r.maxMs.toFixed(1),
      r.pairedDeltaMs === undefined ? '-' : r.pairedDeltaMs.toFixed(1),
      r.modulesLoaded,
      r.loadsPglite ? 'yes' : 'no',
    ]),
  );
  if (result.embedded.length === 0) return serve;
  const embedded = textTable(
    ['embedded start', 'runs', 'median ms', 'min ms', 'max ms'],
    result.embedded.map((r) => [r.initialized, r.runs, r.medianMs.toFixed(0), r.minMs.toFixed(0), r.maxMs.toFixed(0)]),
  );
  return `${serve}\n\n${embedded}`;
}

if (require.main === module) runStandalone('startup', startupSettingsFromEnv(), runStartup, startupHeading, startupTable);
