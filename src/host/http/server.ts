import type { ServerOptions } from 'node:http';
import fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import { callerSignal } from '../../cancellation';
import { createEndpointHandler, type EndpointDefinition, type EndpointRequest } from '../../endpoints';
import { withRequestClaims } from '../../request-claims';
import type { ResourceManager } from '../../resource-manager';
import { accessHooks, endpointAccess } from '../auth/access';
import { createAuthenticator } from '../auth/authenticate';
import type { AuthSettings } from '../auth/settings';
import type { HandlerDefinition } from '../endpoint-config';
import { parameterRouteOptions } from '../params';
import { rateLimitNamespace, registerRateLimit } from '../rate-limit';
import { registerBodyParsers } from './body';
import { clientErrorHandler, errorAnswer, errorHandler, frameworkErrorHandler, notFoundHandler, sendNok } from './errors';
import { listBody } from './list-body';
import { defaultMaxDepth, defaultRequestTimeout, defaultWriteTimeout, type HttpOptions } from './options';
import { helmetOptions, hostMatcher, securityHeaders } from './security';
import { stringifyJson } from './serialize';

export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

function toEndpointRequest(request: FastifyRequest, signal: AbortSignal | undefined): EndpointRequest {
  return {
    params: request.params as Record<string, string | undefined>,
    query: (request.query ?? {}) as Record<string, unknown>,
    body: request.body,
    signal,
    auth: request.auth,
    headers: request.headers,
  };
}

/**
 * Runs `work` with the verified claims of an authenticated request when `wanted` (a resource it
 * may use has `requestClaims`), so its statements run under the database's row-level security.
 */
function withClaimsOf<T>(request: FastifyRequest, wanted: boolean, work: () => T): T {
  return wanted && request.auth ? withRequestClaims(request.auth.claims, work) : work();
}

/**
 * A signal that aborts when the client leaves before its answer is complete, so the endpoint's
 * statement is cancelled on the server. Only lists and `sql` endpoints get one: other table
 * endpoints run short statements on keys, and skipping it keeps their path as cheap as before.
 */
function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const { signal, abort } = callerSignal();
  const response = reply.raw;
  response.once('close', () => {
    if (!response.writableFinished) abort();
  });
  return signal;
}

/**
 * Node checks request timeouts only every `connectionsCheckingInterval` (30 s by default), and
 * headers have their own 60 s limit: both follow `requestTimeout` so it holds to within a quarter.
 */
function timeoutOptions(requestTimeout: number): ServerOptions {
  if (requestTimeout === 0) return {};
  return { headersTimeout: Math.min(60_000, requestTimeout), connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.ceil(requestTimeout / 4))) };
}

/** `server.auth` of the profile, and the name its 401 answers give the API (`WWW-Authenticate` realm). */
export interface ServerAuth {
  readonly settings: AuthSettings;
  readonly realm: string;
}

