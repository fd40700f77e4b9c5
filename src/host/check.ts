import { createApp, type App } from './app';
import type { Profile } from './profile';

async function endpointProblems(app: App): Promise<string[]> {
  const problems: string[] = [];
  for (const endpoint of app.endpoints) {
    if (endpoint.table === undefined) continue;
    const where = `${endpoint.method} ${endpoint.path}`;
    const columns = await app.resources.get(endpoint.resource).columns(endpoint.table);
    if (columns.length === 0) {
      problems.push(`${where}: table '${endpoint.table}' does not exist in resource '${endpoint.resource}'`);
    } else if (endpoint.id_field !== undefined && !columns.some((column) => column.name === endpoint.id_field)) {
      problems.push(`${where}: table '${endpoint.table}' has no column '${endpoint.id_field}' (id_field)`);
    }
  }
  return problems;
}

/**
 * Validates a profile, connects every resource and checks that each endpoint's table and id
 * column exist. Answers the problems found; none means all is well.
 */
export async function checkApp(source: Profile | string): Promise<string[]> {
  let app: App;
  try {
    app = createApp(source);
  } catch (error) {
    return [(error as Error).message];
  }
  try {
    await app.resources.startAll();
  } catch (error) {
    return [(error as Error).message];
  }
  try {
    return await endpointProblems(app);
  } catch (error) {
    return [(error as Error).message];
  } finally {
    await app.resources.stopAll();
  }
}
