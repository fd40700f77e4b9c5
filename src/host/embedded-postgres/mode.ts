/**
 * `sql-resources serve <profile> --embedded-postgres`: runs a profile on the embedded
 * PostgreSQL (PGlite, see start-server.ts) instead of a real server.
 *
 * DEVELOPMENT CONVENIENCE ONLY, not for production. It is what `npm start` uses to serve
 * examples/quickstart.yml on a machine with no database installed.
 *
 * Nothing in the resource classes knows about it: the loaded profile is copied and every
 * PostgreSQL resource's (`_class: postgres`, its alias `postgresql`, or a registered class
 * extending PostgresResource) `server` host, port, user, password and database are rewritten to
 * point at the embedded server, with `preparedStatements: false` (PGlite has one session
 * for all connections, so named statements of different connections would clash). The
 * normal `pg` pool and code path are used. `mysql`/`mariadb` resources are left as they are.
 *
 * An optional top-level profile section, read only in this mode:
 *
 *   embeddedPostgres:
 *     seed: quickstart.sql      # SQL run through `pg` on every start (make it idempotent),
 *                               # relative to the profile file
 *     try:                      # requests printed as curl lines once the API listens
 *       - { method: GET, path: /books }
 *       - { method: POST, path: /books, body: { id: x, title: y } }
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { Client } from 'pg';
import { isPlainObject } from '../../config';
import { fromDriverError, SqlResourceError } from '../../errors';
import { integerOf } from '../../integers';
import { isPostgresClass } from '../../registry';
import { loadProfile, type Profile } from '../profile';
import {
  DATA_DIR_ENV,
  DATA_DIR_MARKER,
  DEFAULT_DATA_DIR,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_POOL_SIZE,
  PROFILE_SECTION,
  PROFILE_SECTION_KEYS,
} from './constants';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './start-server';

export interface TryRequest {
  method: string;
  path: string;
  body?: unknown;
}

export interface EmbeddedSection {
  /** Absolute path of the seed SQL file. */
  seed?: string;
  try: TryRequest[];
}

export interface EmbeddedModeOptions {
  /** Data folder (created if missing); see resolveEmbeddedDataDir. */
  dataDir: string;
}

export interface EmbeddedMode {
  /** The profile with its postgres resources pointed at the embedded server. */
  readonly profile: Profile;
  readonly embedded: EmbeddedPostgres;
  /** Ids of the resources that now use the embedded server. */
  readonly resourceIds: readonly string[];
  /** The seed file that was run, if any. */
  readonly seeded?: string;
  /** How long the embedded server took to start, in ms. */
  readonly startMs: number;
  /** The profile's `embeddedPostgres.try` requests as curl lines against `baseUrl`. */
  tryLines(baseUrl: string): string[];
}

/** The flag's folder, else the environment's, else `.data/pglite`; resolved against the cwd. */
export function resolveEmbeddedDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag || env[DATA_DIR_ENV] || DEFAULT_DATA_DIR;
  return resolve(chosen);
}

/** True when the folder holds no database yet, so starting it will run initdb. */
export function isFirstStart(dataDir: string): boolean {
  return !existsSync(resolve(dataDir, DATA_DIR_MARKER));
}

function sectionError(problem: string): SqlResourceError {
  return new SqlResourceError('CONFIG_INVALID', `profile: ${PROFILE_SECTION}.${problem}`);
}

const sectionKeys: readonly string[] = PROFILE_SECTION_KEYS;

/** Reads and checks the optional `embeddedPostgres` section. */
export function readEmbeddedSection(profile: Profile, profileDir: string): EmbeddedSection {
  const raw = profile[PROFILE_SECTION];
  if (raw === undefined || raw === null) return { try: [] };
  if (!isPlainObject(raw)) {
    throw new SqlResourceError('CONFIG_INVALID', `profile: ${PROFILE_SECTION} must be a mapping (keys: ${sectionKeys.join(', ')})`);
  }
  const unknown = Object.keys(raw).filter((key) => !sectionKeys.includes(key));
  if (unknown.length > 0) throw sectionError(`${unknown.join(', ')}: unknown key (valid: ${sectionKeys.join(', ')})`);
  if (raw.seed !== undefined && (typeof raw.seed !== 'string' || raw.seed === '')) throw sectionError('seed must be a file path');
  const tries = raw.try ?? [];
  if (!Array.isArray(tries)) throw sectionError('try must be a list of { method, path, body }');
  return {
    seed: typeof raw.seed === 'string' ? resolve(profileDir, raw.seed) : undefined,
    try: tries.map((entry: unknown, index) => {
      if (!isPlainObject(entry)) throw sectionError(`try[${index}] must be a mapping { method, path, body }`);
      const { method = 'GET', path, body } = entry;
      if (typeof path !== 'string' || !path.startsWith('/')) throw sectionError(`try[${index}].path must be a string starting with /`);
      if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)) throw sectionError(`try[${index}].method must be an HTTP method`);
      return { method: method.toUpperCase(), path, ...(body === undefined ? {} : { body }) };
    }),
  };
}

