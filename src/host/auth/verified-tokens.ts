import type { AuthIdentity } from './identity';

/** What a remembered token proves: the very answer the authenticator gives. */
export interface Verified {
  readonly identity: AuthIdentity;
}

/** How many verified tokens are remembered; the oldest is forgotten first. */
const capacity = 1000;
/** A token is verified again at least this often, so a key removed from a JWKS stops counting. */
const maxRememberMs = 10 * 60 * 1000;
/** Longer tokens are verified every time: remembering them would cost more memory than it saves. */
const maxRememberedLength = 4096;

interface Remembered {
  readonly verified: Verified;
  readonly untilMs: number;
}

/**
 * Identities of tokens fast-jwt verified, by the token's exact text, until the token expires
 * (its `exp` plus the clock tolerance) and for at most ten minutes. A repeated token then costs
 * one map lookup instead of a signature check and a hash (fast-jwt's own cache hashes each token
 * for its key: half the cost of a GET by id behind a JWT, measured). The text itself is the key,
 * so two tokens never share an entry; only tokens that verified are kept.
 */
export class VerifiedTokens {
  readonly #entries = new Map<string, Remembered>();
  readonly #toleranceMs: number;

  constructor(clockToleranceSeconds: number) {
    this.#toleranceMs = clockToleranceSeconds * 1000;
  }

  get(token: string): Verified | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (Date.now() < entry.untilMs) return entry.verified;
    this.#entries.delete(token);
    return undefined;
  }

  remember(token: string, verified: Verified): void {
    if (token.length > maxRememberedLength) return;
    const exp = verified.identity.claims.exp;
    const now = Date.now();
    const untilMs = Math.min(now + maxRememberMs, typeof exp === 'number' ? exp * 1000 + this.#toleranceMs : Infinity);
    if (untilMs <= now) return;
    if (this.#entries.size >= capacity) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(token, { verified, untilMs });
  }
}
