import { isPlainObject } from '../config';
import type { SqlDialect } from '../dialect';
import { registeredClassEntries } from '../registry';
import { authSettings, type AuthSettings } from './auth/settings';
import { ResourceManager } from '../resource-manager';
import { validateEndpoints, type ValidatedEndpoints } from './endpoint-config';
import { httpOptions, profileInteger } from './http';
import { problemsOf, profileProblems, type Problem, type ProblemPath } from './problems';
import type { Profile } from './profile';
import { schemaProblems } from './schema/validate-profile';

/** What a valid profile builds: its resources (not started), endpoints and HTTP settings. */
export interface BuiltProfile {
  readonly resources: ResourceManager;
  readonly endpoints: Omit<ValidatedEndpoints, 'problems'>;
  readonly http: ReturnType<typeof httpOptions>;
  readonly port: number;
  /** `server.auth`, checked; undefined leaves every endpoint open. */
  readonly auth?: AuthSettings;
}

/** The ids (or indexes) below `prefix` that `problems` name: those entries are not checked again. */
function flagged(problems: readonly Problem[], ...prefix: string[]): Set<string | number> {
  const found = new Set<string | number>();
  for (const { path } of problems) {
    if (path.length > prefix.length && prefix.every((key, depth) => path[depth] === key)) found.add(path[prefix.length]);
  }
  return found;
}

function valueAt(profile: unknown, path: ProblemPath): unknown {
  return path.reduce<unknown>((node, key) => (isPlainObject(node) || Array.isArray(node) ? (node as Record<string | number, unknown>)[key] : undefined), profile);
}

/**
 * A problem from a setting's error message (`resource 'db': server.port must be …`, `profile:
 * server.bodyLimit must be …`), placed at the key it names when the profile has it, so that it is
 * shown, and located, like the schema's problems.
 */
function problemFromMessage(message: string, under: ProblemPath, profile: unknown): Problem {
  const text = message.replace(/^(?:resource '[^']*'|profile): /, '');
  const named = /^([A-Za-z_]\w*(?:\[\d+\])?(?:\.[A-Za-z_]\w*(?:\[\d+\])?)*) (.*)$/s.exec(text);
  if (named) {
    // `apiKeys[0].sha256` → apiKeys, 0, sha256
    const keys = named[1].split(/\.|(?=\[)/).map((key) => (key.startsWith('[') ? Number(key.slice(1, -1)) : key));
    const path = [...under, ...keys];
    if (valueAt(profile, path) !== undefined) return { path, message: named[2] };
  }
  return { path: under, message: text };
}

/** The dialect of a resource configuration's `_class`, for one whose settings were refused. */
function classDialect(config: unknown): SqlDialect | undefined {
  const name = isPlainObject(config) ? config._class : undefined;
  return registeredClassEntries().find(([registered]) => registered === name)?.[1].dialect;
}

/** Builds every resource the schema passed; what a constructor refuses is one more problem. */
function buildResources(profile: Profile, problems: Problem[]): ResourceManager {
  const resources = new ResourceManager();
  const declared = profile.resources ?? {};
  if (!isPlainObject(declared)) return resources; // the schema reported it
  const refused = flagged(problems, 'resources');
  for (const [id, config] of Object.entries(declared)) {
    if (refused.has(id)) continue;
    try {
      resources.add(id, config);
    } catch (error) {
      for (const message of problemsOf(error)) problems.push(problemFromMessage(message, ['resources', id], profile));
    }
  }
  return resources;
}

/** Runs `read`, turning the setting error it throws into a problem, unless the schema named that setting already. */
function setting<T>(read: () => T, problems: Problem[], profile: unknown): T | undefined {
  try {
    return read();
  } catch (error) {
    for (const message of problemsOf(error)) {
      const problem = problemFromMessage(message, [], profile);
      const named = problems.some(({ path }) => problem.path.every((key, depth) => path[depth] === key) && path.length >= problem.path.length);
      if (!named || problem.path.length === 0) problems.push(problem);
    }
    return undefined;
  }
}

/**
 * Checks a profile and builds what it declares. The schema runs first, then what only code can
 * tell (a resource's settings, templates, routes); every problem is reported at once, with its
 * line and column when the profile came from a file.
 * @throws SqlResourceError CONFIG_INVALID listing the problems.
 */
export function buildProfile(profile: Profile, defaultPort: number, baseDir = process.cwd()): BuiltProfile {
  const problems = schemaProblems(profile);
  const resources = buildResources(profile, problems);
  const server = isPlainObject(profile.server) ? profile.server : {};
  const declared = new Set(Object.keys(isPlainObject(profile.resources) ? profile.resources : {}));
  const endpoints = Array.isArray(server.endpoints) || !flagged(problems, 'server').has('endpoints') ? server.endpoints : undefined;
  const skip = flagged(problems, 'server', 'endpoints') as Set<number>;
  const dialectOf = (id: string): SqlDialect | undefined => (resources.exist(id) ? resources.get(id).dialect : classDialect((profile.resources as Record<string, unknown>)[id]));
  const hasAuth = server.auth !== undefined && server.auth !== null;
  const { problems: endpointProblems, ...validated } = validateEndpoints(endpoints, { declared, dialectOf, hasLib: server.lib !== undefined, hasAuth, skip });
  problems.push(...endpointProblems);
  const http = setting(() => httpOptions(server, typeof profile.name === 'string' ? profile.name : undefined), problems, profile);
  const port = setting(() => profileInteger(server, 'port', defaultPort, 0, 65535), problems, profile);
  const auth = flagged(problems, 'server').has('auth') ? undefined : setting(() => authSettings(server.auth, baseDir), problems, profile);
  if (http?.rateLimit?.keyBy === 'auth' && !hasAuth) {
    problems.push({ path: ['server', 'rateLimit', 'keyBy'], message: "'auth' needs server.auth (without it every client is counted by its address)" });
  }
  if (problems.length > 0 || http === undefined || port === undefined) throw profileProblems(problems, undefined, profile);
  return { resources, endpoints: validated, http, port, auth };
}
