import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteShorthandOptions } from 'fastify';
import { SqlResourceError } from '../../errors';
import type { Authentication, Authenticator } from './authenticate';

/** Who may call one endpoint (its `public` and `roles` keys). */
export interface EndpointAccess {
  /** Callable without a credential; a credential that is sent is still checked. */
  readonly public: boolean;
  /** The caller needs at least one of them; any authenticated caller when absent. */
  readonly roles?: readonly string[];
}

/** The access keys of an endpoint entry, already checked by the profile's validation. */
export function endpointAccess(config: Readonly<Record<string, unknown>>): EndpointAccess {
  const roles = config.roles;
  return {
    public: config.public === true,
    roles: typeof roles === 'string' ? [roles] : Array.isArray(roles) ? (roles as string[]) : undefined,
  };
}

/** Requests whose credential failed: kept only until the access check answers them. */
const failures = new WeakMap<FastifyRequest, Extract<Authentication, { failure: SqlResourceError }>>();

/**
 * The two route hooks that guard an endpoint: `onRequest` reads the credential (rate limiting,
 * registered after it, can then count per caller), `preParsing` answers 401 or 403 before any
 * body is read. `realm` names the API in `WWW-Authenticate`.
 */
export function accessHooks(authenticate: Authenticator, access: EndpointAccess, realm: string): Pick<RouteShorthandOptions, 'onRequest' | 'preParsing'> {
  const challenge = `Bearer realm="${realm.replace(/[^\x20-\x7e]|["\\]/g, '_')}"`;
  const record = (request: FastifyRequest, outcome: Authentication): void => {
    request.auth = outcome.identity;
    if (outcome.failure !== undefined) failures.set(request, outcome);
  };
  const unauthorized = (reply: FastifyReply, error: SqlResourceError, tokenSent: boolean): SqlResourceError => {
    void reply.header('www-authenticate', tokenSent ? `${challenge}, error="invalid_token"` : challenge);
    return error;
  };
  return {
    onRequest(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
      const outcome = authenticate(request.headers);
      if (!(outcome instanceof Promise)) {
        record(request, outcome);
        return done();
      }
      outcome.then((settled) => {
        record(request, settled);
        done();
      }, done);
    },
    preParsing(request: FastifyRequest, reply: FastifyReply, payload, done) {
      const failed = failures.get(request);
      if (failed !== undefined) return done(unauthorized(reply, failed.failure, failed.tokenSent), payload);
      const identity = request.auth;
      if (identity === null) {
        if (access.public) return done(null, payload);
        return done(unauthorized(reply, new SqlResourceError('UNAUTHORIZED', 'this endpoint needs a credential: a bearer token or an API key'), false), payload);
      }
      if (access.roles !== undefined && !access.roles.some((role) => identity.roles.includes(role))) {
        return done(new SqlResourceError('FORBIDDEN', 'the caller has none of the roles this endpoint needs'), payload);
      }
      done(null, payload);
    },
  };
}
