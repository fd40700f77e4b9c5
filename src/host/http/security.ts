import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { HstsOptions } from './options';

/**
 * Helmet settings for a JSON API. The CSP forbids everything, so a response opened in a
 * browser runs and loads nothing and cannot be framed; HTML-only headers (COOP,
 * Origin-Agent-Cluster, DNS prefetch, IE download options, the retired XSS auditor) are left
 * out; HSTS only when configured, since a plain-HTTP host cannot promise HTTPS.
 */
export function helmetOptions(hsts: HstsOptions | false): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    originAgentCluster: false,
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: hsts === false ? false : hsts,
    xContentTypeOptions: true,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: { permittedPolicies: 'none' },
    xPoweredBy: true,
    xXssProtection: false,
  };
}

/**
 * The headers helmet sets with these options, for answers written outside fastify's hooks
 * (framework errors, raw-socket client errors): helmet runs once against a recorder.
 */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
}

/** The host name of a Host header value, without port (IPv6 literals keep their brackets). */
function hostName(host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.lastIndexOf(':');
  return (end > 0 ? host.slice(0, end) : host).replace(/\.$/, '');
}

/**
 * A test for Host header values against `server.allowedHosts`: an entry without port allows
 * that host on any port, one with a port only there. Refusing other names stops DNS
 * rebinding, where a hostile name resolves to the API's address.
 */
export function hostMatcher(allowed: readonly string[]): (host: string | undefined) => boolean {
  const entries = new Set(allowed.map((entry) => entry.toLowerCase()));
  return (host) => {
    if (host === undefined || host === '') return false;
    const value = host.toLowerCase();
    return entries.has(value) || entries.has(hostName(value));
  };
}
