import type { MethodResult } from './methods';
import type { OverheadResult } from './overhead';

/** Left-aligned first column, right-aligned others. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const line = (row: string[]): string => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function methodsTable(results: MethodResult[], target: number): string {
  return table(
    ['kind / method', 'callers', 'resource ops/s', 'p50 ms', 'p99 ms', 'cpu µs/op', 'raw ops/s', 'p50 ms', 'p99 ms', 'cpu µs/op', 'ratio', 'of totals', 'target'],
    results.map((r) => [
      `${r.kind} ${r.method}`,
      r.concurrency,
      r.resource.opsPerSec,
      r.resource.p50Ms.toFixed(3),
      r.resource.p99Ms.toFixed(3),
      r.resource.cpuMicrosPerOp.toFixed(1),
      r.raw.opsPerSec,
      r.raw.p50Ms.toFixed(3),
      r.raw.p99Ms.toFixed(3),
      r.raw.cpuMicrosPerOp.toFixed(1),
      r.ratio.toFixed(3),
      r.ratioOfTotals.toFixed(3),
      r.concurrency >= 32 ? (r.ratio >= target ? `ok ≥${target}` : `LOW <${target}`) : '-',
    ]),
  );
}

export function overheadTable(results: OverheadResult[]): string {
  return table(
    ['method', 'resource µs/call', 'stub alone µs/call', 'added by the resource µs'],
    results.map((r) => [r.method, r.resourceMicros.toFixed(2), r.stubMicros.toFixed(2), r.addedMicros.toFixed(2)]),
  );
}
