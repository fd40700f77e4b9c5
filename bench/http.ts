/**
 * Part 2: the host serving a profile against a hand-written fastify + driver server, both in
 * child processes, loaded by autocannon from this process. Standalone:
 * `node node_modules/.cache/sql-resources-bench/bench/http.js` after `tsc -p bench/tsconfig.json`.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createSigner } from 'fast-jwt';
import { mysqlDialect } from '../src/dialects/mysql/dialect';
import { postgresDialect } from '../src/dialects/postgres/dialect';
import { buildList } from '../src/sql-builder';
import { compileTemplate } from '../src/template';
import type { Profile } from '../src/host/profile';
import { ServerChild } from './child';
import { intFromEnv, listFromEnv } from './env';
import { BenchTable } from './fixtures';
import { handWrittenSql, pageCursorSecret, pageLimit } from './hand-written-server';
import { table as textTable } from './report';
import { runStandalone } from './standalone';
import { poolSize, quote, servers, uniqueTable, type Kind } from './servers';
import { Samples, median, ratio, round, type Summary } from './stats';

export const httpEndpoints = ['get', 'post', 'list', 'get-jwt', 'page'] as const;
export type HttpEndpoint = (typeof httpEndpoints)[number];

/**
 * Host ÷ baseline req/s each endpoint must reach; list has none. The baseline is the
 * hand-written server, except for `get-jwt`: the host's GET by id behind an HS256 JWT against
 * the same GET on the same host without `server.auth`, in the same run (SPEC §7, issue 12).
 * `page`: a page of 100 rows of a table list by keyset cursor (SPEC §8).
 */
export const httpTargets: Partial<Record<HttpEndpoint, number>> = { get: 0.85, post: 0.85, 'get-jwt': 0.9, page: 0.85 };

/** The secret of the `get-jwt` host; only this bench's tokens are signed with it. */
const benchJwtSecret = 'bench-secret-of-at-least-thirty-two-bytes';
/** Distinct tokens the `get-jwt` load cycles through: each is verified once, then found in fast-jwt's cache. */
const benchTokenCount = 100;

export interface HttpSettings {
  endpoints: HttpEndpoint[];
  /** Seeded rows of the bench table; GET picks a random id among them. */
  rows: number;
  connections: number;
  /** Measured rounds per side; sides alternate, and which goes first alternates too. */
  rounds: number;
  roundMs: number;
  /** Unmeasured load of each side before its rounds. */
  warmupMs: number;
  /** Run this side's child under `node --cpu-prof` (profiles written to `cpuProfDir`). */
  cpuProf?: 'host' | 'hand';
  cpuProfDir: string;
}

export function httpSettingsFromEnv(): HttpSettings {
  const cpuProf = process.env.BENCH_CPU_PROF;
  if (cpuProf !== undefined && cpuProf !== '' && cpuProf !== 'host' && cpuProf !== 'hand') throw new Error('BENCH_CPU_PROF must be host or hand');
  return {
    endpoints: listFromEnv('BENCH_HTTP_ENDPOINTS', httpEndpoints),
    rows: 10_000,
    connections: intFromEnv('BENCH_HTTP_CONNECTIONS', 64),
    rounds: intFromEnv('BENCH_HTTP_ROUNDS', 4),
    roundMs: intFromEnv('BENCH_HTTP_ROUND_MS', 2000),
    warmupMs: intFromEnv('BENCH_HTTP_WARMUP_MS', 1000),
    cpuProf: cpuProf || undefined,
    cpuProfDir: process.env.BENCH_CPU_PROF_DIR ?? join(tmpdir(), 'sql-resources-bench-profiles'),
  };
}

/** One side's figures; `cpuMicrosPerOp` is the server process's CPU per request. */
export interface HttpSide extends Summary {
  /** Mean response size (headers and body), bytes. */
  bytesPerResponse: number;
}

export interface HttpResult {
  kind: Kind;
  endpoint: HttpEndpoint;
  /** What `handWritten` measured: the hand-written server, or the host without auth (`get-jwt`). */
  baseline: 'hand-written' | 'host without auth';
  host: HttpSide;
  handWritten: HttpSide;
  /** host ÷ hand-written req/s: the median over round pairs of the ratio within the pair. */
  ratio: number;
  /** host ÷ hand-written req/s over all rounds together. */
  ratioOfTotals: number;
  roundRatios: number[];
  target?: number;
}

function randomId(rows: number): number {
  return 1 + Math.floor(Math.random() * rows);
}

