/**
 * `npm run bench`: the project's benchmark (issue #5). Prints a table for people and, as its
 * last line, one JSON object with every figure. Not part of `npm test`.
 *
 * Environment: MYSQL_* / PG* as for the tests; BENCH_ONLY=mysql|postgres to run one kind;
 * BENCH_METHODS=read,query and BENCH_CALLERS=32 to narrow part 1 (e.g. under --cpu-prof);
 * BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_WARMUP_MS to trade time for precision.
 * Part 1 also measures the allocation of a 100k-row stream over a stub driver (bench/stream-allocation.ts).
 * Parts 2 (HTTP, bench/http.ts) and 3 (memory, bench/memory.ts) read BENCH_HTTP_* and
 * BENCH_MEMORY_*; part 4 (start-up, bench/startup.ts) reads BENCH_STARTUP_*; part 5 (table lists over
 * 1,000,000 rows, bench/lists.ts) reads BENCH_LISTS_*; BENCH_PARTS=1,2,3,4,5 picks parts.
 */
import os from 'node:os';
import { benchMethods, methodNames, type MethodName, type MethodResult, type MethodsSettings } from './methods';
import { benchOverhead } from './overhead';
import { benchStreamAllocation, streamAllocationHeading, streamAllocationTable, type StreamAllocationResult } from './stream-allocation';
import { httpHeading, httpSettingsFromEnv, httpTable, httpTargets, runHttp, type HttpResult } from './http';
import { memoryHeading, memorySettingsFromEnv, memoryTable, memoryTarget, runMemory, type MemoryResult } from './memory';
import { runStartup, startupHeading, startupSettingsFromEnv, startupTable, type StartupResult } from './startup';
import { listsHeading, listsSettingsFromEnv, listsTable, listsTargets, runLists, type ListsResult } from './lists';
import { methodsTable, overheadTable } from './report';
import { kinds, poolSize, type Kind } from './servers';

const methodsTarget = 0.95;

function listFromEnv<T extends string | number>(name: string, allowed: readonly T[], parse: (text: string) => T): T[] {
  const value = process.env[name];
  if (value === undefined || value === '') return [...allowed];
  const picked = value.split(',').map((item) => parse(item.trim()));
  for (const item of picked) if (!allowed.includes(item)) throw new Error(`${name}: '${item}' is not one of ${allowed.join(', ')}`);
  return picked;
}

function intFromEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`${name} must be a positive integer`);
  return number;
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY as Kind | undefined;
  const selected = only ? kinds.filter((kind) => kind === only) : kinds;
  if (selected.length === 0) throw new Error(`BENCH_ONLY must be one of ${kinds.join(', ')}`);
  const settings: MethodsSettings = {
    rows: 10_000,
    methods: listFromEnv<MethodName>('BENCH_METHODS', methodNames, (text) => text as MethodName),
    concurrencies: listFromEnv('BENCH_CALLERS', [1, 32], Number),
    rounds: intFromEnv('BENCH_ROUNDS', 48),
    roundMs: intFromEnv('BENCH_ROUND_MS', 75),
    warmupMs: intFromEnv('BENCH_WARMUP_MS', 200),
  };
  const startedAt = Date.now();
  const log = (line: string): void => console.error(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${line}`);

  const parts = listFromEnv('BENCH_PARTS', [1, 2, 3, 4, 5], Number);
  const httpSettings = httpSettingsFromEnv();
  const memorySettings = memorySettingsFromEnv();
  const startupSettings = startupSettingsFromEnv();
  const listsSettings = listsSettingsFromEnv();
  const methods: MethodResult[] = [];
  if (parts.includes(1)) for (const kind of selected) methods.push(...(await benchMethods(kind, settings, log)));
  if (parts.includes(1)) log('resource layer over a stub driver');
  const overhead = parts.includes(1) ? await benchOverhead() : [];
  if (parts.includes(1)) log('stream allocation over the stub driver (child process)');
  const streamAllocation: StreamAllocationResult | undefined = parts.includes(1) ? await benchStreamAllocation() : undefined;
  const http: HttpResult[] = parts.includes(2) ? await runHttp(selected, httpSettings, log) : [];
  const memory: MemoryResult[] = parts.includes(3) ? await runMemory(selected, memorySettings, log) : [];
  const startup: StartupResult | undefined = parts.includes(4) ? await runStartup(selected, startupSettings, log) : undefined;
  const lists: ListsResult[] = parts.includes(5) ? await runLists(selected, listsSettings, log) : [];

  if (parts.includes(1)) {
    console.log('\nPart 1 — methods through a started resource vs the bare driver pool (pool size %d)\n', poolSize);
    console.log(methodsTable(methods, methodsTarget));
    const below = methods.filter((r) => r.concurrency >= 32 && r.ratio < methodsTarget);
    console.log(below.length === 0 ? `\nAll 32-caller ratios are at or above ${methodsTarget}.` : `\nBelow ${methodsTarget} at 32 callers: ${below.map((r) => `${r.kind} ${r.method}`).join(', ')}.`);
    console.log('\nThe resource layer alone: CPU per call over a stub driver (no database, 32 callers, best of 5 × 100,000 calls)\n');
    console.log(overheadTable(overhead));
    if (streamAllocation) console.log(`\n${streamAllocationHeading(streamAllocation)}\n\n${streamAllocationTable(streamAllocation)}`);
  }
  if (parts.includes(2)) console.log(`\n${httpHeading(httpSettings)}\n\n${httpTable(http)}`);
  if (parts.includes(3)) console.log(`\n${memoryHeading(memorySettings)}\n\n${memoryTable(memory)}`);
  if (startup) console.log(`\n${startupHeading(startupSettings)}\n\n${startupTable(startup)}`);
  if (parts.includes(5)) console.log(`\n${listsHeading(listsSettings)}\n\n${listsTable(lists)}`);
  console.log('');

  const report = {
    bench: 'sql-resources',
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}` },
    settings: { ...settings, poolSize, kinds: selected, parts, http: httpSettings, memory: memorySettings, startup: startupSettings, lists: listsSettings },
    targets: { methods: methodsTarget, http: httpTargets, memoryGrowthMb: memoryTarget, lists: listsTargets },
    methods,
    overhead,
    streamAllocation,
    http,
    memory,
    startup,
    lists,
    durationSec: Math.round((Date.now() - startedAt) / 100) / 10,
  };
  console.log(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
