import { execSync } from 'node:child_process';
import { mysqlServer, probe, startCommands, type Kind } from './servers';

// Both commands return once the server process is gone, so a later start is not taken
// for "already running" by start-stop-daemon or pg_ctlcluster.
const stopCommands: Record<Kind, string> = {
  mysql:
    `mysqladmin --protocol=tcp -h ${mysqlServer.host} -P ${mysqlServer.port} -u ${mysqlServer.user} shutdown` +
    ' && while pgrep -x mariadbd >/dev/null || pgrep -x mysqld >/dev/null; do sleep 0.1; done',
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main stop -m fast',
};

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const reachable = (kind: Kind): Promise<boolean> => probe(kind).then(() => true, () => false);

/** Stops the real server of `kind` and waits until it refuses connections. */
export async function stopServer(kind: Kind): Promise<void> {
  execSync(stopCommands[kind], { stdio: 'ignore', shell: '/bin/bash' });
  await waitFor(async () => !(await reachable(kind)), 30_000, `${kind} to stop`);
}

/** Starts the real server of `kind` (idempotent) and waits until it answers. */
export async function startServer(kind: Kind): Promise<void> {
  if (await reachable(kind)) return;
  execSync(startCommands[kind], { stdio: 'ignore', shell: '/bin/bash' });
  await waitFor(() => reachable(kind), 60_000, `${kind} to start`);
}
