import { isPlainObject } from '../config';
import type { EndpointDefinition } from '../endpoints';
import type { SqlResource } from '../sql-resource';
import { createApp, type App } from './app';
import { sqlProblems, type CheckReport, type CheckSinks } from './check-sql';
import { problemsOf } from './problems';
import type { Profile } from './profile';

export type { CheckReport } from './check-sql';

/** Says what `check` found that works but deserves a look; not a problem, so exit code 0. */
export type CheckWarning = (message: string) => void;

/** Keys of a table list that name columns. */
const listColumnKeys = ['filters', 'sort', 'select'] as const;

/** The columns an endpoint's `scope` restricts (table endpoints only: the profile refuses it beside `sql`). */
function scopeColumns(endpoint: EndpointDefinition): string[] {
  const scope = endpoint.config.scope;
  return endpoint.sql === undefined && isPlainObject(scope) ? Object.keys(scope) : [];
}

async function tableProblems(resource: SqlResource, table: string, endpoint: EndpointDefinition, where: string, warn: CheckWarning): Promise<string[]> {
  const columns = await resource.columns(table);
  if (columns.length === 0) return [`${where}: table '${table}' does not exist in resource '${endpoint.resource}'`];
  const problems: string[] = [];
  // Names the database itself matches: without regard to case on MySQL, exactly on PostgreSQL.
  const ignoreCase = resource.dialect.columnNamesIgnoreCase;
  const columnNamed = (name: string): (typeof columns)[number] | undefined =>
    columns.find((column) => column.name === name || (ignoreCase && column.name.toLowerCase() === name.toLowerCase()));
  if (endpoint.id_field !== undefined) {
    const key = columnNamed(endpoint.id_field);
    if (key === undefined) problems.push(`${where}: table '${table}' has no column '${endpoint.id_field}' (id_field)`);
    else if (!key.unique && endpoint.endpoint !== 'create') {
      warn(
        `${where}: id_field '${endpoint.id_field}' of table '${table}' is not unique (no primary key or unique index on it alone): ` +
          'a request whose id matches several rows reads them all, and update/delete answer 409 and change nothing',
      );
    }
  }
  // A scope column the table lacks fails every request of the endpoint.
  for (const column of scopeColumns(endpoint)) {
    if (columnNamed(column) === undefined) problems.push(`${where}: table '${table}' has no column '${column}' (scope)`);
  }
  // A list column the table lacks fails every request that names it (select: every request).
  for (const key of listColumnKeys) {
    const value = endpoint.config[key];
    for (const column of Array.isArray(value) ? value : []) {
      if (typeof column === 'string' && columnNamed(column) === undefined) problems.push(`${where}: table '${table}' has no column '${column}' (${key})`);
    }
  }
  return problems;
}

async function endpointProblems(app: App, sinks: CheckSinks): Promise<string[]> {
  const problems: string[] = [];
  for (const endpoint of app.endpoints) {
    const where = `${endpoint.method} ${endpoint.path}`;
    const resource = app.resources.get(endpoint.resource);
    if (endpoint.table !== undefined) problems.push(...(await tableProblems(resource, endpoint.table, endpoint, where, sinks.warn)));
    if (endpoint.sql !== undefined) problems.push(...(await sqlProblems(resource, endpoint, where, sinks)));
  }
  return problems;
}

/**
 * Validates a profile, connects every resource and checks each endpoint: its table, id column
 * and scope columns exist, and its `sql` prepares on the server (without running). Answers the problems
 * found; none means all is well. `warn` hears what works but deserves a look (an `id_field`
 * that is not unique, a `{{name}}` in a comment); `report` gets one line per `sql` endpoint
 * that prepared, naming its result columns.
 */
export async function checkApp(source: Profile | string, warn: CheckWarning = () => undefined, report: CheckReport = () => undefined): Promise<string[]> {
  let app: App;
  try {
    app = createApp(source);
  } catch (error) {
    return [...problemsOf(error)];
  }
  for (const warning of app.warnings) warn(warning);
  try {
    await app.resources.startAll();
  } catch (error) {
    return [...problemsOf(error)];
  }
  try {
    return await endpointProblems(app, { warn, report });
  } catch (error) {
    return [...problemsOf(error)];
  } finally {
    await app.resources.stopAll();
  }
}