/** Builds the fastify server for the validated endpoints; with `auth`, every endpoint not `public` needs a credential. */
export async function buildServer(
  endpoints: EndpointDefinition[],
  handlers: { definition: HandlerDefinition; handler: RouteHandler }[],
  resources: ResourceManager,
  options: HttpOptions,
  auth?: ServerAuth,
): Promise<FastifyInstance> {
  const requestTimeout = options.requestTimeout ?? defaultRequestTimeout;
  const exposeErrors = options.exposeErrors === true;
  const headers = securityHeaders(helmetOptions(options.hsts ?? false));
  const server = fastify({
    bodyLimit: options.bodyLimit,
    routerOptions: { maxParamLength: 8192 },
    // fastify's own 503 while closing is not in the envelope: the onRequest hook below answers instead.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    requestTimeout,
    // The Host check is ours (Node's answers an empty 400).
    http: { requireHostHeader: false, ...timeoutOptions(requestTimeout) },
    frameworkErrors: frameworkErrorHandler(headers),
    clientErrorHandler: clientErrorHandler(headers),
  });
  server.decorateRequest('auth', null);
  const authenticate = auth && createAuthenticator(auth.settings);
  // Route hooks, so that rate limiting (added to each route after them) sees who the caller is.
  const guard = (config: Readonly<Record<string, unknown>>): ReturnType<typeof accessHooks> | undefined =>
    authenticate && accessHooks(authenticate, endpointAccess(config), auth.realm);
  registerBodyParsers(server, { maxDepth: options.json?.maxDepth ?? defaultMaxDepth, anyContentType: options.json?.anyContentType === true });
  server.setReplySerializer((payload) => stringifyJson(payload));

  // Requests still running when close() starts end with `Connection: close`, so their
  // keep-alive sockets do not hold the shutdown open; requests arriving then get a 503.
  let closing = false;
  server.addHook('preClose', async () => {
    closing = true;
  });
  const allowed = options.allowedHosts ? hostMatcher(options.allowedHosts) : undefined;
  // The first hook, so every answer from here on carries the security headers: helmet's,
  // rendered once at startup (@fastify/helmet rebuilds them on each request, +20% CPU per GET).
  server.addHook('onRequest', (request, reply, done) => {
    void reply.headers(headers);
    const host = request.headers.host;
    if (host === undefined && request.raw.httpVersion === '1.1') return sendNok(request, reply, 400, 'BAD_REQUEST', 'the request has no Host header (HTTP/1.1 requires one)');
    if (allowed && !allowed(host)) return sendNok(request, reply, 421, 'HOST_NOT_ALLOWED', 'this server does not answer for the Host of the request (server.allowedHosts)');
    if (closing) {
      const { message } = errorAnswer({ statusCode: 503, message: 'the server is shutting down' }, request.id, exposeErrors);
      return sendNok(request, reply, 503, 'NOT_STARTED', message);
    }
    done();
  });
  server.addHook('onSend', async (_request, reply, payload) => {
    if (closing) void reply.header('connection', 'close');
    return payload;
  });
  server.setErrorHandler(errorHandler(exposeErrors));
  server.setNotFoundHandler(notFoundHandler);
  if (options.cors) await server.register(cors, options.cors);
  if (options.rateLimit) await registerRateLimit(server, options.rateLimit, options.rateLimitNamespace ?? rateLimitNamespace());

  const writeTimeout = options.writeTimeout ?? defaultWriteTimeout;
  for (const definition of endpoints) {
    const resource = resources.get(definition.resource);
    const handle = createEndpointHandler(definition, resource, { cursorKey: options.cursorKey });
    const cancellable = definition.sql !== undefined || definition.endpoint === 'list';
    server.route({
      method: definition.method,
      url: definition.path,
      ...guard(definition.config),
      ...parameterRouteOptions(definition),
      handler: async (request, reply) => {
        const endpointRequest = toEndpointRequest(request, cancellable ? clientGoneSignal(reply) : undefined);
        // A list's later batches are read outside it, on the transaction its first batch began.
        const response = await withClaimsOf(request, resource.requestClaims, () => handle(endpointRequest));
        void reply.code(response.statusCode).type('application/json; charset=utf-8');
        if ('moreBatches' in response) {
          // A reader that takes nothing for writeTimeout loses its connection; the stream and its statement end.
          return reply.send(listBody(response.message, response.readBatches, response.moreBatches, writeTimeout, () => reply.raw.destroy()));
        }
        if (response.headers) void reply.headers(response.headers);
        return { code: 'ok', message: response.message, data: response.data, total: response.total, page: response.page, count: response.count };
      },
    });
  }
  // Handlers may call any resource ($app.resources.get).
  const anyRequestClaims = resources.ids().some((id) => resources.get(id).requestClaims);
  for (const { definition, handler } of handlers) {
    server.route({
      method: definition.method,
      url: definition.path,
      ...guard(definition.config),
      // A handler that answers later through `res.send()` returns nothing: returning the reply
      // tells fastify to wait for that send instead of answering an empty 200 at once.
      handler: async (request, reply) => (await withClaimsOf(request, anyRequestClaims, () => handler(request, reply))) ?? reply,
    });
  }
  return server;
}
