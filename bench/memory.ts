/**
 * Part 3: memory of the `list` endpoint over a large table. The host runs in a child process;
 * this process only downloads, so the bench's own memory (it holds and parses the whole body)
 * is never what is measured. Standalone:
 * `node node_modules/.cache/sql-resources-bench/bench/memory.js` after `tsc -p bench/tsconfig.json`.
 */
import { request as httpRequest } from 'node:http';
import type { Profile } from '../src/host/profile';
import { ServerChild } from './child';
import { intFromEnv } from './env';
import { BenchTable } from './fixtures';
import { rawDriver } from './raw';
import { table as textTable } from './report';
import { runStandalone } from './standalone';
import { quote, servers, uniqueTable, type Kind } from './servers';
import { round } from './stats';

/** Peak RSS growth of the host over its idle RSS while serving the whole list, in MiB. */
export const memoryTarget = 64;

export interface MemorySettings {
  rows: number;
  /** Full downloads measured; the figure is the largest growth among them. */
  downloads: number;
  /** Downloads cut short in the disconnect check. */
  aborts: number;
}

export function memorySettingsFromEnv(): MemorySettings {
  return {
    rows: intFromEnv('BENCH_MEMORY_ROWS', 200_000),
    downloads: intFromEnv('BENCH_MEMORY_DOWNLOADS', 2),
    aborts: intFromEnv('BENCH_MEMORY_ABORTS', 3),
  };
}

export interface DownloadFigures {
  /** RSS when the download started, MiB. */
  startRssMb: number;
  /** Highest RSS sampled every 20 ms in the host during the download, MiB. */
  sampledPeakMb: number;
  /** The kernel's peak RSS (VmHWM, reset before the download), MiB; undefined where /proc cannot say. */
  kernelPeakMb?: number;
  /** max(sampled, kernel) peak − idle RSS, MiB. */
  growthMb: number;
  ms: number;
  bytes: number;
  rowsPerSec: number;
}

export interface MemoryResult {
  kind: Kind;
  rows: number;
  /** RSS of the started host before any request, MiB. */
  idleRssMb: number;
  downloads: DownloadFigures[];
  /** The largest growth over all downloads, MiB; the figure held against the target. */
  peakGrowthMb: number;
  target: number;
  /** Every download parsed as JSON with code "ok", `total` = rows and as many rows in `data`. */
  validJson: boolean;
  /** Pool size 1: downloads cut mid-stream, each followed by a request that must be answered. */
  disconnect: { aborts: number; answeredAfterAbort: number; bytesBeforeAbort: number; maxAnswerMs: number; released: boolean };
}

const mib = (bytes: number): number => round(bytes / (1024 * 1024), 1);

/** The bench table's schema (bench/fixtures.ts) with `rows` rows made by the server itself. */
async function seed(kind: Kind, fixture: BenchTable, rows: number): Promise<void> {
  const admin = rawDriver(kind, { plain: true });
  const t = fixture.quoted;
  try {
    if (kind === 'postgres') {
      await admin.prepare(
        `INSERT INTO ${t} (name, qty, price, note)
         SELECT 'seed-' || n, n % 97, (n % 1000) / 10.0 + 0.99, CASE WHEN n % 3 = 0 THEN NULL ELSE 'row ' || n || ' of the bench' END
           FROM generate_series(1, $1::int) AS n`,
      )([rows]);
      return;
    }
    // MariaDB's sequence engine where present, else a cross join of digits (MySQL).
    const digits = '(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
    const numbers = [
      `SELECT seq AS n FROM seq_1_to_${rows}`,
      `SELECT 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d AS n
         FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e, ${digits} f, ${digits} g
        HAVING n <= ${rows}`,
    ];
    if (rows > 1_000_000) throw new Error('BENCH_MEMORY_ROWS: at most 1,000,000 on MySQL/MariaDB');
    for (const [index, source] of numbers.entries()) {
      try {
        await admin.prepare(
          `INSERT INTO ${t} (name, qty, price, note)
           SELECT CONCAT('seed-', n), n % 97, (n % 1000) / 10 + 0.99, IF(n % 3 = 0, NULL, CONCAT('row ', n, ' of the bench'))
             FROM (${source}) AS numbers ORDER BY n`,
        )([]);
        return;
      } catch (error) {
        if (index === numbers.length - 1) throw error;
      }
    }
  } finally {
    await admin.close();
  }
}

