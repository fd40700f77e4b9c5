/**
 * Part 5: table lists over a large table (SPEC §8), through the host in a child process. Keyset
 * paging must not slow down with depth, and an estimated count must be much cheaper than an
 * exact one. Standalone: `node node_modules/.cache/sql-resources-bench/bench/lists.js` after
 * `tsc -p bench/tsconfig.json`.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { Profile } from '../src/host/profile';
import { ServerChild } from './child';
import { intFromEnv } from './env';
import { BenchTable } from './fixtures';
import { table as textTable } from './report';
import { runStandalone } from './standalone';
import { servers, uniqueTable, type Kind } from './servers';
import { Samples, round } from './stats';

/** Latency of the deep keyset page ÷ the first page's, at most; of an exact count ÷ an estimated one, at least. */
export const listsTargets = { keysetDepth: 2, exactOverEstimated: 10 } as const;

/** Rows per measured page: the endpoint's `page.defaultLimit`. */
const pageSize = 100;

export interface ListsSettings {
  rows: number;
  /** The deep page, 1-based, of `pageSize` rows: measured by keyset and by offset. */
  page: number;
  /** Sequential requests measured per page kind (first, deep keyset, deep offset), interleaved. */
  requests: number;
  /** Sequential requests measured per count mode, interleaved. */
  countRequests: number;
  /** Rows per request while walking `page.next` to the deep page's cursor. */
  walkLimit: number;
}

export function listsSettingsFromEnv(): ListsSettings {
  const settings = {
    rows: intFromEnv('BENCH_LISTS_ROWS', 1_000_000),
    page: intFromEnv('BENCH_LISTS_PAGE', 5000),
    requests: intFromEnv('BENCH_LISTS_REQUESTS', 200),
    countRequests: intFromEnv('BENCH_LISTS_COUNTS', 20),
    walkLimit: intFromEnv('BENCH_LISTS_WALK_LIMIT', 1000),
  };
  if (settings.page * pageSize >= settings.rows) throw new Error(`BENCH_LISTS_PAGE: page ${settings.page} of ${pageSize} rows must end before row ${settings.rows}`);
  return settings;
}

/** Latencies of one kind of request, measured from this process (HTTP included). */
export interface Latency {
  requests: number;
  medianMs: number;
  p90Ms: number;
  minMs: number;
}

export interface ListsResult {
  kind: Kind;
  rows: number;
  page: number;
  pageSize: number;
  seedMs: number;
  /** Requests and time it took to reach the deep page's cursor by following `page.next`. */
  walk: { requests: number; ms: number };
  first: Latency;
  keysetDeep: Latency;
  offsetDeep: Latency;
  /** keysetDeep ÷ first, medians. */
  keysetRatio: number;
  /** offsetDeep ÷ first, medians; no target. */
  offsetRatio: number;
  estimated: Latency;
  exact: Latency;
  /** exact ÷ estimated, medians. */
  countRatio: number;
  /** What `Prefer: count=estimated` answered (the planner's estimate: the table has more than 1,000 rows), and `count=exact`. */
  estimatedCount: number;
  exactCount: number;
  targets: typeof listsTargets;
}

interface Answer {
  status: number;
  body: string;
  ms: number;
}