/** Socket limit for the embedded server: twice the pool sizes of the resources it serves. */
export function embeddedMaxConnections(profile: Profile, resourceIds: readonly string[]): number {
  const pools = resourceIds.reduce((sum, id) => {
    const server = (profile.resources?.[id] as { server?: Record<string, unknown> }).server ?? {};
    const max = integerOf(server.max);
    return sum + (max !== undefined && max > 0 ? max : DEFAULT_POOL_SIZE);
  }, 0);
  return Math.max(DEFAULT_MAX_CONNECTIONS, 2 * pools);
}

/** Ids of the profile's PostgreSQL resources: `_class` postgres, postgresql, or a registered subclass. */
export function postgresResourceIds(profile: Profile): string[] {
  const resources = profile.resources;
  if (!isPlainObject(resources)) return [];
  return Object.entries(resources)
    .filter(([, config]) => isPlainObject(config) && isPostgresClass(config._class))
    .map(([id]) => id);
}

export interface EmbeddedTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/**
 * A copy of the profile whose postgres resources use `target`, with prepared statements off.
 * A relative `server.lib` is made absolute, since the copy is no longer read from its file.
 */
export function pointProfileAt(profile: Profile, profileDir: string, target: EmbeddedTarget): Profile {
  // Copies only what changes: the rest stays shared with the loaded profile, which is not modified.
  const resources: Record<string, unknown> = { ...profile.resources };
  for (const id of postgresResourceIds(profile)) {
    const config = resources[id] as Record<string, unknown>;
    const server = isPlainObject(config.server) ? config.server : {};
    resources[id] = {
      ...config,
      server: {
        ...server,
        host: target.host,
        port: target.port,
        user: target.user,
        password: target.password,
        database: target.database,
        preparedStatements: false,
      },
    };
  }
  const lib = profile.server?.lib;
  const server = profile.server && typeof lib === 'string' && !isAbsolute(lib) ? { ...profile.server, lib: resolve(profileDir, lib) } : profile.server;
  return { ...profile, resources, ...(server === undefined ? {} : { server }) };
}

/** Quotes one word for a POSIX shell. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One request as a curl command line that prints the response envelope. */
export function curlLine(request: TryRequest, baseUrl: string): string {
  const words = ['curl', '-s'];
  if (request.method !== 'GET' || request.body !== undefined) words.push('-X', request.method);
  if (request.body !== undefined) words.push('-H', shellQuote('Content-Type: application/json'), '-d', shellQuote(JSON.stringify(request.body)));
  words.push(shellQuote(baseUrl.replace(/\/$/, '') + request.path));
  return words.join(' ');
}

/** The base URL a user on this machine can reach for a listening address. */
export function reachableBaseUrl(address: { host: string; port: number }): string {
  const host = address.host === '0.0.0.0' || address.host === '::' ? '127.0.0.1' : address.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Runs a seed file through the `pg` driver (simple protocol, so several statements are fine). */
async function runSeed(target: EmbeddedTarget, file: string): Promise<void> {
  let sql: string;
  try {
    sql = await readFile(file, 'utf8');
  } catch (error) {
    throw new SqlResourceError('CONFIG_INVALID', `${PROFILE_SECTION}.seed: cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  const client = new Client({ ...target });
  try {
    await client.connect();
    await client.query(sql);
  } catch (error) {
    // "embeddedPostgres.seed <file> failed: <reason>", coded by SQLSTATE like any driver error.
    throw fromDriverError(`${PROFILE_SECTION}.seed ${relative(process.cwd(), file) || file}`, error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Loads the profile, starts the embedded PostgreSQL, points the profile's postgres resources
 * at it and runs the seed. On failure the embedded server is stopped before the error is thrown.
 */
export async function startEmbeddedMode(profilePath: string, options: EmbeddedModeOptions): Promise<EmbeddedMode> {
  const profile = loadProfile(profilePath);
  const profileDir = dirname(resolve(profilePath));
  const section = readEmbeddedSection(profile, profileDir);
  const resourceIds = postgresResourceIds(profile);
  if (resourceIds.length === 0) {
    throw new SqlResourceError('CONFIG_INVALID', `--embedded-postgres: ${profilePath} declares no postgres resource (_class postgres or postgresql)`);
  }

  const startedAt = Date.now();
  const embedded = await startEmbeddedPostgres({
    dataDir: options.dataDir,
    maxConnections: embeddedMaxConnections(profile, resourceIds),
  });
  const startMs = Date.now() - startedAt;
  try {
    const target: EmbeddedTarget = {
      host: embedded.host,
      port: embedded.port,
      user: embedded.user,
      password: embedded.password,
      database: embedded.database,
    };
    if (section.seed) await runSeed(target, section.seed);
    return {
      profile: pointProfileAt(profile, profileDir, target),
      embedded,
      resourceIds,
      seeded: section.seed,
      startMs,
      tryLines: (baseUrl) => section.try.map((request) => curlLine(request, baseUrl)),
    };
  } catch (error) {
    await embedded.stop();
    throw error;
  }
}
