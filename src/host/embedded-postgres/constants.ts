/**
 * Every fixed name and number of the embedded PostgreSQL (DEVELOPMENT CONVENIENCE ONLY),
 * in one place. Imports nothing, so reading a constant loads no PGlite code.
 */

/** The npm package of PGlite (PostgreSQL compiled to WebAssembly). */
export const PGLITE_PACKAGE = '@electric-sql/pglite';

/** PGlite's fixed identity; it trusts any password. */
export const PGLITE_DATABASE = 'postgres';
export const PGLITE_USER = 'postgres';
export const PGLITE_PASSWORD = 'postgres';

/** Listen address of the embedded server unless told otherwise: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';
/** TCP port 0 lets the OS pick a free one. */
export const DEFAULT_PORT = 0;
export const PORT_RANGE = { min: 0, max: 65_535 } as const;

/**
 * Socket limit of the server, and never fewer than this in `--embedded-postgres` mode:
 * a pg pool needs one socket per client, replaced clients linger briefly, and a psql session may join.
 */
export const DEFAULT_MAX_CONNECTIONS = 32;
export const MAX_CONNECTIONS_RANGE = { min: 1, max: 10_000 } as const;
/** pg's default pool size, used when a resource does not set `server.max`. */
export const DEFAULT_POOL_SIZE = 10;

/** How long the parent waits for the child to report it is ready. */
export const DEFAULT_START_TIMEOUT_MS = 60_000;
/** How long stop() waits for a graceful exit before SIGKILL. */
export const DEFAULT_STOP_TIMEOUT_MS = 15_000;
/** The child's own hard limit on a graceful shutdown, so a wedged PGlite cannot keep it alive. */
export const SHUTDOWN_DEADLINE_MS = 10_000;
/** How much of the child's output to quote when it fails to start. */
export const OUTPUT_TAIL_CHARS = 2_000;

/** Base name (no extension) of the child-process entry, a sibling of start-server.ts. */
export const SERVER_PROCESS_FILE = 'server-process';
/** The file whose presence in a data folder means it already holds a database. */
export const DATA_DIR_MARKER = 'PG_VERSION';

/** Data folder used when neither the flag nor the environment names one; relative to the cwd. */
export const DEFAULT_DATA_DIR = '.data/pglite';
/** Environment variable naming the data folder (the `--embedded-postgres-dir` flag wins). */
export const DATA_DIR_ENV = 'SQL_RESOURCES_EMBEDDED_PG_DIR';

/** The optional top-level profile section read in `--embedded-postgres` mode, and its keys. */
export const PROFILE_SECTION = 'embeddedPostgres';
export const PROFILE_SECTION_KEYS = ['seed', 'try'] as const;

/** Where `npm install` saves the initialised data folder: node_modules/<this>/, named by TEMPLATE_FILE. */
export const TEMPLATE_CACHE_DIR = ['.cache', 'sql-resources'] as const;
export const TEMPLATE_FILE = (pgliteVersion: string): string => `pglite-${pgliteVersion}-datadir.tar`;

/** debug namespaces (DEBUG=sql-resources:embedded-postgres*). */
export const DEBUG_NAMESPACE = 'sql-resources:embedded-postgres';
