/**
 * Entry point of the stream allocation measurement (bench/stream-allocation.ts forks it with
 * `--expose-gc` and a large young generation). argv[2] is a JSON `StreamAllocationSettings`;
 * the result (or the error) goes back to the parent over IPC.
 */
import { measureStreamAllocation, type StreamAllocationSettings } from './stream-allocation';

const settings = JSON.parse(process.argv[2]) as StreamAllocationSettings;
measureStreamAllocation(settings).then(
  (result) => process.send!({ result }),
  (error: unknown) => {
    process.send!({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exitCode = 1;
  },
);
