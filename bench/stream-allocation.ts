/**
 * Part 1, issue 10's hostile case: heap bytes allocated by streaming 100,000 rows through
 * `resource.streamBatches(sql)` (a) with no `query` listener, (b) with one, against (c) iterating
 * the stub driver's stream directly (bench/overhead.ts: no database, one preallocated row in one
 * reused batch array, so rows and batches cost nothing and what is left is the iteration).
 *
 * Node 20 has no cumulative allocation counter, so the figures come from a child process
 * (bench/stream-allocation-child.ts) started with `--expose-gc` and a large young generation
 * (`--max-semi-space-size`, `--min-semi-space-size`): `gc()` before each measured stream, then
 * `v8.getHeapStatistics().used_heap_size` before and after it, with a `PerformanceObserver` on
 * 'gc' entries proving that no collection ran in between (a run with one is discarded and
 * repeated). Each figure is the lowest of several runs, less the same measurement around an
 * empty function (the `await` and statistics objects of the harness itself).
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { StubResource, type StubAdapter } from './overhead';
import { table } from './report';

export interface StreamAllocationSettings {
  /** Rows per stream. */
  rows: number;
  /** Measured runs per side; the lowest counts. */
  runs: number;
  /** Unmeasured streams per side first, so the code measured is warm (feedback, optimized code). */
  warmups: number;
}

export const streamAllocationDefaults: StreamAllocationSettings = { rows: 100_000, runs: 9, warmups: 30 };

/** The Node options of the child: `gc()`, and a young generation no 100k-row stream fills. */
export const streamAllocationExecArgv = ['--expose-gc', '--max-semi-space-size=256', '--min-semi-space-size=64'];

export interface StreamAllocationSide {
  /** Lowest bytes allocated by one stream of `rows` rows, the harness's own bytes taken off. */
  bytesPerStream: number;
  /** `bytesPerStream` over the stream's batches. */
  bytesPerBatch: number;
  /** Lowest bytes allocated by a stream of one batch: mostly what a stream costs once. */
  oneBatchBytes: number;
  /** Every clean measured run of the full stream, bytes (harness not taken off). */
  samples: number[];
}

export interface StreamAllocationResult {
  rows: number;
  batchSize: number;
  batches: number;
  runs: number;
  execArgv: string[];
  /** Bytes the harness allocates around an empty function (taken off every figure). */
  harnessBytes: number;
  /** Measured runs thrown away because a GC ran during them. */
  discardedForGc: number;
  /** (c) the stub driver's stream iterated directly. */
  direct: StreamAllocationSide;
  /** (a) `resource.streamBatches(sql)`, no `query` listener. */
  noListener: StreamAllocationSide;
  /** (b) the same with one `query` listener. */
  oneListener: StreamAllocationSide;
  /** (a) − (c): what the resource layer adds. */
  addedNoListener: { bytesPerStream: number; bytesPerBatch: number; oneBatchBytes: number };
  /** (b) − (c). */
  addedOneListener: { bytesPerStream: number; bytesPerBatch: number; oneBatchBytes: number };
}

declare const gc: () => void;

const sql = 'SELECT * FROM bench_items';
const noValues: readonly unknown[] = [];

