import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { deepFreeze } from '../../claims';
import { isPlainObject, substituteEnv } from '../../config';
import { SqlResourceError } from '../../errors';
import { profileInteger } from '../http/options';

/** Where a JWT's signature is checked against. */
export type JwtKeySource = { readonly secret: string } | { readonly publicKey: string } | { readonly jwks: string };

export interface JwtSettings {
  readonly key: JwtKeySource;
  readonly algorithms: readonly string[];
  readonly issuer?: string;
  readonly audience?: string;
  /** Seconds of leeway on `exp` and `nbf`. */
  readonly clockTolerance: number;
  /** Dotted path into the claims where the roles are. */
  readonly rolesClaim: string;
}

export interface ApiKeySettings {
  readonly name: string;
  /** The SHA-256 of the key, 32 bytes. */
  readonly digest: Buffer;
  readonly roles: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
}

export interface AuthSettings {
  readonly jwt?: JwtSettings;
  /** Lower-case header name the API key comes in. */
  readonly apiKeyHeader: string;
  readonly apiKeys: readonly ApiKeySettings[];
}

const hmacAlgorithms = ['HS256', 'HS384', 'HS512'];
const asymmetricAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** The algorithms each type of public key can verify. */
const algorithmsOfKeyType: Readonly<Record<string, readonly string[]>> = {
  rsa: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
  'rsa-pss': ['PS256', 'PS384', 'PS512'],
  ec: ['ES256', 'ES384', 'ES512'],
  ed25519: ['EdDSA'],
  ed448: ['EdDSA'],
};
/** RFC 7518 §3.2: an HMAC key at least as long as the hash. */
const minimumSecretBytes = 32;
const defaultApiKeyHeader = 'x-api-key';

function invalid(key: string, problem: string): SqlResourceError {
  return new SqlResourceError('CONFIG_INVALID', `profile: server.auth.${key} ${problem}`);
}

/** A string setting, `{{ENV}}` substituted; errors name the key, never the value. */
function text(section: Record<string, unknown>, key: string, where: string): string | undefined {
  const value = section[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`${where}${key}`, 'must be a non-empty string');
  const substituted = substituteEnv('profile', `server.auth.${where}${key}`, value);
  if (substituted.trim() === '') throw invalid(`${where}${key}`, 'is empty once its environment variables are substituted');
  return substituted;
}

function stringList(value: unknown, key: string): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item === '')) throw invalid(key, 'must be a list of non-empty strings');
  return list as string[];
}

/** A PEM text, or the path of a PEM file relative to the profile's folder. */
function publicKeyPem(value: string, baseDir: string): string {
  const pem = value.trimStart().startsWith('-----BEGIN') ? value : readKeyFile(value, baseDir);
  let key: KeyObject;
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) throw invalid('jwt.publicKey', 'holds a private key: give the public key (or certificate) only');
  try {
    key = createPublicKey(pem);
  } catch {
    throw invalid('jwt.publicKey', 'is not a PEM public key or certificate');
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

function readKeyFile(path: string, baseDir: string): string {
  const file = isAbsolute(path) ? path : resolve(baseDir, path);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid('jwt.publicKey', `names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): give PEM text or a readable file`);
  }
}

/**
 * Where keys may come from: https, or http on this machine. Over plain http across a network,
 * whoever sits on the path could serve a key set of their own and sign any token.
 */
function isKeySetUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname);
  return url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
}

/** The algorithms a public key can verify: its type's family. */
function algorithmsForPublicKey(pem: string): readonly string[] {
  return algorithmsOfKeyType[createPublicKey(pem).asymmetricKeyType ?? ''] ?? [];
}

