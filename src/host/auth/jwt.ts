import { createVerifier, TokenError, type Algorithm, type DecodedJwt } from 'fast-jwt';
import { RemoteKeySet } from './jwks';
import type { JwtSettings } from './settings';

/** Verifies a token and answers its claims, or throws a `TokenError` (fast-jwt's). */
export type JwtVerifier = (token: string) => Record<string, unknown> | Promise<Record<string, unknown>>;

/**
 * The verifier of `server.auth.jwt`, built on fast-jwt: signature, `exp`, `nbf`, `iss` and `aud`
 * checked, the algorithm taken only from the allow-list (never `none`, never HS* with a public
 * key). A secret or a public key verifies synchronously; a key set fetches its keys when needed.
 */
export function createJwtVerifier(settings: JwtSettings): JwtVerifier {
  const common = {
    // Checked against fast-jwt's own list when the profile was read (settings.ts).
    algorithms: settings.algorithms as Algorithm[],
    allowedIss: settings.issuer,
    allowedAud: settings.audience,
    // fast-jwt checks iss and aud only when the token has them: a configured one is required.
    requiredClaims: [settings.issuer === undefined ? [] : ['iss'], settings.audience === undefined ? [] : ['aud']].flat(),
    clockTolerance: settings.clockTolerance * 1000,
  };
  const { key } = settings;
  if ('jwks' in key) {
    const keySet = new RemoteKeySet(key.jwks);
    return createVerifier({
      ...common,
      key: async ({ header }: DecodedJwt) => {
        const { kid, alg } = header as { kid?: unknown; alg?: unknown };
        const pem = await keySet.keyFor(typeof kid === 'string' ? kid : undefined, String(alg));
        if (pem === undefined) throw new TokenError(TokenError.codes.missingKey, 'no key of the key set matches the token (kid)');
        return pem;
      },
    }) as JwtVerifier;
  }
  return createVerifier({ ...common, key: 'secret' in key ? key.secret : key.publicKey }) as JwtVerifier;
}
