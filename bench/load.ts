import { Samples } from './stats';

/** One operation; `worker` is the caller's index, for callers that need disjoint inputs. */
export type Operation = (worker: number) => Promise<unknown>;

/**
 * Runs `op` from `concurrency` callers in a closed loop for `durationMs`; each caller starts
 * its next operation as soon as the previous one settles. Latencies and counts go to `into`.
 * A failing operation fails the round: a benchmark must not count errors as throughput.
 */
export async function closedLoop(op: Operation, concurrency: number, durationMs: number, into?: Samples): Promise<void> {
  const cpuAtStart = process.cpuUsage();
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  let ops = 0;
  const caller = async (worker: number): Promise<void> => {
    let now = performance.now();
    while (now < deadline) {
      const begin = now;
      await op(worker);
      now = performance.now();
      into?.add(now - begin);
      ops++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, worker) => caller(worker)));
  if (into) {
    into.ops += ops;
    into.elapsedMs += performance.now() - startedAt;
    const cpu = process.cpuUsage(cpuAtStart);
    into.cpuMicros += cpu.user + cpu.system;
  }
}
