import { dirname, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import createDebug from 'debug';
import type { FastifyInstance } from 'fastify';
import { isPlainObject, substituteEnv } from '../config';
import { SqlResourceError } from '../errors';
import { integerSetting } from '../integers';
import { ResourceManager } from '../resource-manager';
import type { EndpointDefinition } from '../endpoints';
import type { HandlerDefinition } from './endpoint-config';
import { buildServer, type RouteHandler } from './http';
import { buildProfile } from './build-profile';
import { profileProblems } from './problems';
import { loadProfile, type Profile } from './profile';

const log = createDebug('sql-resources:app');

export interface ListenOptions {
  /** Overrides `server.port`; 0 picks a free port. */
  port?: number;
  host?: string;
}

export interface App {
  readonly name: string;
  readonly profile: Profile;
  readonly resources: ResourceManager;
  /** Database endpoints of the profile, validated. */
  readonly endpoints: readonly EndpointDefinition[];
  /** What works but deserves a look (an endpoint that changes data, open to anyone); `serve` and `check` print them. */
  readonly warnings: readonly string[];
  /** Starts every resource, then listens. */
  start(options?: ListenOptions): Promise<void>;
  /** Stops listening, lets in-flight requests finish, then stops every resource. */
  stop(): Promise<void>;
  /** Where the server listens, once started. */
  address(): { host: string; port: number } | undefined;
  /** The fastify instance, once started (for tests and `inject`). */
  readonly http?: FastifyInstance;
}

declare global {
  /** The running app, for `server.lib` application code; set by `createApp`. */
  // eslint-disable-next-line no-var
  var $app: App;
}

export const defaultPort = 8077;
export const defaultHost = '127.0.0.1';

/** Loads `server.lib` and builds each handler endpoint's `(req, res)` function from its factory. */
function loadHandlers(definitions: HandlerDefinition[], lib: unknown, baseDir: string): { definition: HandlerDefinition; handler: RouteHandler }[] {
  if (definitions.length === 0) return [];
  if (typeof lib !== 'string' || lib === '') throw new SqlResourceError('CONFIG_INVALID', 'profile: server.lib must be a module path (a string)');
  const path = resolve(baseDir, lib);
  let exported: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    exported = require(path) as Record<string, unknown>;
  } catch (error) {
    throw new SqlResourceError('CONFIG_INVALID', `profile: server.lib ${path} cannot be loaded: ${(error as Error).message}`, { cause: error });
  }
  const problems: string[] = [];
  let firstFailure: unknown;
  const built = definitions.flatMap((definition) => {
    const factory = exported[definition.handler] ?? (exported.default as Record<string, unknown> | undefined)?.[definition.handler];
    if (typeof factory !== 'function') {
      problems.push(`endpoint ${definition.method} ${definition.path}: server.lib exports no function '${definition.handler}'`);
      return [];
    }
    let handler: unknown;
    try {
      handler = (factory as (config: unknown) => unknown)(definition.config);
    } catch (error) {
      firstFailure ??= error;
      problems.push(`endpoint ${definition.method} ${definition.path}: '${definition.handler}(config)' threw: ${(error as Error).message}`);
      return [];
    }
    if (typeof handler !== 'function') {
      problems.push(`endpoint ${definition.method} ${definition.path}: '${definition.handler}(config)' must return a (req, res) function`);
      return [];
    }
    return [{ definition, handler: handler as RouteHandler }];
  });
  if (problems.length > 0) throw profileProblems(problems, firstFailure);
  return built;
}

/**
 * Builds an app from a profile object or a YAML/JSON profile path: resources, endpoints and
 * handlers are all checked here, so a broken profile fails before anything starts.
 * Sets `globalThis.$app` for application code.
 */
export function createApp(source: Profile | string): App {
  const profile = loadProfile(source);
  const baseDir = typeof source === 'string' ? dirname(resolve(source)) : process.cwd();
  const { resources, endpoints, http: httpSettings, port: profilePort, auth } = buildProfile(profile, defaultPort, baseDir);
  const { database, handlers, warnings } = endpoints;
  const server = isPlainObject(profile.server) ? profile.server : {};
  const routeHandlers = loadHandlers(handlers, server.lib, baseDir);
  const listens = database.length > 0 || routeHandlers.length > 0;
  let http: FastifyInstance | undefined;
  let stopping: Promise<void> | undefined;

  const app: App = {
    name: typeof profile.name === 'string' ? profile.name : 'sql-resources',
    profile,
    resources,
    endpoints: database,
    warnings: Object.freeze([...warnings]),
    get http() {
      return http;
    },
    async start(options = {}) {
      const port = integerSetting('start()', 'port', options.port, profilePort, { min: 0, max: 65535 });
      stopping = undefined;
      await resources.startAll();
      if (!listens) return;
      try {
        http = await buildServer(database, routeHandlers, resources, httpSettings, auth && { settings: auth, realm: app.name });
        const host = options.host ?? (typeof server.host === 'string' ? substituteEnv('profile', 'server.host', server.host) : defaultHost);
        await http.listen({ port, host });
        log('%s listening on %s:%d', app.name, host, port);
      } catch (error) {
        await http?.close().catch(() => undefined);
        http = undefined;
        await resources.stopAll();
        throw error;
      }
    },
    stop() {
      stopping ??= (async () => {
        await http?.close();
        await resources.stopAll();
      })();
      return stopping;
    },
    address() {
      const address = http?.server.address() as AddressInfo | null | undefined;
      return address ? { host: address.address, port: address.port } : undefined;
    },
  };
  globalThis.$app = app;
  return app;
}
