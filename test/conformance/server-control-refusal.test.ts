import { assertLocalServer, isLoopbackAddress } from '../support/server-control';
import { kinds, probe, rawQuery, type Kind } from '../support/servers';

type ServerControl = typeof import('../support/server-control');

const hostVariables: Record<Kind, string> = { mysql: 'MYSQL_HOST', postgres: 'PGHOST' };

/** server-control loaded afresh with `variable` set to `host`: servers.ts reads it at load time. */
async function loadWith(variable: string, host: string): Promise<ServerControl> {
  const saved = process.env[variable];
  process.env[variable] = host;
  try {
    let loaded: ServerControl | undefined;
    await jest.isolateModulesAsync(async () => {
      loaded = await import('../support/server-control');
    });
    return loaded as ServerControl;
  } finally {
    if (saved === undefined) delete process.env[variable];
    else process.env[variable] = saved;
  }
}

/** When the real server started: a restart would change it (MySQL: the start second, from Uptime). */
async function startedAt(kind: Kind): Promise<number> {
  const sql =
    kind === 'mysql'
      ? "SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE AS started FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'"
      : 'SELECT EXTRACT(EPOCH FROM pg_postmaster_start_time()) AS started';
  const [row] = await rawQuery(kind, sql);
  return Number(row.started);
}

describe.each(kinds)('%s server control refuses a server that is not on this machine', (kind: Kind) => {
  const variable = hostVariables[kind];
  const refusal = (action: string): string =>
    `refusing to ${action} the ${kind} server at db.invalid (${variable}): the name does not resolve. ` +
    'The tests that stop and restart a server only do so on a loopback address of this machine (127.0.0.0/8, ::1, localhost). ' +
    `Point ${variable} at a local server, or run \`npm run test:unit\`, which needs no server.`;

  it(`refuses to stop it with ${variable}=db.invalid, before running any command`, async () => {
    const before = await startedAt(kind);
    const control = await loadWith(variable, 'db.invalid');
    const commands: string[] = [];
    await expect(control.stopServer(kind, (command) => void commands.push(command))).rejects.toThrow(refusal('stop'));
    expect(commands).toEqual([]);
    // The local server was not touched: still answering, and not restarted.
    await expect(probe(kind)).resolves.toBeUndefined();
    // MySQL's start second is derived from a clock and Uptime, so it may read one second later.
    expect((await startedAt(kind)) - before).toBeLessThanOrEqual(kind === 'mysql' ? 1 : 0);
  });

  it(`refuses to start it with ${variable}=db.invalid, before running any command`, async () => {
    const control = await loadWith(variable, 'db.invalid');
    const commands: string[] = [];
    await expect(control.startServer(kind, (command) => void commands.push(command))).rejects.toThrow(refusal('start'));
    expect(commands).toEqual([]);
  });

  it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1'])(`accepts ${variable}=%s, a loopback address`, async (host) => {
    const control = await loadWith(variable, host);
    await expect(control.assertLocalServer(kind, 'stop')).resolves.toBeUndefined();
  });
});

describe('the loopback test', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.5', false],
    ['128.0.0.1', false],
    ['0.0.0.0', false],
    ['::', false],
    ['::ffff:10.0.0.5', false],
    ['2001:db8::1', false],
    ['fe80::1', false],
  ])('%s is loopback: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });

  it('accepts the default test servers', async () => {
    for (const kind of kinds) await expect(assertLocalServer(kind, 'stop')).resolves.toBeUndefined();
  });
});
