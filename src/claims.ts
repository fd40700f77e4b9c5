/** Verified claims of a request (a JWT's payload, an API key's claims): what `{{auth.<claim>}}` reads. */
export type Claims = Readonly<Record<string, unknown>>;

/** The value at a dotted path of the claims (`realm_access.roles`); undefined when absent. Own keys only. */
export function claimAt(claims: Claims, path: string): unknown {
  let node: unknown = claims;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.prototype.hasOwnProperty.call(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Template variables under this prefix come from the verified claims only, never from the request. */
export const authVariablePrefix = 'auth.';

/** `{{auth.tenant}}` written alone (a `scope` value): the claim path, else undefined. */
export function authReference(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return /^\{\{\s*auth\.([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\s*\}\}$/.exec(value)?.[1];
}

/** Why a claim holding such an integer is refused, and what the identity provider should do. */
export function inexactClaimMessage(path: string): string {
  return `the caller's claim '${path}' is an integer past 2^53, which a JSON number cannot hold exactly: issue it as a string`;
}

/**
 * The path of the first integer in `value` that a JSON number cannot hold exactly (past ±2^53),
 * else undefined. Claims are decoded with `JSON.parse`, which rounds such a number to a
 * neighbour: bound as it is, `9007199254740993` would match the row of `…992`.
 */
export function inexactInteger(value: unknown, path = ''): string | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = inexactInteger(item, path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Claims are shared by every request that sends the same credential: nothing may change them. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
