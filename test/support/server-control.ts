import { execSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { mysqlServer, postgresServer, probe, startCommands, type Kind } from './servers';

/** Runs one shell command. The default runs it; the guard's own tests pass one that records. */
export type CommandRunner = (command: string) => void;

const runInShell: CommandRunner = (command) => {
  execSync(command, { stdio: 'ignore', shell: '/bin/bash' });
};

// Both commands return once the server process is gone, so a later start is not taken
// for "already running" by start-stop-daemon or pg_ctlcluster.
const stopCommands: Record<Kind, string> = {
  mysql:
    `mysqladmin --protocol=tcp -h ${mysqlServer.host} -P ${mysqlServer.port} -u ${mysqlServer.user} shutdown` +
    ' && while pgrep -x mariadbd >/dev/null || pgrep -x mysqld >/dev/null; do sleep 0.1; done',
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main stop -m fast',
};

/** The environment variable that names each server's host (README, "Test servers"). */
const hostVariables: Record<Kind, string> = { mysql: 'MYSQL_HOST', postgres: 'PGHOST' };

/** 127.0.0.0/8, ::1, and IPv4 loopback written as IPv6 (::ffff:127.x.x.x). */
export function isLoopbackAddress(address: string): boolean {
  const ipv4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (ipv4 !== undefined) return isIP(ipv4) === 4 && ipv4.startsWith('127.');
  return address === '::1';
}

/**
 * Refuses, before any command runs, to stop or start a server that is not on this machine:
 * `mysqladmin shutdown` goes to whatever host MYSQL_HOST names, and the local commands would
 * restart a server the tests do not use. Every address the host resolves to must be loopback.
 */
export async function assertLocalServer(kind: Kind, action: 'stop' | 'start'): Promise<void> {
  const { host } = kind === 'mysql' ? mysqlServer : postgresServer;
  const addresses = await lookup(host, { all: true }).then(
    (found) => found.map((entry) => entry.address),
    () => [],
  );
  const remote = addresses.filter((address) => !isLoopbackAddress(address));
  if (addresses.length > 0 && remote.length === 0) return;
  const variable = hostVariables[kind];
  const why = addresses.length === 0 ? 'the name does not resolve' : `it resolves to ${remote.join(', ')}, which is not a loopback address`;
  throw new Error(
    `refusing to ${action} the ${kind} server at ${host} (${variable}): ${why}. ` +
      'The tests that stop and restart a server only do so on a loopback address of this machine (127.0.0.0/8, ::1, localhost). ' +
      `Point ${variable} at a local server, or run \`npm run test:unit\`, which needs no server.`,
  );
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const reachable = (kind: Kind): Promise<boolean> => probe(kind).then(() => true, () => false);

/** Stops the local server of `kind` and waits until it refuses connections; refuses a remote one. */
export async function stopServer(kind: Kind, run: CommandRunner = runInShell): Promise<void> {
  await assertLocalServer(kind, 'stop');
  run(stopCommands[kind]);
  await waitFor(async () => !(await reachable(kind)), 30_000, `${kind} to stop`);
}

/** Starts the local server of `kind` (idempotent) and waits until it answers; refuses a remote one. */
export async function startServer(kind: Kind, run: CommandRunner = runInShell): Promise<void> {
  if (await reachable(kind)) return;
  await assertLocalServer(kind, 'start');
  run(startCommands[kind]);
  await waitFor(() => reachable(kind), 60_000, `${kind} to start`);
}
