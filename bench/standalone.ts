import { kinds, type Kind } from './servers';

type Log = (line: string) => void;

/**
 * Runs one part of the bench as a script of its own (`node …/bench/<part>.js`): the kinds of
 * BENCH_ONLY, the part's heading and table, then its figures as one JSON line.
 */
export function runStandalone<S, R>(
  part: string,
  settings: S,
  run: (selected: Kind[], settings: S, log: Log) => Promise<R>,
  heading: (settings: S) => string,
  table: (result: R) => string,
): void {
  const only = process.env.BENCH_ONLY as Kind | undefined;
  const selected = only ? kinds.filter((kind) => kind === only) : kinds;
  const startedAt = Date.now();
  const log: Log = (line) => console.error(`[bench ${part} ${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${line}`);
  run(selected, settings, log).then(
    (result) => {
      console.log(`\n${heading(settings)}\n`);
      console.log(table(result));
      console.log(JSON.stringify({ [part]: result, settings }));
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
