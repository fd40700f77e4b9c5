import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSigner } from 'fast-jwt';
import { createApp, type App, type Profile, type SqlResourceError } from '../../src';
import { startedApps } from '../support/apps';
import { spawnCli, waitForLine } from '../support/cli';
import { call } from '../support/http';
import { profileFiles } from '../support/profile-files';
import { kinds, resourceConfig, type Kind } from '../support/servers';
import { sendRaw } from './fixtures/raw-http';

/**
 * `server.auth` against hostile credentials (SPEC §7): each case is refused with the exact
 * status, nok envelope and `WWW-Authenticate` challenge, and a good credential on the same
 * endpoint gets 200, so every refusal is the credential's doing. Tokens are issued with
 * fast-jwt's signer; the hostile ones are re-encoded by hand.
 */

const realm = 'orders-api';
const challenge = `Bearer realm="${realm}"`;
const invalidToken = `${challenge}, error="invalid_token"`;
const secret = 'sr-test-hs256-secret-WOMBAT-0123456789abcdef';
const issuer = 'https://id.example.com/';
const audience = 'orders-api';
const apiKey = 'sr-test-api-key-NUMBAT-7f3a9c2e';
const wrongApiKey = `${apiKey.slice(0, -1)}f`;
const needsCredential = 'this endpoint needs a credential: a bearer token or an API key';
const malformed = 'malformed Authorization header: send Authorization: Bearer <token> or x-api-key: <key>';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const pemOf = (key: KeyObject): string => key.export({ type: 'spki', format: 'pem' }).toString();
const privatePemOf = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

/** Claims a strict profile accepts: right issuer and audience, an hour to live. */
function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { sub: 'alice', iss: issuer, aud: audience, roles: ['reader'], exp: nowSeconds() + 3600, ...extra };
}

function hs256(payload: Record<string, unknown>, key: string = secret): string {
  return createSigner({ key, algorithm: 'HS256' })(payload);
}

