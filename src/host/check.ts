import { createApp, type App } from './app';
import { problemsOf } from './problems';
import type { Profile } from './profile';

/** Says what `check` found that works but deserves a look; not a problem, so exit code 0. */
export type CheckWarning = (message: string) => void;

async function endpointProblems(app: App, warn: CheckWarning): Promise<string[]> {
  const problems: string[] = [];
  for (const endpoint of app.endpoints) {
    if (endpoint.table === undefined) continue;
    const where = `${endpoint.method} ${endpoint.path}`;
    const columns = await app.resources.get(endpoint.resource).columns(endpoint.table);
    if (columns.length === 0) {
      problems.push(`${where}: table '${endpoint.table}' does not exist in resource '${endpoint.resource}'`);
    } else if (endpoint.id_field !== undefined) {
      const key = columns.find((column) => column.name === endpoint.id_field);
      if (key === undefined) problems.push(`${where}: table '${endpoint.table}' has no column '${endpoint.id_field}' (id_field)`);
      else if (!key.unique && endpoint.endpoint !== 'create') {
        warn(
          `${where}: id_field '${endpoint.id_field}' of table '${endpoint.table}' is not unique (no primary key or unique index on it alone): ` +
            'a request whose id matches several rows reads them all, and update/delete answer 409 and change nothing',
        );
      }
    }
  }
  return problems;
}

/**
 * Validates a profile, connects every resource and checks that each endpoint's table and id
 * column exist. Answers the problems found; none means all is well. `warn` hears what works
 * but deserves a look (an `id_field` that is not unique).
 */
export async function checkApp(source: Profile | string, warn: CheckWarning = () => undefined): Promise<string[]> {
  let app: App;
  try {
    app = createApp(source);
  } catch (error) {
    return [...problemsOf(error)];
  }
  try {
    await app.resources.startAll();
  } catch (error) {
    return [...problemsOf(error)];
  }
  try {
    return await endpointProblems(app, warn);
  } catch (error) {
    return [...problemsOf(error)];
  } finally {
    await app.resources.stopAll();
  }
}
