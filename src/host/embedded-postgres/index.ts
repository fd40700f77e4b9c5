/**
 * The embedded PostgreSQL (PGlite): DEVELOPMENT CONVENIENCE ONLY, not for production.
 * What `sql-resources serve|check --embedded-postgres` uses; the CLI imports this folder only
 * when that flag is given, so a normal `serve` loads none of it.
 *
 *   mode.ts            the --embedded-postgres mode: points a profile's PostgreSQL resources at it
 *   start-server.ts    startEmbeddedPostgres(): forks server-process.ts, waits until it is ready
 *   server-process.ts  the child process: PGlite served over the wire protocol by pglite-socket
 *   ipc.ts             the child's arguments and the messages between parent and child
 *   template.ts        the initialised data folder `npm install` saves (package.json `prepare`)
 *   constants.ts       every fixed name and number above
 */
export {
  curlLine,
  embeddedMaxConnections,
  isFirstStart,
  pointProfileAt,
  postgresResourceIds,
  reachableBaseUrl,
  readEmbeddedSection,
  resolveEmbeddedDataDir,
  startEmbeddedMode,
} from './mode';
export type { EmbeddedMode, EmbeddedModeOptions, EmbeddedSection, EmbeddedTarget, TryRequest } from './mode';
export { startEmbeddedPostgres } from './start-server';
export type { EmbeddedPostgres, EmbeddedPostgresOptions } from './start-server';
export type { Initialization } from './ipc';
export { defaultTemplatePath } from './template';
