import { ResourceManager } from '../src/resource-manager';
import type { SqlResource } from '../src/sql-resource';
import { BenchTable } from './fixtures';
import { closedLoop, type Operation } from './load';
import { rawDriver, type RawDriver } from './raw';
import { marker, quote, servers, uniqueTable, type Kind } from './servers';
import { Samples, median, ratio, round, type Summary } from './stats';

export const methodNames = ['read', 'insert', 'update', 'delete', 'query'] as const;
export type MethodName = (typeof methodNames)[number];

export interface MethodsSettings {
  methods: MethodName[];
  /** Seeded rows in the bench table. */
  rows: number;
  /** Concurrent callers to measure at. */
  concurrencies: number[];
  /**
   * Measured rounds per side at the target concurrency (32); a quarter as many, at least 4, below it,
   * where no target applies. Sides alternate, and which goes first alternates too.
   */
  rounds: number;
  roundMs: number;
  /** Unmeasured run of each side before its rounds (JIT, prepared statements, pool fill). */
  warmupMs: number;
}

export interface MethodResult {
  kind: Kind;
  method: MethodName;
  concurrency: number;
  resource: Summary;
  raw: Summary;
  /**
   * resource ÷ raw: the median over rounds of (resource ops/s ÷ raw ops/s) in adjacent rounds,
   * so a burst of outside load that hits one round of one side does not decide the figure.
   */
  ratio: number;
  /** resource ÷ raw over all rounds together. */
  ratioOfTotals: number;
  roundRatios: number[];
  /** delete only: times a round ran out of prepared rows and its callers waited for more (0 expected). */
  inlineRefills?: number;
}

/** One method through the resource (A) and through the bare driver (B), on the same statement. */
interface Case {
  resource: Operation;
  raw: Operation;
  /** Runs before each round (unmeasured) with the number of operations it may take. */
  beforeRound?: (maxOps: number) => Promise<void>;
}

function randomId(rows: number): number {
  return 1 + Math.floor(Math.random() * rows);
}

/** Counters a run reports beside its figures. */
interface CaseStats {
  /** Times `delete` ran out of prepared rows inside a round and waited for more. */
  inlineRefills: number;
}

function cases(kind: Kind, table: BenchTable, resource: SqlResource, raw: RawDriver, stats: CaseStats): Record<MethodName, Case> {
  const t = quote(kind, table.name);
  const c = (column: string): string => quote(kind, column);
  const $ = (index: number): string => marker(kind, index);
  const name = table.name;
  const rows = table.rows;
  let serial = 0;

  // The raw side runs exactly the SQL text the resource builds, so the server does the same work.
  const rawRead = raw.prepare(`SELECT * FROM ${t} WHERE ${c('id')} = ${$(1)}`);
  const rawInsert = raw.prepare(`INSERT INTO ${t} (${c('name')}, ${c('qty')}, ${c('price')}, ${c('note')}) VALUES (${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}) RETURNING *`);
  const rawUpdate = raw.prepare(`UPDATE ${t} SET ${c('qty')} = ${$(1)} WHERE ${c('id')} = ${$(2)}`);
  const rawDelete = raw.prepare(`DELETE FROM ${t} WHERE ${c('id')} = ${$(1)}`);
  const rangeSql = `SELECT * FROM ${t} WHERE id BETWEEN ${$(1)} AND ${$(2)}`;
  const rawRange = raw.prepare(rangeSql);

  // Rows for `delete` to take, made before each round; should a round outrun its estimate, the
  // callers wait for one shared top-up (counted, and printed) instead of deleting nothing.
  const deletable: number[] = [];
  let topUp: Promise<void> | undefined;
  const refill = (count: number): Promise<void> =>
    (topUp ??= table
      .deletable(count)
      .then((ids) => void deletable.push(...ids.reverse()))
      .finally(() => (topUp = undefined)));
  const withDeletable = (remove: (id: number) => Promise<unknown>): Promise<unknown> => {
    const id = deletable.pop();
    if (id !== undefined) return remove(id);
    stats.inlineRefills++;
    return refill(1000).then(() => withDeletable(remove));
  };

  return {
    read: {
      resource: () => resource.read(name, { id: randomId(rows) }),
      raw: () => rawRead([randomId(rows)]),
    },
    insert: {
      resource: () => resource.insert(name, { name: `ins-${++serial}`, qty: serial % 97, price: 9.99, note: 'inserted by the bench' }),
      raw: () => rawInsert([`ins-${++serial}`, serial % 97, 9.99, 'inserted by the bench']),
    },
    update: {
      resource: () => resource.update(name, { qty: ++serial % 97 }, { id: randomId(rows) }),
      raw: () => rawUpdate([++serial % 97, randomId(rows)]),
    },
    delete: {
      resource: () => withDeletable((id) => resource.delete(name, { id })),
      raw: () => withDeletable((id) => rawDelete([id])),
      beforeRound: async (maxOps) => {
        if (deletable.length < maxOps) await refill(maxOps - deletable.length);
      },
    },
    query: {
      resource: () => {
        const low = randomId(rows - 99);
        return resource.query(rangeSql, [low, low + 99]);
      },
      raw: () => {
        const low = randomId(rows - 99);
        return rawRange([low, low + 99]);
      },
    },
  };
}