function profile(kind: Kind, table: string, pool: Record<string, unknown> = {}): Profile {
  return {
    name: `bench-memory-${kind}`,
    resources: { db: { _class: kind, server: { ...servers[kind], ...pool } } },
    server: {
      endpoints: [
        { path: '/all', endpoint: 'list', resource: 'db', sql: `SELECT * FROM ${quote(kind, table)} ORDER BY ${quote(kind, 'id')}` },
        { path: '/items/:id', endpoint: 'readOne', resource: 'db', table, id_field: 'id' },
      ],
    },
  };
}

interface Download {
  status: number;
  body: Buffer;
  ms: number;
}

/** GETs `path`; with `abortAfter`, destroys the socket once that many bytes have arrived. */
function download(port: number, path: string, options: { abortAfter?: number; timeoutMs?: number } = {}): Promise<Download> {
  const startedAt = performance.now();
  let cut = false;
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        if (options.abortAfter !== undefined && length >= options.abortAfter && !cut) {
          cut = true;
          request.destroy();
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - startedAt });
        }
      });
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - startedAt }));
      response.once('error', (error) => (cut ? undefined : reject(error)));
    });
    request.setTimeout(options.timeoutMs ?? 120_000, () => request.destroy(new Error(`GET ${path}: no answer in ${options.timeoutMs ?? 120_000} ms`)));
    request.once('error', (error) => (cut ? undefined : reject(error)));
    request.end();
  });
}

/** The body is the engine's envelope, valid JSON, with every row. */
function checkList(body: Buffer, rows: number): boolean {
  const parsed = JSON.parse(body.toString('utf8')) as { code?: unknown; total?: unknown; data?: { id?: unknown }[] };
  return (
    parsed.code === 'ok' &&
    parsed.total === rows &&
    Array.isArray(parsed.data) &&
    parsed.data.length === rows &&
    Number(parsed.data[0].id) === 1 &&
    Number(parsed.data[rows - 1].id) === rows
  );
}

