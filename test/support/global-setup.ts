import { kinds, probe } from './servers';

/** Fails the whole run at once, with the command to start a missing server. */
export default async function globalSetup(): Promise<void> {
  const failures: string[] = [];
  for (const kind of kinds) {
    await probe(kind).catch((error: Error) => failures.push(error.message));
  }
  if (failures.length > 0) throw new Error(failures.join('\n'));
}