/** The profile the host serves: the same endpoints as the hand-written server; with `auth`, behind an HS256 JWT. */
export function httpProfile(kind: Kind, table: string, listSql: string, server: Record<string, unknown> = {}, auth = false): Profile {
  return {
    name: `bench-http-${kind}`,
    resources: { db: { _class: kind, server: { ...servers[kind], ...server } } },
    server: {
      ...(auth ? { auth: { jwt: { secret: benchJwtSecret, algorithms: ['HS256'] } } } : {}),
      cursorSecret: pageCursorSecret,
      endpoints: [
        { path: '/items/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
        { path: '/items', endpoint: 'create', resource: 'db', table, id_field: 'id' },
        { path: '/list', endpoint: 'list', resource: 'db', sql: listSql },
        { path: '/page', endpoint: 'list', resource: 'db', table, page: { defaultLimit: pageLimit, maxLimit: 1000 } },
      ],
    },
  };
}

function benchTokens(): string[] {
  const sign = createSigner({ key: benchJwtSecret, algorithm: 'HS256', expiresIn: 60 * 60 * 1000 });
  return Array.from({ length: benchTokenCount }, (_, index) => sign({ sub: `bench-user-${index}`, roles: ['reader'] }));
}

/** `pages`: paths of `/page` with the host's cursors (`page.next` of the walk from the first page). */
function requestOf(endpoint: HttpEndpoint, rows: number, tokens: readonly string[], pages: readonly string[]): autocannon.Request {
  let serial = 0;
  switch (endpoint) {
    case 'get':
      return { method: 'GET', setupRequest: (request) => ({ ...request, path: `/items/${randomId(rows)}` }) };
    case 'get-jwt':
      // Both sides get the header; the host without server.auth ignores it, so only verification differs.
      return {
        method: 'GET',
        setupRequest: (request) => ({
          ...request,
          path: `/items/${randomId(rows)}`,
          headers: { ...request.headers, authorization: `Bearer ${tokens[Math.floor(Math.random() * tokens.length)]}` },
        }),
      };
    case 'post':
      return {
        method: 'POST',
        path: '/items',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          serial += 1;
          return { ...request, body: JSON.stringify({ name: `http-${process.pid}-${serial}`, qty: serial % 97, price: 9.99, note: 'inserted by the bench' }) };
        },
      };
    case 'list':
      return {
        method: 'GET',
        setupRequest: (request) => {
          const low = randomId(rows - 99);
          return { ...request, path: `/list?from=${low}&to=${low + 99}` };
        },
      };
    case 'page':
      return { method: 'GET', setupRequest: (request) => ({ ...request, path: pages[Math.floor(Math.random() * pages.length)] }) };
  }
}

interface Side {
  name: 'host' | 'handWritten' | 'hostWithoutAuth';
  child: ServerChild;
  samples: Samples;
  bytes: number;
}

/**
 * Loads one server with autocannon for `ms`; answers its rate (2xx responses per second).
 * With `into`, latencies, counts, bytes and the server's CPU go there. Any error, timeout or
 * non-2xx answer fails the bench: errors must not count as throughput.
 */
