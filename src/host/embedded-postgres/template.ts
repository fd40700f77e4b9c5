/**
 * A freshly initialised PGlite data folder, saved as a tar file, so that the FIRST start of
 * the embedded PostgreSQL (start-server.ts) copies it (~1 s) instead of running initdb
 * (5-8 s and most of a CPU). DEVELOPMENT CONVENIENCE ONLY, like the embedded server.
 *
 * `npm install` builds it once (package.json `prepare` runs this file), next to the installed
 * PGlite in node_modules/.cache/sql-resources/, named after PGlite's version so an upgrade
 * never loads a folder made by another Postgres build. It holds nothing but what initdb
 * creates. Without it, the first start runs initdb as before.
 *
 *   node dist/host/embedded-postgres/template.js [--force] [file]
 *
 * Making it is best effort: a failure is reported and the process still exits 0, so it can
 * never break `npm install`. Finding the file loads no PGlite code; only making it does.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, parse } from 'node:path';
import { parseArgs } from 'node:util';
import { SqlResourceError } from '../../errors';
import { PGLITE_PACKAGE, TEMPLATE_CACHE_DIR, TEMPLATE_FILE } from './constants';

/** The installed PGlite's folder (its package.json is not exported, so walk up from its entry). */
function pgliteDir(): string {
  let dir = dirname(require.resolve(PGLITE_PACKAGE));
  while (dir !== parse(dir).root) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PGLITE_PACKAGE) return dir;
    dir = dirname(dir);
  }
  throw new SqlResourceError('INTERNAL_ERROR', `embedded PostgreSQL: cannot find the folder of the ${PGLITE_PACKAGE} package`);
}

export function pgliteVersion(): string {
  return (JSON.parse(readFileSync(join(pgliteDir(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** node_modules/.cache/sql-resources/pglite-<version>-datadir.tar, beside the installed PGlite. */
export function defaultTemplatePath(): string {
  const nodeModules = dirname(dirname(pgliteDir()));
  return join(nodeModules, ...TEMPLATE_CACHE_DIR, TEMPLATE_FILE(pgliteVersion()));
}

/**
 * Runs initdb in memory and writes the resulting data folder to `file` (uncompressed: about
 * 40 MB, but it loads twice as fast as the 4.5 MB gzip). Written to a temporary name and
 * renamed, so a reader never sees half a file.
 */
export async function buildTemplate(file: string): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create();
  try {
    const dump = await db.dumpDataDir('none');
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    try {
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
    } finally {
      rmSync(partial, { force: true });
    }
  } finally {
    await db.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { force: { type: 'boolean' } } });
  const file = positionals[0] ?? defaultTemplatePath();
  if (existsSync(file) && !values.force) {
    process.stdout.write(`embedded PostgreSQL template: ${file} already there\n`);
    return;
  }
  const startedAt = Date.now();
  try {
    await buildTemplate(file);
    process.stdout.write(`embedded PostgreSQL template: made ${file} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(
      `embedded PostgreSQL template: not made (${(error as Error).message}); its first start will run initdb instead\n`,
    );
  }
}

if (require.main === module) {
  main(process.argv.slice(2))
    .catch((error: Error) => process.stderr.write(`embedded PostgreSQL template: ${error.message}\n`))
    .finally(() => process.exit(0));
}