/** The bench's table of this part: an INT key and a few columns, `rows` rows made by the server, then analysed. */
async function seed(kind: Kind, fixture: BenchTable, rows: number): Promise<void> {
  const t = fixture.quoted;
  await fixture.createWith('id INT NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL, price INT NOT NULL, name VARCHAR(64) NOT NULL');
  if (kind === 'postgres') {
    await fixture.run(
      `INSERT INTO ${t} (id, status, price, name)
       SELECT n, (ARRAY['open', 'paid', 'shipped', 'closed'])[1 + n % 4], n % 10000, 'item ' || n FROM generate_series(1, $1::int) AS n`,
      [rows],
    );
    // VACUUM too: autovacuum would otherwise visit the new table in the middle of the measurements.
    await fixture.run(`VACUUM (ANALYZE) ${t}`);
    return;
  }
  // MariaDB's sequence engine where present, else a cross join of digits (MySQL).
  const digits = `(${Array.from({ length: 10 }, (_, digit) => `SELECT ${digit} AS d`).join(' UNION ALL ')})`;
  const places = Array.from({ length: Math.ceil(Math.log10(rows)) }, (_, place) => place);
  const sources = [
    `SELECT seq AS n FROM seq_1_to_${rows}`,
    `SELECT n FROM (SELECT ${places.map((place) => `p${place}.d * ${10 ** place}`).join(' + ')} + 1 AS n FROM ${places.map((place) => `${digits} p${place}`).join(', ')}) AS digits WHERE n <= ${rows}`,
  ];
  for (const [index, source] of sources.entries()) {
    try {
      await fixture.run(
        `INSERT INTO ${t} (id, status, price, name)
         SELECT n, ELT(1 + n % 4, 'open', 'paid', 'shipped', 'closed'), n % 10000, CONCAT('item ', n) FROM (${source}) AS numbers`,
      );
      break;
    } catch (error) {
      if (index === sources.length - 1) throw error;
    }
  }
  await fixture.run(`ANALYZE TABLE ${t}`);
}

/**
 * One table list that pages and counts exactly by default; every request of the bench says which
 * count it wants (`Prefer: count=none|estimated|exact`).
 */
function profile(kind: Kind, table: string, walkLimit: number): Profile {
  return {
    name: `bench-lists-${kind}`,
    resources: { db: { _class: kind, server: servers[kind] } },
    server: {
      endpoints: [
        {
          path: '/rows',
          endpoint: 'list',
          resource: 'db',
          table,
          filters: ['status', 'price'],
          sort: ['id', 'price'],
          page: { defaultLimit: pageSize, maxLimit: Math.max(1000, walkLimit) },
          count: 'exact',
        },
      ],
    },
  };
}

/** GETs `path` on one kept-alive connection; the time is until the whole body has arrived. */
function fetchPath(agent: Agent, port: number, path: string, prefer: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const request = httpRequest({ host: '127.0.0.1', port, path, agent, headers: { prefer } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - startedAt }));
      response.once('error', reject);
    });
    request.setTimeout(60_000, () => request.destroy(new Error(`GET ${path}: no answer in 60 s`)));
    request.once('error', reject);
    request.end();
  });
}

interface Envelope {
  code: string;
  data: { id: number }[];
  total: number;
  page: { limit: number; offset?: number; next?: string };
  count?: number;
}

function envelope(path: string, answer: Answer): Envelope {
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return JSON.parse(answer.body) as Envelope;
}

/** The page's ids must be first, first + 1, …, `size` of them (the table's ids are 1…rows). */
function checkIds(path: string, body: Envelope, first: number, size: number): void {
  const ids = body.data.map((row) => Number(row.id));
  if (ids.length !== size || ids[0] !== first || ids[size - 1] !== first + size - 1) {
    throw new Error(`GET ${path}: expected ids ${first}…${first + size - 1}, got ${ids.length} rows from ${ids[0]} to ${ids[ids.length - 1]}`);
  }
}

function latency(samples: Samples): Latency {
  return { requests: samples.ops, medianMs: round(samples.percentile(50), 3), p90Ms: round(samples.percentile(90), 3), minMs: round(samples.percentile(0), 3) };
}

