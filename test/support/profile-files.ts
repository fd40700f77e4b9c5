import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ProfileFiles {
  /** Writes `text` to a new profile file and answers its path. */
  write(text: string): string;
  /** The path of `name` inside the folder (a file that may not exist). */
  path(name: string): string;
}

/** A temporary folder of profile files for one test file: made before its tests, removed after. */
export function profileFiles(prefix: string): ProfileFiles {
  let dir = '';
  let count = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    write(text) {
      const path = join(dir, `profile-${++count}.yml`);
      writeFileSync(path, text);
      return path;
    },
    path: (name) => join(dir, name),
  };
}