function jwtSettings(value: unknown, baseDir: string): JwtSettings {
  if (!isPlainObject(value)) throw invalid('jwt', 'must be a mapping (secret, publicKey or jwks; algorithms, issuer, audience, …)');
  const secret = text(value, 'secret', 'jwt.');
  const publicKey = text(value, 'publicKey', 'jwt.');
  const jwks = text(value, 'jwks', 'jwt.');
  const given = [secret, publicKey, jwks].filter((item) => item !== undefined).length;
  if (given !== 1) throw invalid('jwt', 'needs exactly one of secret, publicKey or jwks');
  let key: JwtKeySource;
  let usable: readonly string[];
  if (secret !== undefined) {
    if (Buffer.byteLength(secret) < minimumSecretBytes) throw invalid('jwt.secret', `must be at least ${minimumSecretBytes} bytes (RFC 7518: an HMAC key as long as its hash)`);
    key = { secret };
    usable = hmacAlgorithms;
  } else if (publicKey !== undefined) {
    const pem = publicKeyPem(publicKey, baseDir);
    key = { publicKey: pem };
    usable = algorithmsForPublicKey(pem);
  } else {
    const url = jwks as string;
    if (!isKeySetUrl(url)) throw invalid('jwt.jwks', 'must be the https URL of a JSON Web Key Set (http only on a loopback address)');
    key = { jwks: url };
    usable = asymmetricAlgorithms;
  }
  const algorithms = value.algorithms === undefined ? [...usable] : stringList(value.algorithms, 'jwt.algorithms');
  if (algorithms.length === 0) throw invalid('jwt.algorithms', 'must list at least one algorithm');
  for (const algorithm of algorithms) {
    if (algorithm.toLowerCase() === 'none') throw invalid('jwt.algorithms', "cannot hold 'none': unsigned tokens are never accepted");
    if (!usable.includes(algorithm)) {
      throw invalid('jwt.algorithms', `holds ${algorithm}, which ${'secret' in key ? 'a secret' : 'publicKey' in key ? 'this public key' : 'a key set'} cannot verify (usable: ${usable.join(', ')})`);
    }
  }
  const rolesClaim = text(value, 'rolesClaim', 'jwt.') ?? 'roles';
  return {
    key,
    algorithms,
    issuer: text(value, 'issuer', 'jwt.'),
    audience: text(value, 'audience', 'jwt.'),
    clockTolerance: profileInteger(value, 'clockTolerance', 0, 0, 24 * 60 * 60, 'server.auth.jwt'),
    rolesClaim,
  };
}

function apiKeySettings(entry: unknown, index: number, names: Set<string>): ApiKeySettings {
  const where = `apiKeys[${index}]`;
  if (!isPlainObject(entry)) throw invalid(where, 'must be a mapping (name, sha256, roles, claims)');
  const name = text(entry, 'name', `${where}.`);
  if (name === undefined) throw invalid(`${where}.name`, 'is required');
  if (names.has(name)) throw invalid(`${where}.name`, `repeats the name '${name}'`);
  names.add(name);
  const sha256 = text(entry, 'sha256', `${where}.`);
  if (sha256 === undefined) throw invalid(`${where}.sha256`, 'is required: the hex SHA-256 of the key (the key itself never goes in a profile)');
  if (!/^[0-9a-f]{64}$/i.test(sha256)) throw invalid(`${where}.sha256`, 'must be 64 hexadecimal digits (the SHA-256 of the key)');
  const claims = entry.claims ?? {};
  if (!isPlainObject(claims)) throw invalid(`${where}.claims`, 'must be a mapping of claim names to values');
  return {
    name,
    digest: Buffer.from(sha256, 'hex'),
    roles: entry.roles === undefined ? [] : stringList(entry.roles, `${where}.roles`),
    // The key's name is its subject, whatever its claims say: {{auth.sub}}, req.auth.subject and
    // the rate limit's key all name the same caller.
    claims: deepFreeze({ ...structuredClone(claims), sub: name }),
  };
}

/** `apiKeys`: a list of keys, or `{ header, keys }` to take them from another header. */
function apiKeysSection(value: unknown): { header: string; keys: ApiKeySettings[] } {
  if (value === undefined || value === null) return { header: defaultApiKeyHeader, keys: [] };
  const section = isPlainObject(value) ? value : { keys: value };
  const header = text(section, 'header', 'apiKeys.') ?? defaultApiKeyHeader;
  if (!/^[A-Za-z0-9-]+$/.test(header) || header.toLowerCase() === 'authorization') throw invalid('apiKeys.header', 'must be a header name other than Authorization');
  if (!Array.isArray(section.keys)) throw invalid('apiKeys', 'must be a list of keys (name, sha256, roles, claims), or a mapping with header and keys');
  const names = new Set<string>();
  return { header: header.toLowerCase(), keys: section.keys.map((entry, index) => apiKeySettings(entry, index, names)) };
}

/**
 * `server.auth` of a profile, checked; undefined when absent (every endpoint stays open).
 * `baseDir` resolves a `publicKey` given as a file path.
 */
export function authSettings(value: unknown, baseDir: string): AuthSettings | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw new SqlResourceError('CONFIG_INVALID', 'profile: server.auth must be a mapping (jwt, apiKeys)');
  const jwt = value.jwt === undefined || value.jwt === null ? undefined : jwtSettings(value.jwt, baseDir);
  const apiKeys = apiKeysSection(value.apiKeys);
  if (jwt === undefined && apiKeys.keys.length === 0) throw new SqlResourceError('CONFIG_INVALID', 'profile: server.auth needs jwt or apiKeys');
  return { jwt, apiKeyHeader: apiKeys.header, apiKeys: apiKeys.keys };
}
