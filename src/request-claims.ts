import { AsyncLocalStorage } from 'node:async_hooks';
import { claimAt, inexactClaimMessage, inexactInteger, type Claims } from './claims';
import { configError } from './config';
import type { SqlDialect } from './dialect';
import { SqlResourceError } from './errors';
import type { Statement } from './statement';

/** Made on first use: a process that never runs work with claims pays nothing for it. */
let storage: AsyncLocalStorage<Claims> | undefined;

/**
 * Runs `work` with `claims` as the verified claims of the current request. Every statement it
 * runs, directly or in the promises, timers and callbacks it starts, on a resource with
 * `requestClaims: true` runs in a transaction that first hands the claims (and the role of
 * `roleClaim`) to PostgreSQL, so that row-level security policies apply. The host runs the
 * endpoints and handlers of an authenticated request in it; application code may use it too.
 * Only claims that were verified belong here: the database trusts them.
 */
export function withRequestClaims<T>(claims: Claims, work: () => T): T {
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new SqlResourceError('INVALID_ARGUMENT', 'withRequestClaims needs the claims as an object');
  }
  storage ??= new AsyncLocalStorage();
  return storage.run(claims, work);
}

/** The claims `withRequestClaims` set for the work running now; undefined outside it. */
export function currentRequestClaims(): Claims | undefined {
  return storage?.getStore();
}

/**
 * What a resource with `requestClaims: true` runs first in the transaction of each statement of
 * a request: its dialect's session statements, built once per claims object.
 */
export class RequestSessions {
  readonly #dialect: Required<Pick<SqlDialect, 'requestSessionStatements'>>;
  readonly #roleClaim?: string;
  readonly #built = new WeakMap<Claims, readonly Statement[]>();

  private constructor(dialect: Required<Pick<SqlDialect, 'requestSessionStatements'>>, roleClaim: string | undefined) {
    this.#dialect = dialect;
    this.#roleClaim = roleClaim;
  }

  /**
   * The sessions of a resource's `requestClaims` and `roleClaim` options, or undefined when
   * `requestClaims` is off. Errors name the resource and the key.
   */
  static of(id: string, options: Readonly<Record<string, unknown>>, dialect: SqlDialect): RequestSessions | undefined {
    const { requestClaims = false, roleClaim } = options;
    if (typeof requestClaims !== 'boolean') throw configError(id, 'requestClaims', 'must be true or false');
    if (roleClaim !== undefined && (typeof roleClaim !== 'string' || roleClaim === '')) throw configError(id, 'roleClaim', 'must be a claim name (a non-empty string)');
    if (roleClaim !== undefined && !requestClaims) throw configError(id, 'roleClaim', 'needs requestClaims: true');
    if (!requestClaims) return undefined;
    const { requestSessionStatements } = dialect;
    if (requestSessionStatements === undefined) throw configError(id, 'requestClaims', `is not available on ${dialect.name} resources (a setting of postgres resources only)`);
    return new RequestSessions({ requestSessionStatements }, roleClaim);
  }

  /**
   * The session statements for `claims`. FORBIDDEN, before any statement runs, when a claim
   * holds an integer a JSON number cannot hold exactly, or, with `roleClaim`, when the role claim
   * is absent or names no role: the role of the connection user is never the fallback.
   */
  statementsFor(claims: Claims): readonly Statement[] {
    let statements = this.#built.get(claims);
    if (statements === undefined) {
      // JSON.parse already rounded it: handed on, tenant 9007199254740993 would read the rows of …992.
      const inexact = inexactInteger(claims);
      if (inexact !== undefined) throw new SqlResourceError('FORBIDDEN', inexactClaimMessage(inexact));
      statements = Object.freeze(this.#dialect.requestSessionStatements(claims, this.#role(claims)));
      this.#built.set(claims, statements);
    }
    return statements;
  }

  /**
   * The role of `roleClaim`, which fails closed: a credential without it (an API key whose
   * `claims` lack it) would run as the connection user, and so would `none`
   * (`set_config('role', 'none')` is `RESET ROLE`); `default`, which `SET ROLE` reads alike, and
   * any case of both are refused with them.
   */
  #role(claims: Claims): string | undefined {
    const claim = this.#roleClaim;
    if (claim === undefined) return undefined;
    const role = claimAt(claims, claim);
    if (role === undefined || role === null || role === '') throw new SqlResourceError('FORBIDDEN', `the caller's credential has no role claim '${claim}', which this resource needs (roleClaim)`);
    // A role name never holds NUL, which PostgreSQL refuses in any text (22021).
    if (typeof role !== 'string' || role.includes('\0')) throw new SqlResourceError('FORBIDDEN', `the role claim '${claim}' is not a role name (a non-empty string)`);
    if (/^(?:none|default)$/i.test(role)) throw new SqlResourceError('FORBIDDEN', `the role claim '${claim}' may not reset the role to the connection user's (none, default)`);
    return role;
  }
}