/** Runs the measurement in this process; needs the flags of `streamAllocationExecArgv`. */
export async function measureStreamAllocation(settings: StreamAllocationSettings): Promise<StreamAllocationResult> {
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') throw new Error('stream allocation: run node with --expose-gc');
  let gcs = 0;
  const observer = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  /** Two turns of the event loop, so the observer has been handed every GC entry so far. */
  const delivered = async (): Promise<void> => {
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  };

  const resource = new StubResource();
  await resource.start();
  const adapter = resource.adapter as StubAdapter;
  const batchSize = resource.streamBatchSize;
  let rowsSeen = 0;
  let events = 0;
  const listener = (): void => {
    events++;
  };
  const direct = async (): Promise<void> => {
    for await (const batch of adapter.stream(sql, noValues, batchSize)) rowsSeen += batch.length;
  };
  const throughResource = async (): Promise<void> => {
    for await (const batch of resource.streamBatches(sql)) rowsSeen += batch.length;
  };
  const empty = async (): Promise<void> => {};

  let discardedForGc = 0;
  /** Bytes allocated by one run of `run`, from a fresh heap; undefined when a GC ran during it. */
  const once = async (run: () => Promise<void>): Promise<number | undefined> => {
    gc();
    await delivered();
    const gcsBefore = gcs;
    const before = v8.getHeapStatistics().used_heap_size;
    await run();
    const after = v8.getHeapStatistics().used_heap_size;
    await delivered();
    if (gcs !== gcsBefore) {
      discardedForGc++;
      return undefined;
    }
    return after - before;
  };
  /** The clean runs of `run` (a run with a GC is repeated, up to three times as many attempts). */
  const samples = async (run: () => Promise<void>, count: number): Promise<number[]> => {
    const clean: number[] = [];
    for (let attempt = 0; clean.length < count && attempt < count * 3; attempt++) {
      const bytes = await once(run);
      if (bytes !== undefined) clean.push(bytes);
    }
    if (clean.length === 0) throw new Error(`stream allocation: a GC ran during every one of ${count * 3} runs`);
    return clean;
  };

  const sides = { direct, noListener: throughResource, oneListener: throughResource } as const;
  type SideName = keyof typeof sides;
  const names = Object.keys(sides) as SideName[];
  const withListener = async <T>(name: SideName, work: () => Promise<T>): Promise<T> => {
    if (name === 'oneListener') resource.on('query', listener);
    try {
      return await work();
    } finally {
      if (name === 'oneListener') resource.off('query', listener);
    }
  };

  try {
    // Warm every side (and the harness) at both stream lengths before measuring any.
    for (const rows of [settings.rows, batchSize]) {
      adapter.streamRows = rows;
      for (const name of names) await withListener(name, async () => { for (let i = 0; i < settings.warmups; i++) await sides[name](); });
    }
    for (let i = 0; i < settings.warmups; i++) await empty();

    const full: Record<SideName, number[]> = { direct: [], noListener: [], oneListener: [] };
    const oneBatch: Record<SideName, number[]> = { direct: [], noListener: [], oneListener: [] };
    const harness: number[] = [];
    // Interleaved, one run of each side per pass, so a drift in the process touches all sides alike.
    for (let pass = 0; pass < settings.runs; pass++) {
      harness.push(...(await samples(empty, 1)));
      for (const name of names) {
        adapter.streamRows = settings.rows;
        full[name].push(...(await withListener(name, () => samples(sides[name], 1))));
        adapter.streamRows = batchSize;
        oneBatch[name].push(...(await withListener(name, () => samples(sides[name], 1))));
      }
    }
    if (events === 0) throw new Error('stream allocation: the query listener never ran');
    if (rowsSeen === 0) throw new Error('stream allocation: no rows streamed');

    const harnessBytes = Math.min(...harness);
    const batches = Math.ceil(settings.rows / batchSize);
    const side = (name: SideName): StreamAllocationSide => {
      const bytesPerStream = Math.min(...full[name]) - harnessBytes;
      return { bytesPerStream, bytesPerBatch: round1(bytesPerStream / batches), oneBatchBytes: Math.min(...oneBatch[name]) - harnessBytes, samples: full[name] };
    };
    const result = { direct: side('direct'), noListener: side('noListener'), oneListener: side('oneListener') };
    const added = (name: 'noListener' | 'oneListener'): StreamAllocationResult['addedNoListener'] => {
      const bytesPerStream = result[name].bytesPerStream - result.direct.bytesPerStream;
      return { bytesPerStream, bytesPerBatch: round1(bytesPerStream / batches), oneBatchBytes: result[name].oneBatchBytes - result.direct.oneBatchBytes };
    };
    return {
      rows: settings.rows,
      batchSize,
      batches,
      runs: settings.runs,
      execArgv: process.execArgv,
      harnessBytes,
      discardedForGc,
      ...result,
      addedNoListener: added('noListener'),
      addedOneListener: added('oneListener'),
    };
  } finally {
    observer.disconnect();
    await resource.stop();
  }
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Runs the measurement in a child process started with `streamAllocationExecArgv`. */
export function benchStreamAllocation(settings: StreamAllocationSettings = streamAllocationDefaults): Promise<StreamAllocationResult> {
  const child = fork(join(__dirname, 'stream-allocation-child.js'), [JSON.stringify(settings)], {
    execArgv: streamAllocationExecArgv,
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let answer: { result?: StreamAllocationResult; error?: string } | undefined;
    child.once('message', (message: { result?: StreamAllocationResult; error?: string }) => {
      answer = message;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (answer?.result) resolve(answer.result);
      else reject(new Error(`stream allocation child: ${answer?.error ?? `exited with code ${code} without a result`}`));
    });
  });
}

export function streamAllocationHeading(result: StreamAllocationResult): string {
  return (
    `Streams over the stub driver: heap bytes allocated per stream of ${result.rows.toLocaleString('en')} rows ` +
    `(${result.batches} batches of ${result.batchSize}), lowest of ${result.runs} runs with no GC during the run`
  );
}

export function streamAllocationTable(result: StreamAllocationResult): string {
  const row = (label: string, side: { bytesPerStream: number; bytesPerBatch: number; oneBatchBytes: number }): (string | number)[] => [
    label,
    side.bytesPerStream.toLocaleString('en'),
    side.bytesPerBatch.toFixed(1),
    side.oneBatchBytes.toLocaleString('en'),
  ];
  return [
    table(
      ['stream', 'bytes/stream', 'bytes/batch', 'one-batch stream bytes'],
      [
        row('(c) driver stream directly', result.direct),
        row('(a) streamBatches, no listener', result.noListener),
        row('(b) streamBatches, one listener', result.oneListener),
        row('added by the resource layer (a−c)', result.addedNoListener),
        row('added with a listener (b−c)', result.addedOneListener),
      ],
    ),
    `(harness ${result.harnessBytes} bytes taken off each figure; runs discarded for a GC: ${result.discardedForGc})`,
  ].join('\n');
}