function signWith(privateKey: KeyObject, algorithm: 'RS256' | 'PS256' | 'ES256' | 'EdDSA', payload: Record<string, unknown>, kid?: string): string {
  return createSigner({ key: privatePemOf(privateKey), algorithm, kid })(payload);
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

interface Outcome {
  status: number;
  body: unknown;
  challenge: string | null;
}

async function get(app: App, path: string, headers: Record<string, string> = {}): Promise<Outcome> {
  const answer = await call(app, 'GET', path, undefined, headers);
  return { status: answer.status, body: answer.body, challenge: answer.headers.get('www-authenticate') };
}

/** What a refused credential gets: 401, the envelope and the challenge (with `error=` when a token was sent). */
const unauthorized = (message: string, tokenSent: boolean): Outcome => ({
  status: 401,
  body: { code: 'nok', error: 'UNAUTHORIZED', message },
  challenge: tokenSent ? invalidToken : challenge,
});
const forbidden: Outcome = { status: 403, body: { code: 'nok', error: 'FORBIDDEN', message: 'the caller has none of the roles this endpoint needs' }, challenge: null };
const ok = (path: string): Outcome => ({ status: 200, body: { code: 'ok', message: `list ${path}`, data: [{ up: 1 }], total: 1 }, challenge: null });
const up = ok('/up');

const nightly = { name: 'nightly', sha256: sha256(apiKey), roles: ['reader'], claims: { tenant: 7 } };

function profile(kind: Kind, auth: Record<string, unknown>): Profile {
  return {
    name: realm,
    resources: { db: resourceConfig(kind, {}, { keepAliveInterval: 0 }) },
    server: {
      auth,
      endpoints: [
        { path: '/up', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS up' },
        { path: '/me', endpoint: 'list', resource: 'db', sql: "SELECT u.name FROM (SELECT 'alice' AS name UNION ALL SELECT 'bob' AS name) u WHERE u.name = {{auth.sub}}" },
        { path: '/tenant', endpoint: 'list', resource: 'db', sql: 'SELECT t.id FROM (SELECT 7 AS id UNION ALL SELECT 8 AS id) t WHERE t.id = {{auth.tenant}}' },
        { path: '/writers', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS up', roles: ['writer'] },
      ],
    },
  } as Profile;
}

const { start, stopAll } = startedApps();
afterAll(stopAll);

/** What `createApp` throws for a profile. */
function profileError(source: Profile): SqlResourceError {
  try {
    createApp(source);
  } catch (error) {
    return error as SqlResourceError;
  }
  throw new Error('createApp accepted the profile');
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = pemOf(rsa.publicKey);

describe.each(kinds)('%s: bearer tokens with a secret', (kind: Kind) => {
  let strict: App;
  let lenient: App;

  beforeAll(async () => {
    strict = await start(profile(kind, { jwt: { secret, issuer, audience }, apiKeys: [nightly] }));
    lenient = await start(profile(kind, { jwt: { secret, clockTolerance: 30, rolesClaim: 'realm_access.roles' } }));
  });

  it('answers a good token 200, with its subject bound as {{auth.sub}}', async () => {
    expect(await get(strict, '/up', bearer(hs256(claims())))).toEqual(up);
    const me = await call(strict, 'GET', '/me', undefined, bearer(hs256(claims({ sub: 'bob' }))));
    expect([me.status, me.body.data]).toEqual([200, [{ name: 'bob' }]]);
  });

  it('answers no credential 401 with a challenge that names the realm', async () => {
    expect(await get(strict, '/up')).toEqual(unauthorized(needsCredential, false));
  });

  it.each([
    ['an empty signature', (): string => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims())}.`, 'invalid token: it cannot be verified'],
    ['the signature of a good token', (): string => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims())}.${hs256(claims()).split('.')[2]}`, 'invalid token: the token algorithm is not accepted'],
  ])('refuses an alg: none token with %s (401)', async (_title, token, message) => {
    expect(await get(strict, '/up', bearer(token()))).toEqual(unauthorized(message, true));
  });

  it('refuses a token signed with another secret (401)', async () => {
    const token = hs256(claims(), 'another-secret-of-at-least-32-bytes-long');
    expect(await get(strict, '/up', bearer(token))).toEqual(unauthorized('invalid token: the token signature is not valid', true));
  });

  it('refuses an expired token (401); clockTolerance: 30 lets one expired 10 s ago pass, not one expired 60 s ago', async () => {
    const tenSecondsAgo = claims({ exp: nowSeconds() - 10 });
    expect(await get(strict, '/up', bearer(hs256(tenSecondsAgo)))).toEqual(unauthorized('invalid token: the token has expired', true));
    expect(await get(lenient, '/up', bearer(hs256(tenSecondsAgo)))).toEqual(up);
    expect(await get(lenient, '/up', bearer(hs256(claims({ exp: nowSeconds() - 60 }))))).toEqual(unauthorized('invalid token: the token has expired', true));
  });

  it('refuses a token once it expires, though it was accepted (and remembered) before; the clock tolerance counts', async () => {
    const token = hs256(claims({ exp: nowSeconds() + 60 }));
    expect(await get(strict, '/up', bearer(token))).toEqual(up);
    expect(await get(lenient, '/up', bearer(token))).toEqual(up);
    const realNow = Date.now;
    const clock = jest.spyOn(Date, 'now');
    try {
      clock.mockImplementation(() => realNow() + 75_000);
      expect(await get(strict, '/up', bearer(token))).toEqual(unauthorized('invalid token: the token has expired', true));
      // 15 s past exp, within lenient's 30 s of tolerance; 45 s past it, beyond.
      expect(await get(lenient, '/up', bearer(token))).toEqual(up);
      clock.mockImplementation(() => realNow() + 105_000);
      expect(await get(lenient, '/up', bearer(token))).toEqual(unauthorized('invalid token: the token has expired', true));
    } finally {
      clock.mockRestore();
    }
  });

  it('refuses a token whose nbf is in the future (401)', async () => {
    const token = hs256(claims({ nbf: nowSeconds() + 600 }));
    expect(await get(strict, '/up', bearer(token))).toEqual(unauthorized('invalid token: the token is not valid yet (nbf)', true));
  });

  it.each([
    ['a wrong iss', { iss: 'https://evil.example.com/' }],
    ['a wrong aud', { aud: 'billing-api' }],
    ['an aud list without ours', { aud: ['billing-api', 'hr-api'] }],
  ])('refuses a token with %s when issuer and audience are configured (401)', async (_title, extra) => {
    expect(await get(strict, '/up', bearer(hs256(claims(extra))))).toEqual(unauthorized('invalid token: the token issuer or audience is not accepted', true));
  });

  it.each([
    ['no iss', 'iss'],
    ['no aud', 'aud'],
  ])('refuses a token with %s when issuer and audience are configured (401)', async (_title, left) => {
    const rest = claims();
    delete rest[left];
    expect(await get(strict, '/up', bearer(hs256(rest)))).toEqual(unauthorized('invalid token: the token issuer or audience is not accepted', true));
  });

  it('accepts the configured issuer with an aud list that holds the audience', async () => {
    expect(await get(strict, '/up', bearer(hs256(claims({ aud: ['billing-api', audience] }))))).toEqual(up);
  });

  it('refuses a token whose payload was changed after signing (401)', async () => {
    const [header, , signature] = hs256(claims()).split('.');
    const forged = `${header}.${base64url(claims({ roles: ['writer'] }))}.${signature}`;
    expect(await get(strict, '/writers', bearer(forged))).toEqual(unauthorized('invalid token: the token signature is not valid', true));
    expect(await get(strict, '/writers', bearer(hs256(claims({ roles: ['writer'] }))))).toEqual(ok('/writers'));
  });

  it('refuses a 100 KB token before routing: Node answers 431 HEADERS_TOO_LARGE in the envelope', async () => {
    const token = hs256(claims({ padding: 'p'.repeat(100 * 1024) }));
    const answer = await sendRaw(strict.address()?.port as number, `GET /up HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([431, { code: 'nok', error: 'HEADERS_TOO_LARGE', message: 'the request headers are too large' }]);
  });

  it('refuses a ~20 KB token: Node (16 KiB of headers) answers 431; past Node, the 16 KiB cap answers 401', async () => {
    // Validly signed: only its size is wrong.
    const token = hs256(claims({ padding: 'p'.repeat(15 * 1024) }));
    expect(token.length).toBeGreaterThan(20 * 1000);
    const answer = await sendRaw(strict.address()?.port as number, `GET /up HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([431, { code: 'nok', error: 'HEADERS_TOO_LARGE', message: 'the request headers are too large' }]);
    // inject has no header limit: what a server with a larger --max-http-header-size would see.
    const http = strict.http as NonNullable<App['http']>;
    const injected = await http.inject({ method: 'GET', url: '/up', headers: bearer(token) });
    expect({ status: injected.statusCode, body: injected.json() as unknown, challenge: injected.headers['www-authenticate'] }).toEqual(
      unauthorized('invalid token: it is too long', true),
    );
    const small = await http.inject({ method: 'GET', url: '/up', headers: bearer(hs256(claims())) });
    expect(small.statusCode).toBe(200);
  });

  it.each(['access_token', 'token', 'authorization'])('ignores a token in the query string (?%s=…): 401', async (name) => {
    const token = hs256(claims());
    const value = name === 'authorization' ? `Bearer ${token}` : token;
    expect(await get(strict, `/up?${name}=${encodeURIComponent(value)}`)).toEqual(unauthorized(needsCredential, false));
  });

  it.each([
    ['Bearer (no token)', (): string => 'Bearer', true],
    ['Basic x', (): string => 'Basic x', false],
    ['Bearer a b', (): string => 'Bearer a b', true],
    ['two bearer tokens in one header', (): string => `Bearer ${hs256(claims())}, Bearer ${hs256(claims())}`, true],
  ])('refuses a malformed Authorization header: %s (401)', async (_title, header, tokenSent) => {
    expect(await get(strict, '/up', { authorization: header() })).toEqual(unauthorized(malformed, tokenSent));
  });

  it('needs one of the roles of an endpoint: reader 403, writer 200, none 403', async () => {
    expect(await get(strict, '/writers', bearer(hs256(claims({ roles: ['reader'] }))))).toEqual(forbidden);
    expect((await get(strict, '/writers', bearer(hs256(claims({ roles: ['reader', 'writer'] }))))).status).toBe(200);
    const noRoles = claims();
    delete noRoles.roles;
    expect(await get(strict, '/writers', bearer(hs256(noRoles)))).toEqual(forbidden);
  });

  it('reads the roles at a dotted rolesClaim (realm_access.roles), not at roles', async () => {
    expect((await get(lenient, '/writers', bearer(hs256(claims({ roles: [], realm_access: { roles: ['writer'] } }))))).status).toBe(200);
    expect(await get(lenient, '/writers', bearer(hs256(claims({ roles: ['writer'], realm_access: { roles: ['reader'] } }))))).toEqual(forbidden);
  });
});

describe.each(kinds)('%s: API keys', (kind: Kind) => {
  let app: App;
  let otherHeader: App;

  beforeAll(async () => {
    app = await start(profile(kind, { jwt: { secret }, apiKeys: [nightly] }));
    otherHeader = await start(profile(kind, { apiKeys: { header: 'X-Export-Key', keys: [nightly] } }));
  });

  it('answers the right key in X-API-Key 200, its claims bound as {{auth.tenant}}', async () => {
    const answer = await call(app, 'GET', '/tenant', undefined, { 'x-api-key': apiKey });
    expect([answer.status, answer.body.data]).toEqual([200, [{ id: 7 }]]);
    const me = await call(app, 'GET', '/me', undefined, { 'x-api-key': apiKey });
    // The subject of a key is its name: no row is 'nightly'.
    expect([me.status, me.body.data]).toEqual([200, []]);
  });

  it("keeps the key's name as its subject, whatever sub its claims set", async () => {
    const renamed = await start(profile(kind, { apiKeys: [{ ...nightly, claims: { tenant: 7, sub: 'alice' } }] }));
    const me = await call(renamed, 'GET', '/me', undefined, { 'x-api-key': apiKey });
    // 'alice' is a row of /me: a key claiming her name would read it.
    expect([me.status, me.body.data]).toEqual([200, []]);
  });

  it('refuses a key that differs in its last character (401)', async () => {
    expect(wrongApiKey).not.toBe(apiKey);
    expect(await get(app, '/up', { 'x-api-key': wrongApiKey })).toEqual(unauthorized('invalid API key', false));
  });

  it.each(['api_key', 'x-api-key', 'apiKey'])('ignores a key in the query string (?%s=…): 401', async (name) => {
    expect(await get(app, `/up?${name}=${apiKey}`)).toEqual(unauthorized(needsCredential, false));
  });

  it('refuses a request carrying both a bearer token and an API key (401)', async () => {
    const both = { ...bearer(hs256(claims())), 'x-api-key': apiKey };
    expect(await get(app, '/up', both)).toEqual(unauthorized('send one credential: a bearer token or an API key, not both', false));
  });

  it("answers 403 when the key's roles lack the endpoint's", async () => {
    expect(await get(app, '/writers', { 'x-api-key': apiKey })).toEqual(forbidden);
  });

  it('reads the header that apiKeys.header names, and not X-API-Key', async () => {
    const answer = await call(otherHeader, 'GET', '/tenant', undefined, { 'x-export-key': apiKey });
    expect([answer.status, answer.body.data]).toEqual([200, [{ id: 7 }]]);
    expect(await get(otherHeader, '/up', { 'x-api-key': apiKey })).toEqual(unauthorized(needsCredential, false));
    expect(await get(otherHeader, '/up', { 'x-export-key': wrongApiKey })).toEqual(unauthorized('invalid API key', false));
  });
});

describe.each(kinds)('%s: a public key against algorithm confusion', (kind: Kind) => {
  let app: App;

  beforeAll(async () => {
    app = await start(profile(kind, { jwt: { publicKey: rsaPem } }));
  });

  it('accepts an RS256 token of the key (200)', async () => {
    expect(await get(app, '/up', bearer(signWith(rsa.privateKey, 'RS256', claims())))).toEqual(up);
  });

  it("refuses an HS256 token whose HMAC secret is the public key's PEM text (401)", async () => {
    const token = hs256(claims(), rsaPem);
    expect(await get(app, '/up', bearer(token))).toEqual(unauthorized('invalid token: the token algorithm is not accepted', true));
  });

  it('refuses a profile that allows HS256 with a public key', () => {
    const error = profileError(profile(kind, { jwt: { publicKey: rsaPem, algorithms: ['HS256'] } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('server.auth.jwt.algorithms: holds HS256, which this public key cannot verify');
  });
});

describe('public keys of each type verify their algorithm (mysql)', () => {
  const cases = [
    { algorithm: 'RS256', pair: rsa, other: (): KeyObject => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey },
    { algorithm: 'PS256', pair: rsa, other: (): KeyObject => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey },
    { algorithm: 'ES256', pair: generateKeyPairSync('ec', { namedCurve: 'P-256' }), other: (): KeyObject => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey },
    { algorithm: 'EdDSA', pair: generateKeyPairSync('ed25519'), other: (): KeyObject => generateKeyPairSync('ed25519').privateKey },
  ] as const;

  it.each(cases)('$algorithm: a token of the key gets 200, one of another key of its type 401', async ({ algorithm, pair, other }) => {
    const app = await start(profile('mysql', { jwt: { publicKey: pemOf(pair.publicKey) } }));
    expect(await get(app, '/up', bearer(signWith(pair.privateKey, algorithm, claims())))).toEqual(up);
    expect(await get(app, '/up', bearer(signWith(other(), algorithm, claims())))).toEqual(unauthorized('invalid token: the token signature is not valid', true));
  });
});

/** A JSON Web Key Set on loopback that counts its fetches. */
interface KeyServer {
  readonly url: string;
  readonly fetches: () => number;
  add(kid: string, publicKey: KeyObject): void;
  /** Answers each later fetch after `ms`. */
  slow(ms: number): void;
  close(): Promise<void>;
}

async function keyServer(): Promise<KeyServer> {
  const keys: Record<string, unknown>[] = [];
  let fetches = 0;
  let delay = 0;
  const server: Server = createServer((request, response) => {
    if (request.url !== '/jwks.json') return void response.writeHead(404).end();
    fetches += 1;
    const body = JSON.stringify({ keys });
    setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(body), delay);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    fetches: () => fetches,
    add: (kid, publicKey) => void keys.push({ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }),
    slow: (ms) => void (delay = ms),
    close: () => new Promise((closed) => server.close(() => closed())),
  };
}

describe.each(kinds)('%s: a JSON Web Key Set', (kind: Kind) => {
  const first = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const second = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const noKey = 'invalid token: no key verifies the token';
  let keys: KeyServer;
  let app: App;

  beforeEach(async () => {
    keys = await keyServer();
    keys.add('k1', first.publicKey);
    app = await start(profile(kind, { jwt: { jwks: keys.url } }));
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await app.stop();
    await keys.close();
  });

  /** Moves `performance.now()` (the cooldown's clock) forward, for the rest of the test. */
  function advanceClock(ms: number): void {
    const now = performance.now.bind(performance);
    jest.spyOn(performance, 'now').mockImplementation(() => now() + ms);
  }

  const token = (kid: string, sub = 'alice'): string => signWith(kid === 'k2' ? second.privateKey : first.privateKey, 'ES256', claims({ sub }), kid);

  it('verifies a token whose kid is in the set, fetching the set once on first use', async () => {
    expect(keys.fetches()).toBe(0);
    expect(await get(app, '/up', bearer(token('k1')))).toEqual(up);
    expect(await get(app, '/up', bearer(token('k1', 'bob')))).toEqual(up);
    expect(keys.fetches()).toBe(1);
  });

  it('answers every one of concurrent first requests with known kids 200, from one (slow) fetch', async () => {
    // All of them arrive while the first-use fetch is under way: each waits for it.
    keys.slow(200);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => get(app, '/up', bearer(token('k1', `user${index}`)))));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(keys.fetches()).toBe(1);
  });

  it('refuses an unknown kid (401); 100 concurrent unknown kids cause at most one fetch per 30 s', async () => {
    expect(await get(app, '/up', bearer(token('k1')))).toEqual(up);
    expect(await get(app, '/up', bearer(token('unknown-0')))).toEqual(unauthorized(noKey, true));
    // Within the cooldown of the first-use fetch: no fetch at all.
    const flood = async (round: string): Promise<number[]> =>
      (await Promise.all(Array.from({ length: 100 }, (_, index) => get(app, '/up', bearer(token(`unknown-${round}-${index}`)))))).map((answer) => answer.status);
    expect(await flood('a')).toEqual(Array.from({ length: 100 }, () => 401));
    expect(keys.fetches()).toBe(1);
    // Past the cooldown: the flood makes exactly one more fetch.
    advanceClock(31_000);
    expect(await flood('b')).toEqual(Array.from({ length: 100 }, () => 401));
    expect(keys.fetches()).toBe(2);
  });

  it('picks up a rotated key only after the 30 s cooldown since the last fetch', async () => {
    expect(await get(app, '/up', bearer(token('k1')))).toEqual(up);
    keys.add('k2', second.publicKey);
    // Fetched less than 30 s ago: the new kid is not looked for yet.
    expect(await get(app, '/up', bearer(token('k2')))).toEqual(unauthorized(noKey, true));
    expect(keys.fetches()).toBe(1);
    advanceClock(31_000);
    // The refetch is under way when the other requests with the new kid arrive: they wait for it.
    keys.slow(200);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => get(app, '/up', bearer(token('k2', `user${index}`)))));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(await get(app, '/up', bearer(token('k1', 'bob')))).toEqual(up);
    expect(keys.fetches()).toBe(2);
  });
});

describe('server.auth profile errors name the key, never the value', () => {
  const jwtProfile = (auth: Record<string, unknown>): Profile => profile('mysql', auth);

  it.each([
    ['a secret shorter than 32 bytes', { jwt: { secret: 'short-PLATYPUS-1' } }, 'server.auth.jwt.secret', 'must be at least 32 bytes', 'PLATYPUS'],
    ['algorithms: [none]', { jwt: { secret: 'a-long-enough-secret-ECHIDNA-0123456789', algorithms: ['none'] } }, 'server.auth.jwt.algorithms', "cannot hold 'none'", 'ECHIDNA'],
    [
      'both secret and jwks',
      { jwt: { secret: 'a-long-enough-secret-QUOKKA-0123456789', jwks: 'http://127.0.0.1:1/jwks.json' } },
      'server.auth.jwt',
      'needs exactly one of secret, publicKey or jwks',
      'QUOKKA',
    ],
    ['an apiKeys sha256 that is not 64 hex digits', { apiKeys: [{ name: 'nightly', sha256: 'not-a-digest-BILBY-0123' }] }, 'server.auth.apiKeys[0].sha256', 'must be 64 hexadecimal digits', 'BILBY'],
    // Whoever sits on the path of a plain-http key set could serve keys of their own and sign any token.
    ['a key set over plain http to another machine', { jwt: { jwks: 'http://keys.example.com/WALLABY/jwks.json' } }, 'server.auth.jwt.jwks', 'must be the https URL of a JSON Web Key Set \\(http only on a loopback address\\)', 'WALLABY'],
  ])('%s', (_title, auth, key, problem, value) => {
    const error = profileError(jwtProfile(auth));
    expect(error.code).toBe('CONFIG_INVALID');
    // `<key>: <problem>` once located in the profile; `profile: <key> <problem>` when not (an index in the key).
    expect(error.message).toMatch(new RegExp(`${key.replace(/[.[\]]/g, '\\$&')}:? ${problem}`));
    expect(`${error.message}\n${error.stack ?? ''}`).not.toContain(value);
  });
});

describe('key sets a profile may name', () => {
  it.each(['https://keys.example.com/jwks.json', 'http://127.0.0.1:8443/jwks.json', 'http://localhost/jwks.json', 'http://[::1]:9000/jwks.json'])('accepts %s', (jwks) => {
    // Building the app fetches nothing: the set is fetched on the first token.
    expect(createApp(profile('mysql', { jwt: { jwks } })).name).toBe(realm);
  });
});

describe('serve with DEBUG=* never logs a credential', () => {
  const files = profileFiles('sr-auth-logs-');

  it('keeps tokens, keys and the secret out of stdout and stderr across 200, 401, 404 and 400', async () => {
    const path = files.write(
      JSON.stringify({
        name: realm,
        resources: { db: resourceConfig('mysql', {}, { keepAliveInterval: 0 }) },
        server: {
          auth: { jwt: { secret }, apiKeys: [nightly] },
          endpoints: [
            { path: '/up', endpoint: 'list', resource: 'db', sql: 'SELECT 1 AS up' },
            { path: '/me', endpoint: 'list', resource: 'db', sql: "SELECT u.name FROM (SELECT 'alice' AS name) u WHERE u.name = {{auth.sub}}" },
            { path: '/echo', endpoint: 'list', resource: 'db', sql: "SELECT u.name FROM (SELECT 'alice' AS name) u WHERE u.name = {{name}}" },
          ],
        },
      }),
    );
    const child = spawnCli(['serve', path, '--port', '0'], { ...process.env, DEBUG: '*' });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/\S+)/);
      const good = hs256({ sub: 'alice', roles: ['reader'] });
      const forged = hs256({ sub: 'alice' }, 'another-secret-of-at-least-32-bytes-long');
      const expired = hs256({ sub: 'alice', exp: nowSeconds() - 60 });
      const requests: [string, Record<string, string>][] = [
        ['/me', bearer(good)],
        ['/up', bearer(forged)],
        ['/up', bearer(expired)],
        ['/up', { 'x-api-key': apiKey }],
        ['/up', { 'x-api-key': wrongApiKey }],
        ['/nowhere', bearer(good)],
        ['/echo', bearer(good)],
        [`/echo?access_token=${good}`, {}],
      ];
      const statuses: number[] = [];
      for (const [path_, headers] of requests) statuses.push((await fetch(`${url}${path_}`, { headers })).status);
      expect(statuses).toEqual([200, 401, 401, 200, 401, 404, 400, 401]);
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      // The capture works: the statements of the requests are in the debug output.
      expect(output).toContain('sql-resources:mysql:db:sql');
      expect(output).toContain('SELECT 1 AS up');
      // …and so is what the good token proved: its subject, bound as {{auth.sub}}.
      expect(output).toMatch(/sql-resources:mysql:db:params \[ ?'alice' ?\]/);
      const secrets = [good, forged, expired, ...[good, forged, expired].map((token) => token.split('.')[2]), apiKey, wrongApiKey, secret];
      expect(secrets.filter((value) => output.includes(value))).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
