import type { SqlDialect } from '../dialect';
import { compileEndpointSql, type EndpointDefinition } from '../endpoints';
import { buildTemplatePage } from '../sql-builder';
import { SqlResourceError } from '../errors';
import type { SqlResource } from '../sql-resource';
import type { CompiledTemplate } from '../template';
import { problemsOf } from './problems';

/** Says what `check` found for an endpoint that is fine: the columns its sql answers. */
export type CheckReport = (line: string) => void;

/** Where `check` sends what is not a problem. */
export interface CheckSinks {
  readonly warn: (message: string) => void;
  readonly report: CheckReport;
}

/** A `{{name}}` as the scanner reads one: still in the compiled SQL, it sat in text copied as written. */
const placeholderPattern = /\{\{\s*[A-Za-z0-9_.-]+\s*\}\}/g;

/**
 * Prepares an endpoint's `sql` on its resource without running it: answers the database's
 * error as a problem, or reports the result columns. Warns about a `{{name}}` that a comment
 * keeps from being substituted.
 */
export async function sqlProblems(resource: SqlResource, endpoint: EndpointDefinition, where: string, sinks: CheckSinks): Promise<string[]> {
  const template = compileEndpointSql(endpoint, resource.dialect);
  if (template === undefined) return [];
  for (const written of new Set(template.sql.match(placeholderPattern))) {
    sinks.warn(
      `${where}: ${written} is not substituted: it stands in a comment (or other text the template copies as written); ` +
        'placeholders bind values only in the SQL text and in string literals',
    );
  }
  try {
    const { columns } = await resource.describe(template.sql);
    sinks.report(`${where}: ${columns.length === 0 ? 'no result columns' : `columns ${columns.map((column) => `${column.name} ${column.type}`).join(', ')}`}`);
  } catch (error) {
    const hint = identifierHint(resource.dialect, template, error);
    return problemsOf(error).map((problem) => `${where}: sql: ${problem}${hint}`);
  }
  if (endpoint.endpoint !== 'list' || endpoint.config.page === undefined) return [];
  // A page is the template wrapped (lists/list-endpoint.ts): on MySQL a template with its own LIMIT cannot be.
  const paged = buildTemplatePage(resource.dialect, { sql: template.sql, values: template.parameterNames }, 1, 0);
  try {
    await resource.describe(paged.sql);
    return [];
  } catch (error) {
    return problemsOf(error).map((problem) => `${where}: sql, paged (page:): ${problem}; a paged template has no LIMIT of its own`);
  }
}

/** When the database's syntax error points at a placeholder, it stands where SQL needs a name, which no bound value can fill. */
function identifierHint(dialect: SqlDialect, template: CompiledTemplate, error: unknown): string {
  if (!(error instanceof SqlResourceError)) return '';
  const offset = dialect.errors.syntaxErrorOffset?.(error.cause, template.sql);
  const placeholder = offset === undefined ? undefined : placeholderAt(dialect, template, offset);
  return placeholder === undefined ? '' : `; ${placeholder} stands where the database expects a name or a keyword: placeholders bind values, not identifiers`;
}

/**
 * The placeholder whose marker starts at `offset` of the compiled SQL: `{{name}}`, or `a
 * placeholder` when the dialect's markers look alike and the SQL holds the marker elsewhere too
 * (in a literal or a comment), so its rank does not name it.
 */
function placeholderAt(dialect: SqlDialect, template: CompiledTemplate, offset: number): string | undefined {
  const { sql, parameterNames } = template;
  const markers = parameterNames.map((_, index) => dialect.placeholder(index + 1));
  // Longest first, so `$12` is not read as `$1`.
  const byLength = [...markers.keys()].sort((a, b) => markers[b].length - markers[a].length);
  const index = byLength.find((candidate) => sql.startsWith(markers[candidate], offset));
  if (index === undefined) return undefined;
  if (new Set(markers).size === markers.length) return `{{${parameterNames[index]}}}`;
  const marker = markers[index];
  const found: number[] = [];
  for (let at = sql.indexOf(marker); at >= 0; at = sql.indexOf(marker, at + marker.length)) found.push(at);
  const rank = found.indexOf(offset);
  return found.length === markers.length && rank >= 0 ? `{{${parameterNames[rank]}}}` : 'a placeholder';
}