async function fire(side: Side, request: autocannon.Request, connections: number, ms: number, into?: Side): Promise<number> {
  const cpuBefore = into ? await side.child.cpuMicros() : 0;
  let ok = 0;
  let bytes = 0;
  const startedAt = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: `http://127.0.0.1:${side.child.port}`, connections, duration: ms / 1000, requests: [request] },
      (error, answer) => (error ? reject(error) : resolve(answer)),
    );
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      if (statusCode < 200 || statusCode > 299) return;
      ok += 1;
      bytes += resBytes;
      into?.samples.add(responseTime);
    });
  });
  const elapsedMs = performance.now() - startedAt;
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`${side.name} on port ${side.child.port}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
  }
  if (into) {
    into.samples.ops += ok;
    into.samples.elapsedMs += elapsedMs;
    into.samples.cpuMicros += (await side.child.cpuMicros()) - cpuBefore;
    into.bytes += bytes;
  }
  return (ok * 1000) / elapsedMs;
}

async function get(port: number, path: string, init: RequestInit = {}): Promise<{ status: number; body: string; range: string | null }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, init);
  return { status: response.status, body: await response.text(), range: response.headers.get('content-range') };
}

/**
 * The host's `/page` from the first page to the last by `page.next`: the paths of every page after
 * the first, each with a cursor the host made.
 */
async function walkPages(host: ServerChild): Promise<string[]> {
  const pages: string[] = [];
  for (let path: string | undefined = '/page'; path !== undefined; ) {
    const answer = await get(host.port, path);
    if (answer.status !== 200) throw new Error(`GET ${path} on the host: ${answer.status} ${answer.body.slice(0, 300)}`);
    path = (JSON.parse(answer.body) as { page: { next?: string } }).page.next;
    if (path !== undefined) pages.push(path);
  }
  return pages;
}

/** Both servers answer the same bytes (and Content-Range) for the same row, range and page, and the same shape for a create. */
async function checkSameAnswers(host: ServerChild, hand: ServerChild, pages: readonly string[]): Promise<void> {
  for (const path of ['/items/42', '/list?from=100&to=199', pages[0], pages[pages.length >> 1], pages[pages.length - 1]]) {
    const [a, b] = await Promise.all([get(host.port, path), get(hand.port, path)]);
    if (a.status !== 200 || b.status !== 200 || a.body !== b.body || a.range !== b.range) {
      throw new Error(
        `GET ${path}: the host answered ${a.status} (Content-Range ${a.range}) ${a.body.slice(0, 200)}… ` +
          `and the hand-written server ${b.status} (Content-Range ${b.range}) ${b.body.slice(0, 200)}…`,
      );
    }
  }
  const post = (port: number): Promise<{ status: number; body: string }> =>
    get(port, '/items', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'check', qty: 1, price: 9.99, note: 'inserted by the bench' }) });
  const [a, b] = await Promise.all([post(host.port), post(hand.port)]);
  const shape = (body: string): string => JSON.stringify({ ...JSON.parse(body), data: Object.keys((JSON.parse(body) as { data: object }).data) });
  if (a.status !== 201 || b.status !== 201 || shape(a.body) !== shape(b.body)) {
    throw new Error(`POST /items: the host answered ${a.status} ${a.body} and the hand-written server ${b.status} ${b.body}`);
  }
}

/** The host behind auth refuses a request without a token and answers the row with one. */
async function checkAuthHost(authHost: ServerChild, token: string): Promise<void> {
  const refused = await get(authHost.port, '/items/42');
  const answered = await get(authHost.port, '/items/42', { headers: { authorization: `Bearer ${token}` } });
  if (refused.status !== 401 || answered.status !== 200) {
    throw new Error(`the host with server.auth answered ${refused.status} without a token and ${answered.status} with one (expected 401 and 200)`);
  }
}

function summary(side: Side): HttpSide {
  return { ...side.samples.summary(), bytesPerResponse: side.samples.ops > 0 ? Math.round(side.bytes / side.samples.ops) : NaN };
}

/** Part 2 for one kind: both servers started once, then each endpoint in alternating rounds. */
export async function benchHttp(kind: Kind, settings: HttpSettings, progress: (line: string) => void): Promise<HttpResult[]> {
  const fixture = new BenchTable(kind, uniqueTable('bench_http'), settings.rows);
  const sql = handWrittenSql(kind, fixture.name);
  // The host's list runs the template's SQL; the hand-written server writes the same by hand.
  const listTemplate = `SELECT * FROM ${fixture.quoted} WHERE ${quote(kind, 'id')} BETWEEN {{from}} AND {{to}}`;
  const compiled = compileTemplate(listTemplate, kind).sql;
  if (compiled !== sql.list) throw new Error(`the host's list SQL (${compiled}) differs from the hand-written server's (${sql.list})`);
  // The host's paged list reads one row more than the page to know whether a next page exists; so does the hand-written route.
  const dialect = kind === 'mysql' ? mysqlDialect : postgresDialect;
  const paged = buildList(dialect, fixture.name, [{}], { order: [{ column: 'id', descending: false }], limit: pageLimit + 1, after: [0] }).sql;
  if (paged !== sql.page) throw new Error(`the host's page SQL (${paged}) differs from the hand-written server's (${sql.page})`);
  const execArgv = (role: 'host' | 'hand'): string[] => {
    if (settings.cpuProf !== role) return [];
    mkdirSync(settings.cpuProfDir, { recursive: true });
    return ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`, `--cpu-prof-name=${role}-${kind}-${process.pid}.cpuprofile`];
  };
  const children: ServerChild[] = [];
  const results: HttpResult[] = [];
  const withAuth = settings.endpoints.includes('get-jwt');
  const tokens = withAuth ? benchTokens() : [];
  try {
    await fixture.create();
    const started = await Promise.allSettled([
      ServerChild.start({ role: 'host', profile: httpProfile(kind, fixture.name, listTemplate) }, { execArgv: execArgv('host') }),
      ServerChild.start({ role: 'hand', kind, table: fixture.name }, { execArgv: execArgv('hand') }),
      ...(withAuth ? [ServerChild.start({ role: 'host', profile: httpProfile(kind, fixture.name, listTemplate, {}, true) })] : []),
    ]);
    for (const outcome of started) if (outcome.status === 'fulfilled') children.push(outcome.value);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
    const [host, hand, authHost] = children;
    const pages = await walkPages(host);
    await checkSameAnswers(host, hand, pages);
    if (authHost) await checkAuthHost(authHost, tokens[0]);
    progress(`${kind} http: ${settings.rows} rows seeded, servers started and answering the same bodies`);
    for (const endpoint of settings.endpoints) {
      const request = requestOf(endpoint, settings.rows, tokens, pages);
      const jwt = endpoint === 'get-jwt';
      const sides: Side[] = jwt
        ? [
            { name: 'host', child: authHost, samples: new Samples(), bytes: 0 },
            { name: 'hostWithoutAuth', child: host, samples: new Samples(), bytes: 0 },
          ]
        : [
            { name: 'host', child: host, samples: new Samples(), bytes: 0 },
            { name: 'handWritten', child: hand, samples: new Samples(), bytes: 0 },
          ];
      // The host behind auth is loaded here for the first time, its baseline after get/post/list:
      // a longer warm-up for both, or the ratio measures JIT warm-up (0.84 with 1 s, 0.96-0.98 with 5 s).
      const warmupMs = jwt ? settings.warmupMs * 5 : settings.warmupMs;
      for (const side of sides) await fire(side, request, settings.connections, warmupMs);
      const roundRatios: number[] = [];
      for (let pass = 0; pass < settings.rounds; pass++) {
        const rates = [0, 0];
        const order = pass % 2 === 0 ? [0, 1] : [1, 0];
        for (const index of order) rates[index] = await fire(sides[index], request, settings.connections, settings.roundMs, sides[index]);
        roundRatios.push(rates[0] / rates[1]);
      }
      const [a, b] = sides.map(summary);
      const result: HttpResult = {
        kind,
        endpoint,
        baseline: jwt ? 'host without auth' : 'hand-written',
        host: a,
        handWritten: b,
        ratio: round(median(roundRatios), 3),
        ratioOfTotals: ratio(a.ops / sides[0].samples.elapsedMs, b.ops / sides[1].samples.elapsedMs),
        roundRatios: roundRatios.map((value) => round(value, 3)),
        ...(httpTargets[endpoint] === undefined ? {} : { target: httpTargets[endpoint] }),
      };
      results.push(result);
      progress(
        `${kind} ${endpoint}: host ${a.opsPerSec} req/s (p50 ${a.p50Ms} ms, ${a.cpuMicrosPerOp} µs server cpu/req), ` +
          `${result.baseline} ${b.opsPerSec} req/s (p50 ${b.p50Ms} ms, ${b.cpuMicrosPerOp} µs), ratio ${result.ratio} (totals ${result.ratioOfTotals})`,
      );
    }
    return results;
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    // Dropping the table removes every row the POST rounds inserted.
    await fixture.drop();
    progress(`${kind} http: servers stopped, table dropped`);
  }
}