const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchMemory(kind: Kind, settings: MemorySettings, progress: (line: string) => void): Promise<MemoryResult> {
  const fixture = new BenchTable(kind, uniqueTable('bench_memory'), 0);
  let child: ServerChild | undefined;
  try {
    await fixture.create();
    const seedStart = performance.now();
    await seed(kind, fixture, settings.rows);
    progress(`${kind} memory: ${settings.rows} rows seeded in ${Math.round(performance.now() - seedStart)} ms`);

    // Peak RSS while the whole list is downloaded, over the idle RSS of the started host.
    child = await ServerChild.start({ role: 'host', profile: profile(kind, fixture.name) });
    await settle(500);
    const idle = (await child.rss()).rss;
    const downloads: DownloadFigures[] = [];
    let validJson = true;
    for (let n = 0; n < settings.downloads; n++) {
      const begin = await child.rssBegin();
      const answer = await download(child.port, '/all');
      const end = await child.rssEnd();
      const peak = Math.max(end.sampledPeak ?? 0, end.hwm ?? 0);
      const ok = answer.status === 200 && checkList(answer.body, settings.rows);
      validJson &&= ok;
      downloads.push({
        startRssMb: mib(begin.rss),
        sampledPeakMb: mib(end.sampledPeak ?? 0),
        ...(end.hwm === undefined ? {} : { kernelPeakMb: mib(end.hwm) }),
        growthMb: mib(peak - idle),
        ms: Math.round(answer.ms),
        bytes: answer.body.length,
        rowsPerSec: Math.round((settings.rows * 1000) / answer.ms),
      });
      progress(
        `${kind} memory: download ${n + 1}: ${(answer.body.length / 1e6).toFixed(1)} MB in ${Math.round(answer.ms)} ms, ` +
          `idle ${mib(idle)} MiB, peak ${mib(peak)} MiB (+${mib(peak - idle)}), ${ok ? 'valid' : 'INVALID'} JSON`,
      );
    }
    await child.stop();
    child = undefined;

    // Pool size 1: a download cut short must give its connection back, or the next request waits forever.
    const pool = kind === 'mysql' ? { connectionLimit: 1 } : { max: 1 };
    child = await ServerChild.start({ role: 'host', profile: profile(kind, fixture.name, pool) });
    const abortAfter = 256 * 1024;
    let answered = 0;
    let maxAnswerMs = 0;
    let bytesBeforeAbort = 0;
    for (let n = 0; n < settings.aborts; n++) {
      const cut = await download(child.port, '/all', { abortAfter, timeoutMs: 10_000 }).catch(() => undefined);
      if (cut?.status !== 200) break;
      bytesBeforeAbort = Math.max(bytesBeforeAbort, cut.body.length);
      // A connection kept by the cut download would leave this request waiting for the pool.
      const answer = await download(child.port, `/items/${n + 1}`, { timeoutMs: 10_000 }).catch(() => undefined);
      if (answer?.status !== 200) break;
      answered += 1;
      maxAnswerMs = Math.max(maxAnswerMs, answer.ms);
    }
    const released = answered === settings.aborts;
    progress(`${kind} memory: ${answered} of ${settings.aborts} requests answered after a download was cut (pool size 1), slowest ${Math.round(maxAnswerMs)} ms`);

    const peakGrowthMb = Math.max(...downloads.map((figures) => figures.growthMb));
    return {
      kind,
      rows: settings.rows,
      idleRssMb: mib(idle),
      downloads,
      peakGrowthMb,
      target: memoryTarget,
      validJson,
      disconnect: { aborts: settings.aborts, answeredAfterAbort: answered, bytesBeforeAbort, maxAnswerMs: Math.round(maxAnswerMs), released },
    };
  } finally {
    await child?.stop();
    await fixture.drop();
  }
}

export async function runMemory(selected: readonly Kind[], settings: MemorySettings, progress: (line: string) => void): Promise<MemoryResult[]> {
  const results: MemoryResult[] = [];
  for (const kind of selected) results.push(await benchMemory(kind, settings, progress));
  return results;
}

export function memoryHeading(settings: MemorySettings): string {
  return `Part 3 — memory: the host (child process) serving a list of ${settings.rows.toLocaleString('en-US')} rows; growth = peak RSS − idle RSS`;
}

export function memoryTable(results: MemoryResult[]): string {
  return textTable(
    ['kind', 'idle RSS MiB', 'peak growth MiB', 'target', 'download ms', 'rows/s', 'body MB', 'valid JSON', 'released after abort (pool 1)'],
    results.map((r) => {
      const slowest = r.downloads.reduce((a, b) => (b.ms > a.ms ? b : a));
      return [
        r.kind,
        r.idleRssMb.toFixed(1),
        r.peakGrowthMb.toFixed(1),
        r.peakGrowthMb < r.target ? `ok <${r.target}` : `HIGH ≥${r.target}`,
        slowest.ms,
        slowest.rowsPerSec,
        (slowest.bytes / 1e6).toFixed(1),
        r.validJson ? 'yes' : 'NO',
        `${r.disconnect.answeredAfterAbort}/${r.disconnect.aborts}${r.disconnect.released ? ' ok' : ' FAILED'}`,
      ];
    }),
  );
}

if (require.main === module) runStandalone('memory', memorySettingsFromEnv(), runMemory, memoryHeading, memoryTable);
