/**
 * Who made a request, once a credential was verified: what `req.auth` holds in application
 * handlers and what `{{auth.<claim>}}` reads. Only verified claims ever reach it.
 */
export interface AuthIdentity {
  /** The token's `sub`, or the API key's `name`. */
  readonly subject?: string;
  /** From the JWT's `rolesClaim`, or the API key's `roles`. */
  readonly roles: readonly string[];
  /** The verified JWT payload, or the API key's `claims`. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** How the caller proved who it is. */
  readonly via: 'jwt' | 'apiKey';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller; null on a request that carried no credential (a public endpoint). */
    auth: AuthIdentity | null;
  }
}
