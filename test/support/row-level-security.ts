import { rawQuery } from './servers';

/**
 * A PostgreSQL table under a row-level security policy, and the roles to reach it. The test
 * server's users are superusers, which bypass RLS even with FORCE: `login` is a NOINHERIT login
 * role with no privilege on the table, a member of `reader`, which holds them all.
 */
export interface RowLevelSecurity {
  table: string;
  login: string;
  reader: string;
  /** More NOLOGIN roles, with no privilege and no membership. */
  others?: string[];
  /** The columns after `id SERIAL PRIMARY KEY`, e.g. `tenant_id INT NOT NULL, label TEXT NOT NULL`. */
  columns: string;
  /** The policy `tenant_rows`: the rows a statement may see (USING) and write (WITH CHECK). */
  policy: string;
}

/** Creates the roles, the table (empty) and its policy. */
export async function createRowLevelSecurity({ table, login, reader, others = [], columns, policy }: RowLevelSecurity): Promise<void> {
  await rawQuery('postgres', `CREATE ROLE "${login}" LOGIN NOINHERIT`);
  await rawQuery('postgres', `CREATE ROLE "${reader}" NOLOGIN`);
  for (const role of others) await rawQuery('postgres', `CREATE ROLE "${role}" NOLOGIN`);
  await rawQuery('postgres', `GRANT "${reader}" TO "${login}"`);
  await rawQuery('postgres', `CREATE TABLE "${table}" (id SERIAL PRIMARY KEY, ${columns})`);
  await rawQuery('postgres', `ALTER TABLE "${table}" ENABLE ROW LEVEL SECURITY`);
  await rawQuery('postgres', `ALTER TABLE "${table}" FORCE ROW LEVEL SECURITY`);
  await rawQuery('postgres', `CREATE POLICY tenant_rows ON "${table}" USING (${policy}) WITH CHECK (${policy})`);
  await rawQuery('postgres', `GRANT SELECT, INSERT, UPDATE, DELETE ON "${table}" TO "${reader}"`);
  await rawQuery('postgres', `GRANT USAGE ON SEQUENCE "${table}_id_seq" TO "${reader}"`);
}

/** Drops the table and the roles, whichever of them exist. */
export async function dropRowLevelSecurity({ table, login, reader, others = [] }: RowLevelSecurity): Promise<void> {
  await rawQuery('postgres', `DROP TABLE IF EXISTS "${table}"`);
  await rawQuery('postgres', `DROP ROLE IF EXISTS ${[login, reader, ...others].map((role) => `"${role}"`).join(', ')}`);
}
