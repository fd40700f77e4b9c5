import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { TokenError } from 'fast-jwt';
import { claimAt, deepFreeze } from '../../claims';
import { SqlResourceError } from '../../errors';
import type { AuthIdentity } from './identity';
import { createJwtVerifier, type JwtVerifier } from './jwt';
import type { ApiKeySettings, AuthSettings } from './settings';
import { VerifiedTokens } from './verified-tokens';

/** What a request's credential proved: nothing was sent, who the caller is, or why it failed. */
export type Authentication =
  | { readonly identity: null; readonly failure?: undefined }
  | { readonly identity: AuthIdentity; readonly failure?: undefined }
  | { readonly identity: null; readonly failure: SqlResourceError; readonly tokenSent: boolean };

/** Reads a request's credential; never throws, never keeps the credential. */
export type Authenticator = (headers: IncomingHttpHeaders) => Authentication | Promise<Authentication>;

/** Far larger than any real token; refused before it is parsed. */
const maxCredentialLength = 16 * 1024;
const noCredential: Authentication = Object.freeze({ identity: null });
const bearerPattern = /^Bearer +([A-Za-z0-9_.~+/-]+=*)$/i;

function refused(message: string, tokenSent: boolean): Authentication {
  return { identity: null, failure: new SqlResourceError('UNAUTHORIZED', message), tokenSent };
}

/** Why a token failed, by fast-jwt's error code, for the 401's message: never the token nor its claims. */
const tokenFailureReasons: Readonly<Record<string, string>> = {
  [TokenError.codes.expired]: 'the token has expired',
  [TokenError.codes.inactive]: 'the token is not valid yet (nbf)',
  [TokenError.codes.invalidSignature]: 'the token signature is not valid',
  [TokenError.codes.invalidAlgorithm]: 'the token algorithm is not accepted',
  [TokenError.codes.invalidClaimValue]: 'the token issuer or audience is not accepted',
  [TokenError.codes.missingRequiredClaim]: 'the token issuer or audience is not accepted',
  [TokenError.codes.missingKey]: 'no key verifies the token',
  [TokenError.codes.keyFetchingError]: 'no key verifies the token',
  [TokenError.codes.malformed]: 'the token is malformed',
};

function tokenFailure(error: unknown): Authentication {
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' && Object.prototype.hasOwnProperty.call(tokenFailureReasons, code) ? tokenFailureReasons[code] : 'it cannot be verified';
  return refused(`invalid token: ${reason}`, true);
}

function rolesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((role) => role !== '');
  return Array.isArray(value) ? value.filter((role): role is string => typeof role === 'string') : [];
}

function jwtIdentity(claims: Record<string, unknown>, rolesClaim: string): Authentication {
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return refused('invalid token: its payload is not an object', true);
  const identity: AuthIdentity = {
    subject: typeof claims.sub === 'string' ? claims.sub : undefined,
    roles: Object.freeze(rolesOf(claimAt(claims, rolesClaim))),
    claims: deepFreeze(claims),
    via: 'jwt',
  };
  return { identity };
}

/**
 * The key whose SHA-256 the presented key has. Every configured digest is compared, in constant
 * time, whether or not an earlier one matched: the time taken says nothing about the keys.
 */
function matchApiKey(keys: readonly ApiKeySettings[], presented: string): ApiKeySettings | undefined {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found: ApiKeySettings | undefined;
  for (const key of keys) {
    if (timingSafeEqual(digest, key.digest) && found === undefined) found = key;
  }
  return found;
}

/**
 * The authenticator of `server.auth`: a JWT only from `Authorization: Bearer`, an API key only
 * from its header, never from the query string or the body. Sending both, or a malformed
 * header, is a 401, as is any credential that does not verify.
 */
export function createAuthenticator(settings: AuthSettings): Authenticator {
  const verify: JwtVerifier | undefined = settings.jwt && createJwtVerifier(settings.jwt);
  const rolesClaim = settings.jwt?.rolesClaim ?? 'roles';
  const verifiedTokens = settings.jwt && new VerifiedTokens(settings.jwt.clockTolerance);
  const { apiKeyHeader, apiKeys } = settings;
  const accepts = [verify ? 'Authorization: Bearer <token>' : undefined, apiKeys.length > 0 ? `${apiKeyHeader}: <key>` : undefined].filter(Boolean).join(' or ');

  const fromToken = (header: string): Authentication | Promise<Authentication> => {
    if (verify === undefined) return refused(`this server takes no bearer tokens: send ${accepts}`, false);
    if (header.length > maxCredentialLength) return refused('invalid token: it is too long', true);
    const match = bearerPattern.exec(header);
    if (match === null) return refused(`malformed Authorization header: send ${accepts}`, /^bearer\b/i.test(header));
    const token = match[1];
    const known = verifiedTokens?.get(token);
    if (known !== undefined) return known;
    const remember = (claims: Record<string, unknown>): Authentication => {
      const outcome = jwtIdentity(claims, rolesClaim);
      if (outcome.identity !== null) verifiedTokens?.remember(token, outcome);
      return outcome;
    };
    try {
      const verified = verify(token);
      if (verified instanceof Promise) return verified.then(remember, tokenFailure);
      return remember(verified);
    } catch (error) {
      return tokenFailure(error);
    }
  };

  const fromApiKey = (presented: string): Authentication => {
    if (apiKeys.length === 0) return refused(`this server takes no API keys: send ${accepts}`, false);
    if (presented.length > maxCredentialLength) return refused('invalid API key', false);
    const key = matchApiKey(apiKeys, presented);
    if (key === undefined) return refused('invalid API key', false);
    return { identity: { subject: key.name, roles: key.roles, claims: key.claims, via: 'apiKey' } };
  };

  return (headers) => {
    const authorization = headers.authorization;
    // Node joins repeated headers of other names than its own few into one string.
    const apiKey = headers[apiKeyHeader] as string | undefined;
    if (authorization !== undefined && apiKey !== undefined) return refused('send one credential: a bearer token or an API key, not both', false);
    if (authorization !== undefined) return fromToken(authorization);
    if (apiKey !== undefined) return fromApiKey(apiKey);
    return noCredential;
  };
}
