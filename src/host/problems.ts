import { SqlResourceError } from '../errors';
import { profileLocator } from './profile';

/** Keys and list indexes from the top of a profile down to a value. */
export type ProblemPath = readonly (string | number)[];

/** One thing wrong in a profile, where it is, so that it can be shown with its line and column. */
export interface Problem {
  readonly path: ProblemPath;
  /** Set when the problem is a key of the mapping at `path` (an unknown key): the key is located. */
  readonly key?: string;
  /** What is wrong, without the path. */
  readonly message: string;
}

/** The problems each error of `profileProblems` lists, for `check` to print them one per line. */
const listed = new WeakMap<SqlResourceError, readonly string[]>();

/** `<subject> has N problem(s):` and one `- problem` line each: the one format of problem lists. */
export function formatProblems(subject: string, problems: readonly string[]): string {
  return `${subject} has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n- ${problems.join('\n- ')}`;
}

const plainKey = /^[A-Za-z_$][\w$-]*$/;

function keysText(path: ProblemPath): string {
  return path
    .map((segment, depth) => (typeof segment === 'number' ? `[${segment}]` : plainKey.test(segment) ? `${depth === 0 ? '' : '.'}${segment}` : `[${JSON.stringify(segment)}]`))
    .join('');
}

/**
 * A problem in words: `<where>: <what>`. Inside an endpoint, where is `server.endpoints[2] (/orders)`,
 * its route being how a reader finds it, and the keys below it start the what (`sql must be a string`).
 */
function problemText(problem: Problem, profile: unknown): string {
  const { path, message } = problem;
  if (path.length >= 3 && path[0] === 'server' && path[1] === 'endpoints' && typeof path[2] === 'number') {
    const entry = (profile as { server?: { endpoints?: unknown[] } } | undefined)?.server?.endpoints?.[path[2]];
    const route = typeof entry === 'object' && entry !== null ? (entry as { path?: unknown }).path : undefined;
    const below = keysText(path.slice(3)).replace(/^\./, '');
    return `${keysText(path.slice(0, 3))}${typeof route === 'string' ? ` (${route})` : ''}: ${below === '' ? '' : `${below} `}${message}`;
  }
  return `${path.length === 0 ? 'profile' : keysText(path)}: ${message}`;
}

/** Orders paths as a reader meets them: by key, list indexes by number, a parent before its children. */
function comparePaths(a: ProblemPath, b: ProblemPath): number {
  for (let depth = 0; depth < Math.min(a.length, b.length); depth++) {
    const [x, y] = [a[depth], b[depth]];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Problems as lines, `line L, column C: <where>: <what>`, in the order of the file; a profile
 * given as an object has no lines, and its problems are ordered by path.
 */
function describeProblems(problems: readonly Problem[], profile: unknown): string[] {
  const locator = profileLocator(profile);
  const located = problems.map((problem, order) => ({ problem, order, position: locator?.locate(problem.path, problem.key) }));
  const rank = (position: { line: number; column: number } | undefined): number => (position === undefined ? Infinity : position.line * 1e6 + position.column);
  located.sort((a, b) => rank(a.position) - rank(b.position) || comparePaths(a.problem.path, b.problem.path) || a.order - b.order);
  return located.map(({ problem, position }) => `${position === undefined ? '' : `line ${position.line}, column ${position.column}: `}${problemText(problem, profile)}`);
}

/**
 * One CONFIG_INVALID error listing every problem found in a profile, so it is fixed in one pass.
 * Located problems are shown with the line and column of `profile`'s file.
 */
export function profileProblems(problems: readonly (string | Problem)[], cause?: unknown, profile?: unknown): SqlResourceError {
  const lines = [
    ...describeProblems(problems.filter((problem): problem is Problem => typeof problem !== 'string'), profile),
    ...problems.filter((problem): problem is string => typeof problem === 'string'),
  ];
  const error = new SqlResourceError('CONFIG_INVALID', formatProblems('profile', lines), { cause });
  listed.set(error, Object.freeze(lines));
  return error;
}

/** The problems an error stands for: those `profileProblems` listed, else its message alone. */
export function problemsOf(error: unknown): readonly string[] {
  if (error instanceof SqlResourceError) return listed.get(error) ?? [error.message];
  const message = (error as { message?: unknown } | null)?.message;
  return [typeof message === 'string' ? message : String(error)];
}
