/** The host's HTTP layer: fastify with JSON bodies, the envelope for every answer, security headers. */
export { buildServer, type RouteHandler } from './server';
export { corsOptions, httpOptions, profileInteger, type HttpOptions, type JsonOptions } from './options';
export { parseJsonBody } from './body';
export { stringifyJson } from './serialize';
