#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import { integerOf, integerRule } from '../integers';
import { formatProblems } from './problems';
import { createApp, type App } from './app';
import { checkApp } from './check';
import type { EmbeddedMode } from './embedded-postgres/index';

/** The embedded PostgreSQL's code, loaded only when --embedded-postgres is given. */
const loadEmbedded = () => import('./embedded-postgres/index');

const usage = `usage:
  sql-resources serve <profile> [--port N] [--host ADDRESS] [--embedded-postgres [--embedded-postgres-dir DIR]]
  sql-resources check <profile> [--embedded-postgres [--embedded-postgres-dir DIR]]
  sql-resources schema     print the JSON Schema of profiles (for editors and CI)

--embedded-postgres  run the profile's postgres resources on an embedded PGlite server
                     (development only, not for production); data in
                     --embedded-postgres-dir, else $SQL_RESOURCES_EMBEDDED_PG_DIR, else .data/pglite`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** `--port`: decimal digits, 0 to 65535 (`1e3`, `0x50`, `080`, an empty value are refused); the value is echoed. */
function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const range = { min: 0, max: 65535 };
  const port = integerOf(value);
  if (port === undefined || port < range.min || port > range.max) fail(`--port ${integerRule(range)}, got '${value}'`);
  return port;
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
function stopOnSignals(name: () => string, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${signal}: stopping ${name()}…`);
    stop().then(
      () => process.exit(0),
      (error: Error) => fail(`stop failed: ${error.message}`),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

interface ServeOptions {
  port?: number;
  host?: string;
  /** Data folder of the embedded PostgreSQL; undefined when it is not used. */
  embeddedDataDir?: string;
}

function printWarnings(app: App): void {
  for (const warning of app.warnings) console.warn(`warning: ${warning}`);
}

async function serve(profilePath: string, options: ServeOptions): Promise<void> {
  if (options.embeddedDataDir !== undefined) return serveOnEmbeddedPostgres(profilePath, options.embeddedDataDir, options);
  const app = createApp(profilePath);
  printWarnings(app);
  stopOnSignals(() => app.name, () => app.stop());
  await app.start({ port: options.port, host: options.host });
  const address = app.address();
  console.log(address ? `${app.name} listening on http://${address.host}:${address.port}` : `${app.name} started (no endpoints)`);
}

/** Starts PGlite for the profile's postgres resources, printing what it does. */
async function startEmbedded(profilePath: string, dataDir: string): Promise<EmbeddedMode> {
  const { isFirstStart, startEmbeddedMode } = await loadEmbedded();
  const fromCwd = relative(process.cwd(), dataDir);
  const shownDir = fromCwd === '' ? '.' : fromCwd.startsWith('..') ? dataDir : fromCwd;
  console.log('Embedded PostgreSQL (PGlite): DEVELOPMENT ONLY, not for production.');
  console.log(isFirstStart(dataDir)
    ? `  creating its database in ${shownDir} (first start: a few seconds)…`
    : `  data in ${shownDir}`);
  const mode = await startEmbeddedMode(profilePath, { dataDir });
  const { embedded } = mode;
  const how = { existing: 'existing database', template: 'new database copied from the npm install template', initdb: 'new database made by initdb' };
  console.log(`  ready in ${(mode.startMs / 1000).toFixed(1)} s on ${embedded.host}:${embedded.port} (pid ${embedded.pid}, ${how[embedded.initialized]})`);
  console.log(`  psql ${embedded.connectionString}`);
  console.log(`  serving resource${mode.resourceIds.length > 1 ? 's' : ''} ${mode.resourceIds.join(', ')}${mode.seeded ? `; seed ${relative(process.cwd(), mode.seeded)} applied` : ''}`);
  return mode;
}

/**
 * Serve on the embedded PostgreSQL. It starts first; on SIGINT/SIGTERM the HTTP server and
 * the resources stop (app.stop()), then the embedded server, then the process exits.
 */
async function serveOnEmbeddedPostgres(profilePath: string, dataDir: string, options: ServeOptions): Promise<void> {
  let app: App | undefined;
  let stopping = false;
  const starting = startEmbedded(profilePath, dataDir);
  const stopAll = async (): Promise<void> => {
    stopping = true;
    try {
      await app?.stop();
    } finally {
      const mode = await starting.catch(() => undefined);
      await mode?.embedded.stop();
      if (mode) console.log('Embedded PostgreSQL stopped.');
    }
  };
  stopOnSignals(() => app?.name ?? profilePath, stopAll);

  const mode = await starting;
  if (stopping) return; // a signal came during the start: stopAll() stops it and exits
  void mode.embedded.exited.then(({ code, signal }) => {
    if (stopping) return;
    console.error(`Embedded PostgreSQL exited unexpectedly (code ${code}, signal ${signal}); stopping.`);
    void stopAll().finally(() => process.exit(1));
  });
  try {
    app = createApp(mode.profile);
    printWarnings(app);
    await app.start({ port: options.port, host: options.host });
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
  const address = app.address();
  if (!address) return void console.log(`${app.name} started (no endpoints)`);
  const baseUrl = (await loadEmbedded()).reachableBaseUrl(address);
  console.log(`${app.name} listening on http://${address.host}:${address.port}`);
  const lines = mode.tryLines(baseUrl);
  if (lines.length > 0) console.log(`\nTry:\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
  console.log('Ctrl-C stops the API, then the embedded PostgreSQL.');
}

async function check(profilePath: string, embeddedDataDir: string | undefined): Promise<void> {
  let mode: EmbeddedMode | undefined;
  if (embeddedDataDir !== undefined) mode = await startEmbedded(profilePath, embeddedDataDir);
  let problems: string[];
  try {
    problems = await checkApp(
      mode?.profile ?? profilePath,
      (warning) => console.warn(`warning: ${warning}`),
      (line) => console.log(line),
    );
  } finally {
    await mode?.embedded.stop();
  }
  if (problems.length > 0) fail(formatProblems(profilePath, problems));
  console.log(`${profilePath}: ok`);
}

/** The profile schema of the classes registered now, as JSON, for editors' YAML support. */
async function printSchema(): Promise<void> {
  const { profileSchema } = await import('./schema/profile-schema');
  console.log(JSON.stringify(profileSchema(), null, 2));
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'embedded-postgres': { type: 'boolean' },
      'embedded-postgres-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, profilePath, ...extra] = positionals;
  if (values.help) return void console.log(usage);
  if (command === 'schema' && profilePath === undefined) return printSchema();
  if (!profilePath || extra.length > 0) fail(usage);
  if (values['embedded-postgres-dir'] !== undefined && !values['embedded-postgres']) fail('--embedded-postgres-dir needs --embedded-postgres');
  const embeddedDataDir = values['embedded-postgres'] ? (await loadEmbedded()).resolveEmbeddedDataDir(values['embedded-postgres-dir']) : undefined;
  if (command === 'serve') return serve(profilePath, { port: parsePort(values.port), host: values.host, embeddedDataDir });
  if (command === 'check') return check(profilePath, embeddedDataDir);
  fail(`unknown command '${command}'\n${usage}`);
}

main(process.argv.slice(2)).catch((error: Error) => fail(error.message));
