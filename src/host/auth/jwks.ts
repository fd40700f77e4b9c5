import { createPublicKey, type JsonWebKey } from 'node:crypto';
import createDebug from 'debug';

const log = createDebug('sql-resources:auth');

/** A key set is refetched for an unknown `kid` at most this often (SPEC §7). */
const refetchCooldownMs = 30_000;
const fetchTimeoutMs = 5_000;
/** A key set larger than this is refused: a JWKS holds a handful of keys. */
const maxKeySetBytes = 1024 * 1024;

interface KnownKey {
  readonly kid?: string;
  readonly alg?: string;
  /** SPKI PEM: what the verifier takes. */
  readonly pem: string;
}

/**
 * The public keys of a JSON Web Key Set URL. Fetched on first use; fetched again when a token
 * names a `kid` the set lacks, at most once per `refetchCooldownMs`, and one fetch at a time, so
 * a flood of tokens with unknown `kid`s causes no flood of fetches. Converting each JWK to a key
 * is Node's own `createPublicKey`.
 */
export class RemoteKeySet {
  readonly #url: string;
  #keys: KnownKey[] = [];
  #fetchedAt = -Infinity;
  #pending?: Promise<void>;

  constructor(url: string) {
    this.#url = url;
  }

  /** The PEM of the key for `kid` and `alg`; undefined when the set has none, even after a refetch. */
  async keyFor(kid: string | undefined, alg: string): Promise<string | undefined> {
    // A fetch under way (the first, or a refetch) may bring the key: wait for it before looking.
    if (this.#fetchedAt === -Infinity) await this.#refresh();
    else if (this.#pending !== undefined) await this.#pending;
    let found = this.#find(kid, alg);
    if (found === undefined && performance.now() - this.#fetchedAt >= refetchCooldownMs) {
      await this.#refresh();
      found = this.#find(kid, alg);
    }
    return found?.pem;
  }

  #find(kid: string | undefined, alg: string): KnownKey | undefined {
    const candidates = this.#keys.filter((key) => (key.alg === undefined || key.alg === alg) && (kid === undefined || key.kid === kid));
    // Without a kid, only a set of one usable key says which key it is.
    return kid === undefined && candidates.length !== 1 ? undefined : candidates[0];
  }

  #refresh(): Promise<void> {
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #fetch(): Promise<void> {
    // Counted from the attempt, so a failing URL is not retried on every request either.
    this.#fetchedAt = performance.now();
    // The keys fetched before stay in use on a failure; tokens signed by a key they lack get a 401.
    const fetched = await fetchKeySet(this.#url).catch((error: Error) => error.message);
    if (typeof fetched === 'string') return void log('fetching the JWKS failed: %s', fetched);
    this.#keys = fetched;
    log('fetched %d keys from the JWKS', fetched.length);
  }
}

/** The keys at `url`, or why there are none: a failure only the debug log hears of, never a client. */
async function fetchKeySet(url: string): Promise<KnownKey[] | string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(fetchTimeoutMs), redirect: 'error', headers: { accept: 'application/json' } });
  if (!response.ok) return `HTTP ${response.status}`;
  if (Number(response.headers.get('content-length') ?? 0) > maxKeySetBytes) return 'the key set is larger than 1 MiB';
  const body = await response.text();
  if (Buffer.byteLength(body) > maxKeySetBytes) return 'the key set is larger than 1 MiB';
  return keysOf(JSON.parse(body) as unknown);
}

/** The signing keys of a JWKS document; keys Node cannot read or private keys are skipped. */
function keysOf(document: unknown): KnownKey[] | string {
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return 'the document has no "keys" list';
  return keys.flatMap((jwk: unknown): KnownKey[] => {
    if (typeof jwk !== 'object' || jwk === null) return [];
    const { kid, alg, use, d } = jwk as { kid?: unknown; alg?: unknown; use?: unknown; d?: unknown };
    if ((use !== undefined && use !== 'sig') || d !== undefined) return [];
    try {
      const pem = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
      return [{ kid: typeof kid === 'string' ? kid : undefined, alg: typeof alg === 'string' ? alg : undefined, pem }];
    } catch {
      return [];
    }
  });
}
