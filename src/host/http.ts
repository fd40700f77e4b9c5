import { Readable } from 'node:stream';
import createDebug from 'debug';
import fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import secureJsonParse from 'secure-json-parse';
import { isPlainObject } from '../config';
import type { Row } from '../driver-adapter';
import { createEndpointHandler, type EndpointDefinition, type EndpointRequest } from '../endpoints';
import { SqlResourceError } from '../errors';
import type { ResourceManager } from '../resource-manager';
import type { HandlerDefinition } from './endpoint-config';

const log = createDebug('sql-resources:http');

export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

export interface HttpOptions {
  bodyLimit: number;
  /** Options for @fastify/cors; CORS stays off without them. */
  cors?: Record<string, unknown>;
}

/** Rows are sent in chunks of about this many characters. */
const streamChunkSize = 16 * 1024;

/** The success envelope of a long list, written as batches arrive; `total` comes after `data`. */
async function* listEnvelope(message: string, readBatches: Row[][], moreBatches: AsyncGenerator<Row[], void, undefined>): AsyncGenerator<string> {
  let chunk = `{"code":"ok","message":${JSON.stringify(message)},"data":[`;
  let total = 0;
  const append = (batch: Row[]): void => {
    for (const row of batch) chunk += (total++ === 0 ? '' : ',') + JSON.stringify(row);
  };
  for (const batch of readBatches) append(batch);
  yield chunk;
  chunk = '';
  try {
    for await (const batch of moreBatches) {
      append(batch);
      if (chunk.length >= streamChunkSize) {
        yield chunk;
        chunk = '';
      }
    }
  } catch (error) {
    // Headers are sent: the client can only see the connection cut, so say why here.
    log('list failed after %d rows: %s', total, (error as Error).message);
    throw error;
  }
  yield `${chunk}],"total":${total}}`;
}

/**
 * The list's body stream. However it ends (sent, client gone, failure), its batches are closed:
 * a client that leaves before the envelope's loop starts makes fastify destroy the stream
 * before the generator's first step, and a generator closed there never reaches the loop that
 * would close the batches, which keeps the query's pool connection and leaves `stop()` waiting.
 */
function listBody(message: string, readBatches: Row[][], moreBatches: AsyncGenerator<Row[], void, undefined>): Readable {
  const body = Readable.from(listEnvelope(message, readBatches, moreBatches));
  body.once('close', () => void moreBatches.return(undefined).catch(() => undefined));
  return body;
}

/** Any content type is read as JSON; keys that could poison prototypes are refused. */
function parseJsonBody(text: string): unknown {
  // Many clients send a Content-Type on every request; an empty body is refused only where one is needed.
  if (text.trim() === '') return undefined;
  try {
    return secureJsonParse(text, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = (error as Error).message;
    if (/prototype/.test(message)) throw new SqlResourceError('INVALID_BODY', 'the request body holds a forbidden key (__proto__ or constructor.prototype)');
    throw new SqlResourceError('INVALID_BODY', `the request body is not valid JSON: ${message}`);
  }
}

function bodyTooLarge(cause: Error): SqlResourceError {
  return new SqlResourceError('BODY_TOO_LARGE', 'the request body is larger than the limit (server.bodyLimit, 1 MiB by default)', { cause });
}

function errorStatus(error: unknown): number {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/** Errors keep the engine's envelope; only ours and the framework's client errors show their text. */
function errorReply(caught: Error, request: FastifyRequest, reply: FastifyReply): void {
  const error = (caught as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? bodyTooLarge(caught) : caught;
  const statusCode = errorStatus(error);
  const known = error instanceof SqlResourceError || statusCode < 500;
  if (!known || statusCode >= 500) log('%s %s → %d: %s', request.method, request.url, statusCode, error.message);
  void reply
    .code(statusCode)
    .type('application/json; charset=utf-8')
    .send({ code: 'nok', message: known ? error.message : 'internal server error' });
}

function toEndpointRequest(request: FastifyRequest): EndpointRequest {
  return {
    params: request.params as Record<string, string | undefined>,
    query: (request.query ?? {}) as Record<string, unknown>,
    body: request.body,
  };
}

/** `server.cors` of a profile as @fastify/cors options; undefined keeps CORS off. */
export function corsOptions(config: unknown): Record<string, unknown> | undefined {
  if (config === undefined || config === null) return undefined;
  if (!isPlainObject(config)) throw new Error('profile: server.cors must be a mapping (origins, methods)');
  const options: Record<string, unknown> = { origin: config.origins ?? config.origin ?? false, credentials: config.credentials === true };
  if (options.credentials && (options.origin === '*' || options.origin === true)) {
    throw new Error('profile: server.cors cannot allow credentials from any origin; list the origins');
  }
  // Left out, @fastify/cors answers preflights with its own default list of methods.
  if (config.methods !== undefined) options.methods = config.methods;
  return options;
}

/** Builds the fastify server for the validated endpoints. */
export async function buildServer(
  endpoints: EndpointDefinition[],
  handlers: { definition: HandlerDefinition; handler: RouteHandler }[],
  resources: ResourceManager,
  options: HttpOptions,
): Promise<FastifyInstance> {
  const server = fastify({
    bodyLimit: options.bodyLimit,
    routerOptions: { maxParamLength: 8192 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // Every body is read as JSON whatever its content type (curl -d sends form encoding);
  // the framework's parser refuses __proto__ and constructor.prototype keys.
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(String(body)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Requests still running when close() starts end with `Connection: close`, so their
  // keep-alive sockets do not hold the shutdown open.
  let closing = false;
  server.addHook('preClose', async () => {
    closing = true;
  });
  server.addHook('onSend', async (_request, reply, payload) => {
    if (closing) void reply.header('connection', 'close');
    return payload;
  });
  server.setErrorHandler(errorReply);
  server.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ code: 'nok', message: `no endpoint ${request.method} ${request.url.split('?')[0]}` });
  });
  if (options.cors) await server.register(cors, options.cors);

  for (const definition of endpoints) {
    const handle = createEndpointHandler(definition, resources.get(definition.resource));
    server.route({
      method: definition.method,
      url: definition.path,
      handler: async (request, reply) => {
        const response = await handle(toEndpointRequest(request));
        void reply.code(response.statusCode).type('application/json; charset=utf-8');
        if ('moreBatches' in response) return reply.send(listBody(response.message, response.readBatches, response.moreBatches));
        return { code: 'ok', message: response.message, data: response.data, total: response.total };
      },
    });
  }
  for (const { definition, handler } of handlers) {
    server.route({
      method: definition.method,
      url: definition.path,
      // A handler that answers later through `res.send()` returns nothing: returning the reply
      // tells fastify to wait for that send instead of answering an empty 200 at once.
      handler: async (request, reply) => (await handler(request, reply)) ?? reply,
    });
  }
  return server;
}
