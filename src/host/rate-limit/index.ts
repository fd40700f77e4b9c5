/** `server.rateLimit`: requests per client and window through @fastify/rate-limit, shared through Redis when configured. */
export { rateLimitSettings, type RateLimitSettings } from './settings';
export { registerRateLimit, rateLimitNamespace } from './register';
