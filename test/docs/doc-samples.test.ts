import assert from 'node:assert';
import strictAssert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import * as fastJwt from 'fast-jwt';
import * as yaml from 'yaml';
import * as sqlResources from '../../src';
import { rawQuery, type Kind } from '../support/servers';
import {
  cliArguments,
  cliMismatch,
  curlMismatch,
  curlRequest,
  documentedStatus,
  parseSession,
  replayCurl,
  runAssignment,
  runCliIn,
  runShell,
  sessionEnv,
  shellWords,
  stepKind,
  type SessionStep,
  type SessionVariables,
} from './console-session';
import {
  allKinds,
  checkedLanguages,
  docsDir,
  expectedOutput,
  kindsOf,
  normalize,
  readPages,
  readReadme,
  rootDir,
  runnableLanguages,
  type CodeBlock,
  type Page,
} from './markdown-samples';
import { transpile, typeCheck, wrapSample, type CompiledSample } from './sample-compiler';
import { createSampleDatabase, dropSampleDatabase, resetSampleDatabase, type SampleDatabase } from './sample-databases';
import { createWorkspace, profileText, type Workspace } from './sample-workspace';

/** What a sample may import; `sql-resources` is the source tree under test. */
const sampleModules: Record<string, unknown> = {
  'sql-resources': sqlResources,
  'node:assert': assert,
  'node:assert/strict': strictAssert,
  'node:crypto': crypto,
  'fast-jwt': fastJwt,
  yaml,
};

function sampleRequire(id: string): unknown {
  if (!(id in sampleModules)) throw new Error(`docs samples may import ${Object.keys(sampleModules).join(', ')}; not '${id}'`);
  return sampleModules[id];
}

const pages = readPages();
const pageByName = new Map(pages.map((page) => [page.name, page]));
const where = (block: CodeBlock): string => `${block.page}:${block.line}`;

const isSample = (block: CodeBlock, lang: string): boolean => block.marker?.type === 'sample' && block.lang === lang;
const sampleName = (block: CodeBlock): string => (block.marker?.type === 'sample' ? block.marker.name : '');

/** The page's own fixture blocks for `kind`, else those of `<kind>.md`. */
function fixtures(page: Page, kind: Kind): { profile: CodeBlock; sql: CodeBlock } {
  const own = (of: Page): { profile?: CodeBlock; sql?: CodeBlock } => ({
    profile: of.blocks.find((block) => block.marker?.type === 'sample' && block.marker.fixture && kindsOf(of, block).includes(kind)),
    sql: of.blocks.find((block) => block.marker?.type === 'fixture-sql' && block.marker.kind === kind),
  });
  const fallback = own(pageByName.get(`${kind}.md`) as Page);
  const mine = own(page);
  const profile = mine.profile ?? fallback.profile;
  const sql = mine.sql ?? fallback.sql;
  if (!profile || !sql) throw new Error(`${page.name}: no fixture profile or fixture SQL for ${kind}`);
  return { profile, sql };
}

interface Run {
  title: string;
  kind: Kind;
  page: Page;
  block: CodeBlock;
  sample?: CompiledSample;
}

function runsOf(page: Page, lang: string, once: boolean): Run[] {
  return page.blocks.flatMap((block) => {
    if (!isSample(block, lang)) return [];
    const kinds = kindsOf(page, block).slice(0, once ? 1 : undefined);
    const sample = lang === 'ts' ? wrapSample(block, sampleName(block)) : undefined;
    return kinds.map((kind) => ({ title: `${page.name} › ${sampleName(block)} (${kind})`, kind, page, block, sample }));
  });
}

const tsRuns = pages.flatMap((page) => runsOf(page, 'ts', false));
const yamlRuns = pages.flatMap((page) => runsOf(page, 'yaml', true));
const sessionRuns = pages.flatMap((page) => runsOf(page, 'console', false));

/**
 * README.md carries no markers: its blocks are run by language. The tour's yaml is built with
 * the README's `exports.…` js block saved as its handlers.js; the ts block and the console
 * session run against examples/people.yml on both servers, with examples/people.*.sql loaded.
 */
const readme = readReadme();
const readmeBlocks = (lang: string): CodeBlock[] => readme.blocks.filter((block) => block.lang === lang);
const readmeTs = readmeBlocks('ts').map((block, index) => wrapSample(block, `readme-${index + 1}`));
const examplesProfile = join(rootDir, 'examples', 'people.yml');

