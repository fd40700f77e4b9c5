import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as yaml from 'yaml';
import type { Kind } from '../support/servers';
import type { CodeBlock, Page } from './markdown-samples';

/**
 * A folder per page and kind holding what the page tells readers to save: its `file:` blocks
 * (server.lib code) and each yaml sample as `<sample name>.yml`, so relative `server.lib` paths
 * and `sql-resources check <name>.yml` work as documented.
 */
export interface Workspace {
  dir: string;
  /** Path of the yaml sample `name`, as written for this kind. */
  profilePath(name: string): string;
  remove(): void;
}

/** A kind-neutral yaml sample (its marker names no kind) is written with `_class` set to `kind`. */
export function profileText(block: CodeBlock, kind: Kind): string {
  const marker = block.marker;
  if (marker?.type !== 'sample' || marker.kinds) return block.code;
  const profile = yaml.parse(block.code) as { resources?: Record<string, { _class?: string }> };
  for (const config of Object.values(profile.resources ?? {})) {
    if (['mysql', 'mariadb', 'postgres', 'postgresql'].includes(String(config._class))) config._class = kind;
  }
  return yaml.stringify(profile);
}

export function createWorkspace(page: Page, kind: Kind): Workspace {
  const dir = mkdtempSync(join(tmpdir(), `sr-docs-${page.name.replace(/\W/g, '-')}-${kind}-`));
  for (const block of page.blocks) {
    const marker = block.marker;
    if (marker?.type === 'file') writeFileSync(join(dir, marker.name), block.code + '\n');
    if (marker?.type === 'sample' && block.lang === 'yaml') writeFileSync(join(dir, `${marker.name}.yml`), profileText(block, kind) + '\n');
  }
  return {
    dir,
    profilePath: (name) => join(dir, `${name}.yml`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