/** 0…length − 1 in a random order. */
function shuffled(length: number): number[] {
  const order = Array.from({ length }, (_, index) => index);
  for (let i = length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/**
 * Measures each request once per round, `rounds` times, in a new random order each round (a fixed
 * rotation would put one request after the slow deep-offset one more often than another); `warmup`
 * unmeasured rounds before. Answers the samples of each request.
 */
async function interleaved(get: (path: string, prefer: string) => Promise<Answer>, requests: { path: string; prefer: string }[], rounds: number, warmup: number): Promise<Samples[]> {
  const samples = requests.map(() => new Samples());
  for (let pass = -warmup; pass < rounds; pass++) {
    for (const index of shuffled(requests.length)) {
      const { path, prefer } = requests[index];
      const answer = await get(path, prefer);
      if (answer.status !== 200) throw new Error(`GET ${path} (Prefer: ${prefer}): ${answer.status} ${answer.body.slice(0, 300)}`);
      if (pass < 0) continue;
      samples[index].add(answer.ms);
      samples[index].ops += 1;
    }
  }
  return samples;
}

/**
 * Follows `page.next` from the first page until `skip` rows are behind, asking `walkLimit` rows a
 * page (fewer for the last one), and answers the host's cursor of the page after them.
 */
async function walkTo(get: (path: string, prefer: string) => Promise<Answer>, skip: number, walkLimit: number): Promise<{ cursor: string; requests: number }> {
  let position = 0;
  let next = new URLSearchParams();
  let requests = 0;
  while (position < skip) {
    next.set('limit', String(Math.min(walkLimit, skip - position)));
    const path = `/rows?${next.toString()}`;
    const body = envelope(path, await get(path, 'count=none'));
    requests += 1;
    checkIds(path, body, position + 1, Math.min(walkLimit, skip - position));
    position += body.data.length;
    if (body.page.next === undefined) throw new Error(`GET ${path}: no page.next at row ${position}`);
    next = new URL(body.page.next, 'http://host').searchParams;
  }
  const cursor = next.get('after');
  if (cursor === null) throw new Error(`the host's page.next has no after= cursor: ${next.toString()}`);
  return { cursor, requests };
}

export async function benchLists(kind: Kind, settings: ListsSettings, progress: (line: string) => void): Promise<ListsResult> {
  const fixture = new BenchTable(kind, uniqueTable('bench_lists'), settings.rows);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let child: ServerChild | undefined;
  try {
    const seedStart = performance.now();
    await seed(kind, fixture, settings.rows);
    const seedMs = Math.round(performance.now() - seedStart);
    progress(`${kind} lists: ${settings.rows} rows seeded and analysed in ${seedMs} ms`);
    child = await ServerChild.start({ role: 'host', profile: profile(kind, fixture.name, settings.walkLimit) });
    const port = child.port;
    const get = (path: string, prefer: string): Promise<Answer> => fetchPath(agent, port, path, prefer);

    const skip = (settings.page - 1) * pageSize;
    const firstPath = `/rows?limit=${pageSize}`;
    const offsetPath = `/rows?limit=${pageSize}&offset=${skip}`;
    const first = envelope(firstPath, await get(firstPath, 'count=none'));
    checkIds(firstPath, first, 1, pageSize);
    if (first.count !== undefined || first.page.next === undefined) throw new Error(`GET ${firstPath}: expected page.next and no count, got ${JSON.stringify(first.page)}, count ${first.count}`);

    const walkStart = performance.now();
    const walk = await walkTo(get, skip, settings.walkLimit);
    const walkMs = Math.round(performance.now() - walkStart);
    const keysetPath = `/rows?limit=${pageSize}&after=${encodeURIComponent(walk.cursor)}`;
    const [byKeyset, byOffset] = [envelope(keysetPath, await get(keysetPath, 'count=none')), envelope(offsetPath, await get(offsetPath, 'count=none'))];
    checkIds(keysetPath, byKeyset, skip + 1, pageSize);
    if (JSON.stringify(byKeyset.data) !== JSON.stringify(byOffset.data)) throw new Error(`page ${settings.page}: the keyset and the offset pages differ`);
    progress(`${kind} lists: cursor of page ${settings.page} reached in ${walk.requests} requests (${walkMs} ms); measuring pages`);

    const pages = await interleaved(
      get,
      [firstPath, keysetPath, offsetPath].map((path) => ({ path, prefer: 'count=none' })),
      settings.requests,
      Math.max(3, Math.ceil(settings.requests / 10)),
    );
    const [firstLatency, keysetLatency, offsetLatency] = pages.map(latency);
    progress(`${kind} lists: page 1 ${firstLatency.medianMs} ms, page ${settings.page} by keyset ${keysetLatency.medianMs} ms, by offset ${offsetLatency.medianMs} ms (medians)`);

    const estimatedBody = envelope(firstPath, await get(firstPath, 'count=estimated'));
    const exactBody = envelope(firstPath, await get(firstPath, 'count=exact'));
    if (exactBody.count !== settings.rows) throw new Error(`Prefer: count=exact answered ${exactBody.count}, not ${settings.rows}`);
    if (typeof estimatedBody.count !== 'number') throw new Error(`Prefer: count=estimated answered no count`);
    const counts = await interleaved(
      get,
      ['count=estimated', 'count=exact'].map((prefer) => ({ path: firstPath, prefer })),
      settings.countRequests,
      3,
    );
    const [estimated, exact] = counts.map(latency);
    progress(`${kind} lists: count estimated ${estimated.medianMs} ms (${estimatedBody.count}), exact ${exact.medianMs} ms (${exactBody.count}) (medians)`);

    return {
      kind,
      rows: settings.rows,
      page: settings.page,
      pageSize,
      seedMs,
      walk: { requests: walk.requests, ms: walkMs },
      first: firstLatency,
      keysetDeep: keysetLatency,
      offsetDeep: offsetLatency,
      keysetRatio: round(keysetLatency.medianMs / firstLatency.medianMs, 2),
      offsetRatio: round(offsetLatency.medianMs / firstLatency.medianMs, 1),
      estimated,
      exact,
      countRatio: round(exact.medianMs / estimated.medianMs, 1),
      estimatedCount: estimatedBody.count,
      exactCount: exactBody.count,
      targets: listsTargets,
    };
  } finally {
    agent.destroy();
    try {
      await child?.stop();
    } finally {
      await fixture.drop();
      progress(`${kind} lists: host stopped, table dropped`);
    }
  }
}

export async function runLists(selected: readonly Kind[], settings: ListsSettings, progress: (line: string) => void): Promise<ListsResult[]> {
  const results: ListsResult[] = [];
  for (const kind of selected) results.push(await benchLists(kind, settings, progress));
  return results;
}

export function listsHeading(settings: ListsSettings): string {
  return (
    `Part 5 — table lists: the host (child process) over ${settings.rows.toLocaleString('en-US')} rows, ` +
    `sequential requests on one connection (${settings.requests} per page kind, ${settings.countRequests} per count mode, interleaved); latency = until the whole body has arrived`
  );
}

export function listsTable(results: ListsResult[]): string {
  const rows: (string | number)[][] = [];
  const line = (label: string, figures: Latency, ratio: string, target: string): void => {
    rows.push([label, figures.requests, figures.medianMs.toFixed(2), figures.p90Ms.toFixed(2), figures.minMs.toFixed(2), ratio, target]);
  };
  for (const r of results) {
    const page = r.page.toLocaleString('en-US');
    const offset = ((r.page - 1) * r.pageSize).toLocaleString('en-US');
    line(`${r.kind} page 1 (${r.pageSize} rows)`, r.first, '-', '-');
    line(`${r.kind} page ${page} by keyset (after=)`, r.keysetDeep, `${r.keysetRatio.toFixed(2)} of page 1`, r.keysetRatio <= r.targets.keysetDepth ? `ok ≤${r.targets.keysetDepth}` : `HIGH >${r.targets.keysetDepth}`);
    line(`${r.kind} page ${page} by offset=${offset}`, r.offsetDeep, `${r.offsetRatio.toFixed(1)} of page 1`, '-');
    line(`${r.kind} count=estimated (${r.estimatedCount.toLocaleString('en-US')})`, r.estimated, '-', '-');
    line(
      `${r.kind} count=exact (${r.exactCount.toLocaleString('en-US')})`,
      r.exact,
      `${r.countRatio.toFixed(1)} of estimated`,
      r.countRatio >= r.targets.exactOverEstimated ? `ok ≥${r.targets.exactOverEstimated}` : `LOW <${r.targets.exactOverEstimated}`,
    );
  }
  return textTable(['kind / request', 'requests', 'median ms', 'p90 ms', 'min ms', 'ratio', 'target'], rows);
}

if (require.main === module) runStandalone('lists', listsSettingsFromEnv(), runLists, listsHeading, listsTable);
