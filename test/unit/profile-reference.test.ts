import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import * as yaml from 'yaml';
import { profileSchema, type JsonSchema } from '../../src';

/**
 * docs/profile.md and the published schema kept in step with profileSchema(): each reference
 * table lists exactly the keys of its section, every section of the schema has a table, the
 * committed schema/profile.schema.json is what `sql-resources schema` prints, and the example
 * profiles pass it in an editor's validator (Ajv, as the YAML language server would).
 */

const root = join(__dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'profile.md'), 'utf8');
const schema = profileSchema();
const definitions = schema.definitions as Record<string, JsonSchema>;

/** A schema node with its `$ref` (to `#/definitions/…`) followed. */
function resolve(node: unknown): JsonSchema {
  const schemaNode = node as JsonSchema;
  if (typeof schemaNode.$ref !== 'string') return schemaNode;
  const found = definitions[schemaNode.$ref.replace('#/definitions/', '')];
  if (found === undefined) throw new Error(`unresolved $ref ${schemaNode.$ref}`);
  return resolve(found);
}

const child = (node: JsonSchema, key: string): JsonSchema => resolve((node.properties as Record<string, unknown>)[key]);
const items = (node: JsonSchema): JsonSchema => resolve(node.items);

const server = child(schema, 'server');
const embedded = child(schema, 'embeddedPostgres');

/** Each reference heading of docs/profile.md, with the schema object its table documents. */
const sections: [heading: string, node: JsonSchema][] = [
  ['Top level', schema],
  ['`server`', server],
  ['`server.json`', child(server, 'json')],
  ['`server.cors`', child(server, 'cors')],
  ['`server.hsts`', child(server, 'hsts')],
  ['`server.rateLimit`', child(server, 'rateLimit')],
  ['`server.auth`', child(server, 'auth')],
  ['`server.auth.jwt`', child(child(server, 'auth'), 'jwt')],
  ['`server.auth.apiKeys` (mapping)', child(child(server, 'auth'), 'apiKeys')],
  ['`server.auth.apiKeys[]`', items(child(child(server, 'auth'), 'apiKeys'))],
  ['`server.endpoints[]`', items(child(server, 'endpoints'))],
  ['`server.endpoints[].page`', child(items(child(server, 'endpoints')), 'page')],
  ['`server.endpoints[].params.<name>`', resolve(child(items(child(server, 'endpoints')), 'params').additionalProperties)],
  ['`resources.<id>` (mysql)', definitions['resource.mysql']],
  ['`resources.<id>.server` (mysql)', child(definitions['resource.mysql'], 'server')],
  ['`resources.<id>` (postgres)', definitions['resource.postgres']],
  ['`resources.<id>.server` (postgres)', child(definitions['resource.postgres'], 'server')],
  ['`embeddedPostgres`', embedded],
  ['`embeddedPostgres.try[]`', items(child(embedded, 'try'))],
];

/** The keys a section accepts by name: its properties, and `x-*` for a `^x-` pattern. */
function schemaKeys(node: JsonSchema): string[] {
  const named = Object.keys((node.properties ?? {}) as object);
  const patterns = Object.keys((node.patternProperties ?? {}) as object).map((pattern) => `${pattern.replace(/^\^/, '')}*`);
  return [...named, ...patterns].sort();
}

/** The backticked names of the first column of the first table under `### <heading>`. */
function documentedKeys(heading: string): string[] {
  const lines = page.split('\n');
  const start = lines.indexOf(`### ${heading}`);
  if (start < 0) throw new Error(`docs/profile.md has no heading '### ${heading}'`);
  let index = start + 1;
  while (index < lines.length && !lines[index].startsWith('|')) {
    if (lines[index].startsWith('#')) throw new Error(`no table under '### ${heading}'`);
    index += 1;
  }
  const rows: string[] = [];
  for (index += 2; index < lines.length && lines[index].startsWith('|'); index += 1) rows.push(lines[index]);
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([^`]+)`/g)].map((match) => match[1])).sort();
}

/** Every object of the schema that names keys (has `properties`), reached from the top. */
function sectionsOf(start: JsonSchema): Set<JsonSchema> {
  const found = new Set<JsonSchema>();
  const visited = new Set<JsonSchema>();
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const resolved = resolve(node);
    if (visited.has(resolved)) return;
    visited.add(resolved);
    const properties = resolved.properties as Record<string, unknown> | undefined;
    if (properties !== undefined) found.add(resolved);
    Object.values(properties ?? {}).forEach(walk);
    Object.values((resolved.patternProperties ?? {}) as object).forEach(walk);
    walk(resolved.items);
    walk(resolved.additionalProperties);
    // A class's schema is reached through the `then` of its `_class`; the `if` only tests `_class`.
    for (const branch of (resolved.allOf ?? []) as JsonSchema[]) walk(branch.then);
  };
  walk(start);
  return found;
}

describe('docs/profile.md reference tables', () => {
  it.each(sections.map(([heading, node]) => [heading, node] as const))('%s lists exactly the keys of the schema', (heading, node) => {
    expect(node).toBeDefined();
    expect(documentedKeys(heading)).toEqual(schemaKeys(node));
  });

  it('has a table for every section of the schema', () => {
    const documented = new Set(sections.map(([, node]) => node));
    // `resource` only dispatches on `_class` to the class's schema, whose table lists `_class`.
    const undocumented = [...sectionsOf(schema)].filter((node) => node !== definitions.resource && !documented.has(node));
    expect(undocumented.map((node) => Object.keys(node.properties as object).join(', '))).toEqual([]);
  });
});

describe('the published schema', () => {
  const committedText = readFileSync(join(root, 'schema', 'profile.schema.json'), 'utf8');
  const committed = JSON.parse(committedText) as JsonSchema;
  const validate = new Ajv({ allErrors: true, strict: false }).compile(committed);

  it('schema/profile.schema.json is what `sql-resources schema` prints (`npm run schema` rewrites it)', () => {
    expect(committedText).toBe(`${JSON.stringify(profileSchema(), null, 2)}\n`);
  });

  const examples = readdirSync(join(root, 'examples')).filter((file) => /\.ya?ml$/.test(file));

  it('covers the example profiles', () => {
    expect(examples).toEqual(expect.arrayContaining(['people.yml', 'quickstart.yml']));
  });

  it.each(examples)('examples/%s passes it', (file) => {
    validate(yaml.parse(readFileSync(join(root, 'examples', file), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
  });

  it('refuses a broken profile, naming the key', () => {
    const broken = yaml.parse(
      [
        'resources:',
        '  db: { _class: postgres, keepAliveInterval: 20, server: { host: 127.0.0.1, database: test } }',
        'endpoints:',
        '  - { path: /people, endpoint: list, resource: db, sql: SELECT 1 }',
        'server:',
        '  prot: 8077',
      ].join('\n'),
    );
    expect(validate(broken)).toBe(false);
    const unknown = (validate.errors ?? [])
      .filter((error) => error.keyword === 'additionalProperties')
      .map((error) => `${error.instancePath || '/'} ${(error.params as { additionalProperty: string }).additionalProperty}`);
    expect(unknown.sort()).toEqual(['/ endpoints', '/resources/db keepAliveInterval', '/server prot']);
  });
});