export function httpTable(results: HttpResult[]): string {
  return textTable(
    ['kind / endpoint', 'host req/s', 'p50 ms', 'p99 ms', 'cpu µs/req', 'bytes', 'baseline req/s', 'p50 ms', 'p99 ms', 'cpu µs/req', 'bytes', 'ratio', 'of totals', 'target'],
    results.map((r) => [
      `${r.kind} ${r.endpoint}${r.baseline === 'hand-written' ? '' : ` (vs ${r.baseline})`}`,
      r.host.opsPerSec,
      r.host.p50Ms.toFixed(2),
      r.host.p99Ms.toFixed(2),
      r.host.cpuMicrosPerOp.toFixed(0),
      r.host.bytesPerResponse,
      r.handWritten.opsPerSec,
      r.handWritten.p50Ms.toFixed(2),
      r.handWritten.p99Ms.toFixed(2),
      r.handWritten.cpuMicrosPerOp.toFixed(0),
      r.handWritten.bytesPerResponse,
      r.ratio.toFixed(3),
      r.ratioOfTotals.toFixed(3),
      r.target === undefined ? '-' : r.ratio >= r.target ? `ok ≥${r.target}` : `LOW <${r.target}`,
    ]),
  );
}

/** Part 2 over the selected kinds. */
export async function runHttp(selected: readonly Kind[], settings: HttpSettings, progress: (line: string) => void): Promise<HttpResult[]> {
  const results: HttpResult[] = [];
  for (const kind of selected) results.push(...(await benchHttp(kind, settings, progress)));
  return results;
}

export function httpHeading(settings: HttpSettings): string {
  return (
    `Part 2 — HTTP: the host serving a profile vs a hand-written fastify + driver server; get-jwt: the host behind an HS256 JWT ` +
    `(${benchTokenCount} tokens) vs the same host without auth (pool size ${poolSize}, ` +
    `autocannon ${settings.connections} connections, ${settings.rounds} rounds of ${settings.roundMs} ms per side; cpu = the server process's CPU per request)`
  );
}

if (require.main === module) runStandalone('http', httpSettingsFromEnv(), runHttp, httpHeading, httpTable);