/**
 * Part 1: each method through a started resource against the bare driver pool, per kind and
 * concurrency, the two sides interleaved in short rounds so machine noise hits both.
 */
export async function benchMethods(kind: Kind, settings: MethodsSettings, progress: (line: string) => void): Promise<MethodResult[]> {
  const table = new BenchTable(kind, uniqueTable('bench_methods'), settings.rows);
  const resource = new ResourceManager().add(`bench_${kind}`, { _class: kind, server: { ...servers[kind] } });
  const raw = rawDriver(kind);
  const results: MethodResult[] = [];
  const stats: CaseStats = { inlineRefills: 0 };
  try {
    await table.create();
    await resource.start();
    const all = cases(kind, table, resource, raw, stats);
    // Every path of both sides once before any cell, so that the first cell measured is not
    // also the one that pays for compiling the code (JIT) the later ones share.
    for (const method of settings.methods) {
      const { resource: a, raw: b, beforeRound } = all[method];
      for (const op of [a, b]) {
        await beforeRound?.(Math.ceil((40_000 * settings.warmupMs) / 1000));
        await closedLoop(op, 32, settings.warmupMs);
      }
    }
    for (const method of settings.methods) {
      const { resource: a, raw: b, beforeRound } = all[method];
      for (const concurrency of settings.concurrencies) {
        // Rows a round may consume (delete): from the fastest rate seen so far, with margin.
        let fastest = 20_000;
        const budget = (ms: number): number => Math.ceil((fastest * 2 * ms) / 1000) + 200;
        const sides = [
          { op: a, samples: new Samples() },
          { op: b, samples: new Samples() },
        ];
        /** Runs one side for `ms`; answers its rate in that round. */
        const measure = async (op: Operation, ms: number, samples: Samples): Promise<number> => {
          await beforeRound?.(budget(ms));
          const [opsBefore, msBefore] = [samples.ops, samples.elapsedMs];
          await closedLoop(op, concurrency, ms, samples);
          const rate = ((samples.ops - opsBefore) * 1000) / (samples.elapsedMs - msBefore);
          fastest = Math.max(fastest, rate);
          return rate;
        };
        for (const side of sides) await measure(side.op, settings.warmupMs, new Samples());
        // Pairs of adjacent rounds; which side goes first alternates.
        const roundRatios: number[] = [];
        stats.inlineRefills = 0;
        const rounds = concurrency >= 32 ? settings.rounds : Math.max(4, Math.ceil(settings.rounds / 4));
        for (let pass = 0; pass < rounds; pass++) {
          const rates = [0, 0];
          const order = pass % 2 === 0 ? [0, 1] : [1, 0];
          for (const index of order) rates[index] = await measure(sides[index].op, settings.roundMs, sides[index].samples);
          roundRatios.push(rates[0] / rates[1]);
        }
        const result: MethodResult = {
          kind,
          method,
          concurrency,
          resource: sides[0].samples.summary(),
          raw: sides[1].samples.summary(),
          ratio: round(median(roundRatios), 3),
          ratioOfTotals: ratio(sides[0].samples.ops / sides[0].samples.elapsedMs, sides[1].samples.ops / sides[1].samples.elapsedMs),
          roundRatios: roundRatios.map((value) => round(value, 3)),
          ...(method === 'delete' ? { inlineRefills: stats.inlineRefills } : {}),
        };
        results.push(result);
        progress(
          `${kind} ${method} ×${concurrency}: resource ${result.resource.opsPerSec} ops/s (${result.resource.cpuMicrosPerOp} µs cpu/op), ` +
            `raw ${result.raw.opsPerSec} ops/s (${result.raw.cpuMicrosPerOp} µs cpu/op), ratio ${result.ratio} (totals ${result.ratioOfTotals})` +
            (result.inlineRefills ? `, ${result.inlineRefills} inline refills` : ''),
        );
      }
    }
    return results;
  } finally {
    await resource.stop();
    await raw.close();
    await table.drop();
  }
}
