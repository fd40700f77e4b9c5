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