describe('docs code blocks', () => {
  it.each(pages.map((page) => [page.name, page] as const))('%s marks every ts, js, yaml, json and shell block', (_name, page) => {
    const unmarked = page.blocks.filter((block) => checkedLanguages.has(block.lang) && !block.marker).map(where);
    expect(unmarked).toEqual([]);
    const runnable = page.blocks.filter((block) => block.marker?.type === 'sample' && !runnableLanguages.has(block.lang)).map(where);
    expect(runnable).toEqual([]);
  });

  it.each(pages.map((page) => [page.name, page] as const))('%s names its samples and files uniquely', (_name, page) => {
    const names = page.blocks.flatMap((block) => (block.marker?.type === 'sample' || block.marker?.type === 'file' ? [block.marker.name] : []));
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it.each(pages.map((page) => [page.name, page] as const))('%s has at most one fixture profile and one fixture table set per kind', (_name, page) => {
    for (const kind of allKinds) {
      const profiles = page.blocks.filter((block) => block.marker?.type === 'sample' && block.marker.fixture && kindsOf(page, block).includes(kind));
      const sql = page.blocks.filter((block) => block.marker?.type === 'fixture-sql' && block.marker.kind === kind);
      expect({ kind, profiles: profiles.map(where), sql: sql.map(where) }).toEqual({
        kind,
        profiles: profiles.slice(0, 1).map(where),
        sql: sql.slice(0, 1).map(where),
      });
    }
  });

  it.each(['mysql', 'postgres'] as const)('%s.md documents the default fixture profile and tables for its kind', (kind) => {
    const page = pageByName.get(`${kind}.md`) as Page;
    expect(fixtures(page, kind).profile.page).toBe(`${kind}.md`);
    expect(fixtures(page, kind).sql.page).toBe(`${kind}.md`);
  });

  it('errors.md lists exactly the codes of the error catalogue, each with its HTTP status', () => {
    const page = readFileSync(join(docsDir, 'errors.md'), 'utf8');
    const documented = [...page.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => [code, Number(status)]);
    const catalogue = Object.entries(sqlResources.errorCatalogue).map(([code, entry]) => [code, entry.statusCode]);
    expect(documented).toEqual(catalogue);
  });

  it('endpoints.md documents every endpoint kind with its default method', () => {
    const page = readFileSync(join(docsDir, 'endpoints.md'), 'utf8');
    const documented = [...page.matchAll(/^\| `(\w+)` \| `([A-Z]+)` \|/gm)].map(([, kind, method]) => [kind, method]);
    expect(documented).toEqual(Object.entries(sqlResources.endpointKinds));
  });
});

describe('docs samples against the real servers', () => {
  const databases = new Map<Kind, SampleDatabase>();
  const workspaces = new Map<string, Workspace>();
  const savedEnv = new Map<string, string | undefined>();
  let problems = new Map<CompiledSample, string[]>();

  function setEnv(values: Record<string, string>): void {
    for (const [key, value] of Object.entries(values)) {
      if (!savedEnv.has(key)) savedEnv.set(key, process.env[key]);
      process.env[key] = value;
    }
  }

  const useEnv = (kind: Kind): void => setEnv(databases.get(kind)?.env ?? {});

  function workspace(page: Page, kind: Kind): Workspace {
    const key = `${page.name}:${kind}`;
    let found = workspaces.get(key);
    if (!found) {
      found = createWorkspace(page, kind);
      workspaces.set(key, found);
    }
    return found;
  }

  /** Environment variables set for the page now running (`sample-env`); another page's are undone. */
  let pageEnvNames = new Set<string>();
  function usePageEnv(page: Page): void {
    for (const name of pageEnvNames) {
      if (page.env[name] !== undefined) continue;
      const saved = savedEnv.get(name);
      if (saved === undefined) delete process.env[name];
      else process.env[name] = saved;
    }
    setEnv(page.env);
    pageEnvNames = new Set([...pageEnvNames, ...Object.keys(page.env)]);
  }

  /**
   * The page's fixture app for `kind` (or the app of its yaml sample `profileName`), on fresh
   * tables, started (listening on a free port when it has endpoints).
   */
  async function startFixtureApp(page: Page, kind: Kind, profileName?: string): Promise<sqlResources.App> {
    const { profile, sql } = fixtures(page, kind);
    useEnv(kind);
    usePageEnv(page);
    await resetSampleDatabase(databases.get(kind) as SampleDatabase, sql.code);
    if (profileName !== undefined) {
      const named = page.blocks.find((block) => isSample(block, 'yaml') && sampleName(block) === profileName);
      if (!named) throw new Error(`${page.name}: no yaml sample '${profileName}' to run against`);
    }
    const home = profileName !== undefined || profile.page === page.name ? page : (pageByName.get(profile.page) as Page);
    const app = sqlResources.createApp(workspace(home, kind).profilePath(profileName ?? sampleName(profile)));
    await app.start({ port: 0 });
    return app;
  }

  async function runTs(sample: CompiledSample, app: sqlResources.App): Promise<void> {
    expect(problems.get(sample)).toEqual([]);
    const printed: string[] = [];
    const complaints: string[] = [];
    const sampleConsole = {
      log: (...args: unknown[]) => printed.push(format(...args)),
      info: (...args: unknown[]) => printed.push(format(...args)),
      warn: (...args: unknown[]) => complaints.push(format(...args)),
      error: (...args: unknown[]) => complaints.push(format(...args)),
    };
    const expected = expectedOutput(sample.block.code);
    const module = { exports: {} as { default?: () => Promise<void> } };
    const factory = new Function('require', 'module', 'exports', '$app', 'console', transpile(sample));
    factory(sampleRequire, module, module.exports, app, sampleConsole);
    await module.exports.default?.();
    // Callback samples print after their statements have returned.
    const deadline = Date.now() + 5000;
    while (printed.length < expected.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(complaints).toEqual([]);
    // A sample documents all it prints (`// → …`), or prints nothing.
    expect(printed.map(normalize)).toEqual(expected);
  }

  /**
   * Replays a console session: curl against `app`, the CLI and other shell commands in `cwd`.
   * A variable the session exports that the page's `sample-env` sets too must have its value
   * there: the app was started with that one.
   */
  async function replay(steps: SessionStep[], block: CodeBlock, app: sqlResources.App | undefined, cwd: string, pageEnv: Record<string, string> = {}): Promise<void> {
    const variables: SessionVariables = new Map();
    for (const step of steps) {
      const at = `${block.page}:${step.line}`;
      const kind = stepKind(step);
      if (kind.type === 'assignment') {
        const { value, mismatch } = await runAssignment(step, kind.name, cwd, sessionEnv(variables));
        expect({ at, mismatch }).toEqual({ at, mismatch: undefined });
        if (pageEnv[kind.name] !== undefined) expect({ at, [kind.name]: value }).toEqual({ at, [kind.name]: pageEnv[kind.name] });
        variables.set(kind.name, value as string);
        continue;
      }
      if (kind.type === 'shell') {
        const run = await runShell(step.command, cwd, sessionEnv(variables));
        expect({ at, mismatch: cliMismatch(step, run) }).toEqual({ at, mismatch: undefined });
        continue;
      }
      const words = shellWords(step.command, at, variables);
      const cli = cliArguments(words);
      if (cli) {
        const run = await runCliIn(cli, cwd, sessionEnv(variables));
        expect({ at, mismatch: cliMismatch(step, run) }).toEqual({ at, mismatch: undefined });
        continue;
      }
      const address = app?.address();
      if (!address) throw new Error(`${at}: a curl step needs a fixture profile with endpoints`);
      const request = curlRequest(words, at);
      const { printed, status } = await replayCurl(request, `http://127.0.0.1:${address.port}`);
      expect({ at, status: documentedStatus(step) ?? status, mismatch: curlMismatch(step, printed, request.include) }).toEqual({ at, status, mismatch: undefined });
    }
  }

  beforeAll(async () => {
    problems = typeCheck([...tsRuns.flatMap((run) => (run.sample ? [run.sample] : [])), ...readmeTs]);
    for (const kind of allKinds) databases.set(kind, await createSampleDatabase(kind));
  }, 120_000);

  afterAll(async () => {
    for (const [key, value] of savedEnv) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    for (const found of workspaces.values()) found.remove();
    await Promise.all([...databases.values()].map(dropSampleDatabase));
  });

  it.each(yamlRuns.map((run) => [run.title, run] as const))('%s parses and builds an app', (_title, run) => {
    useEnv(run.kind);
    usePageEnv(run.page);
    const path = workspace(run.page, run.kind).profilePath(sampleName(run.block));
    // The app runs the profile as the page shows it (with this kind's _class).
    expect(sqlResources.createApp(path).profile).toEqual(yaml.parse(profileText(run.block, run.kind)));
  });

  /** The yaml sample a ts or console sample names to run against (`profile=…`), if any. */
  const profileOf = (block: CodeBlock): string | undefined => (block.marker?.type === 'sample' ? block.marker.profile : undefined);

  it.each(tsRuns.map((run) => [run.title, run] as const))('%s', async (_title, run) => {
    const app = await startFixtureApp(run.page, run.kind, profileOf(run.block));
    try {
      await runTs(run.sample as CompiledSample, app);
    } finally {
      await app.stop();
    }
  });

  it.each(sessionRuns.map((run) => [run.title, run] as const))('%s replays as documented', async (_title, run) => {
    const steps = parseSession(run.block);
    expect(steps.length).toBeGreaterThan(0);
    const app = await startFixtureApp(run.page, run.kind, profileOf(run.block));
    try {
      await replay(steps, run.block, app, workspace(run.page, run.kind).dir, run.page.env);
    } finally {
      await app.stop();
    }
  }, 120_000);

  describe('README.md', () => {
    /** examples/people.yml reads MYSQL_* and PG*: point them at the sample databases, with the example tables. */
    async function useExampleDatabases(): Promise<void> {
      const mysql = (databases.get('mysql') as SampleDatabase).env;
      const postgres = (databases.get('postgres') as SampleDatabase).env;
      setEnv({ MYSQL_HOST: mysql.DB_HOST, MYSQL_PORT: mysql.DB_PORT, MYSQL_USER: mysql.DB_USER, MYSQL_PASSWORD: mysql.DB_PASSWORD, MYSQL_DATABASE: mysql.DB_NAME });
      setEnv({ PGHOST: postgres.DB_HOST, PGPORT: postgres.DB_PORT, PGUSER: postgres.DB_USER, PGPASSWORD: postgres.DB_PASSWORD, PGDATABASE: postgres.DB_NAME });
      for (const kind of allKinds) {
        await resetSampleDatabase(databases.get(kind) as SampleDatabase, readFileSync(join(rootDir, 'examples', `people.${kind}.sql`), 'utf8'));
      }
    }

    it('the tour profile builds, and its server.lib handler answers through $app', async () => {
      const [profile] = readmeBlocks('yaml');
      const handlers = readmeBlocks('js').filter((block) => /^exports\./m.test(block.code));
      expect(yaml.parse(profile.code)).toMatchObject({ server: { lib: './handlers.js', endpoints: expect.arrayContaining([{ path: '/stats', method: 'GET', handler: 'peopleStats' }]) } });
      expect(handlers).toHaveLength(1);
      const dir = mkdtempSync(join(tmpdir(), 'sr-docs-readme-'));
      try {
        writeFileSync(join(dir, 'handlers.js'), handlers[0].code);
        writeFileSync(join(dir, 'tour.yml'), profile.code);
        // The tour's resource names its database literally (test): give it the example table there.
        for (const sql of readFileSync(join(rootDir, 'examples', 'people.postgres.sql'), 'utf8').split(';').map((text) => text.trim()).filter(Boolean)) {
          await rawQuery('postgres', sql);
        }
        const app = sqlResources.createApp(join(dir, 'tour.yml'));
        await app.start({ port: 0 });
        try {
          const [{ people }] = await rawQuery('postgres', 'SELECT COUNT(*)::int AS people FROM example_people');
          const response = await fetch(`http://127.0.0.1:${app.address()?.port}/stats`);
          expect(response.status).toBe(200);
          expect(await response.json()).toEqual({ code: 'ok', message: 'people', data: { people } });
        } finally {
          await app.stop();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it.each(readmeTs.map((sample) => [where(sample.block), sample] as const))('ts sample at %s runs against examples/people.yml', async (_at, sample) => {
      await useExampleDatabases();
      const app = sqlResources.createApp(examplesProfile);
      await runTs(sample, app);
    });

    it.each(readmeBlocks('console').map((block) => [where(block), block] as const))('curl session at %s replays against examples/people.yml', async (_at, block) => {
      await useExampleDatabases();
      const app = sqlResources.createApp(examplesProfile);
      await app.start({ port: 0 });
      try {
        await replay(parseSession(block), block, app, rootDir);
      } finally {
        await app.stop();
      }
    });
  });
});
