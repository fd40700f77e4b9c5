import { SqlResourceError } from '../errors';

/** The problems each error of `profileProblems` lists, for `check` to print them one per line. */
const listed = new WeakMap<SqlResourceError, readonly string[]>();

/** `<subject> has N problem(s):` and one `- problem` line each: the one format of problem lists. */
export function formatProblems(subject: string, problems: readonly string[]): string {
  return `${subject} has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n- ${problems.join('\n- ')}`;
}

/** One CONFIG_INVALID error listing every problem found in a profile, so it is fixed in one pass. */
export function profileProblems(problems: readonly string[], cause?: unknown): SqlResourceError {
  const error = new SqlResourceError('CONFIG_INVALID', formatProblems('profile', problems), { cause });
  listed.set(error, Object.freeze([...problems]));
  return error;
}

/** The problems an error stands for: those `profileProblems` listed, else its message alone. */
export function problemsOf(error: unknown): readonly string[] {
  if (error instanceof SqlResourceError) return listed.get(error) ?? [error.message];
  const message = (error as { message?: unknown } | null)?.message;
  return [typeof message === 'string' ? message : String(error)];
}
