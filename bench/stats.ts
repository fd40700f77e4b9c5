/** Latency samples of one side of a comparison, and their summary. */
export class Samples {
  #values = new Float64Array(1 << 14);
  #length = 0;
  ops = 0;
  elapsedMs = 0;
  /** CPU time of this process (user + system) while the side ran, in microseconds. */
  cpuMicros = 0;

  add(ms: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = ms;
  }

  /** The `p`-th percentile (0–100) of the recorded latencies, nearest-rank. */
  percentile(p: number): number {
    if (this.#length === 0) return NaN;
    const sorted = this.#values.slice(0, this.#length).sort();
    const rank = Math.min(this.#length - 1, Math.max(0, Math.ceil((p / 100) * this.#length) - 1));
    return sorted[rank];
  }

  summary(): Summary {
    return {
      opsPerSec: round(this.elapsedMs > 0 ? (this.ops * 1000) / this.elapsedMs : 0, 0),
      p50Ms: round(this.percentile(50), 3),
      p99Ms: round(this.percentile(99), 3),
      cpuMicrosPerOp: round(this.ops > 0 ? this.cpuMicros / this.ops : NaN, 1),
      ops: this.ops,
    };
  }
}

export interface Summary {
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Client CPU per operation: what the layer under test costs this process, less noisy than ops/s. */
  cpuMicrosPerOp: number;
  ops: number;
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function ratio(a: number, b: number): number {
  return b > 0 ? round(a / b, 3) : NaN;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
