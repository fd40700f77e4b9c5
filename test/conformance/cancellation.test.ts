import type { SqlResource } from '../../src';
import { callerSignal } from '../../src/cancellation';
import { ResourceManager } from '../../src/resource-manager';
import { runningStatements as running, waitUntil } from '../support/activity';
import { kinds, resourceConfig, type Kind } from '../support/servers';

/** A statement that sleeps `seconds`, tagged so the catalogue of running statements can find it. */
function sleepSql(kind: Kind, tag: string, seconds: number): string {
  return kind === 'mysql' ? `SELECT SLEEP(${seconds}) AS slept, '${tag}' AS tag` : `SELECT pg_sleep(${seconds}) AS slept, '${tag}' AS tag`;
}

/** How each server reports a statement it cancelled. */
const cancelledBy: Record<Kind, Record<string, string>> = {
  mysql: { driverCode: 'ER_QUERY_INTERRUPTED' },
  postgres: { sqlState: '57014' },
};

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(kinds)('%s: a statement whose caller left is cancelled on the server', (kind: Kind) => {
  let resource: SqlResource;

  beforeAll(async () => {
    const pool = kind === 'mysql' ? { connectionLimit: 4 } : { max: 4 };
    resource = new ResourceManager().add('db', resourceConfig(kind, pool, { keepAliveInterval: 0 }));
    await resource.start();
  });

  afterAll(async () => {
    await resource.stop();
  });

  // The host's signal (callerSignal) keeps its cancel watches beside it; any other AbortSignal is listened to.
  it.each([
    ['an AbortController', (): { signal: AbortSignal; abort: () => void } => new AbortController()],
    ["the host's caller signal", callerSignal],
  ])('query: aborting %s 50 ms in ends the statement on the server within 1 s', async (_label, makeSignal) => {
    const tag = `cancel_query_${kind}_${Date.now()}`;
    const controller = makeSignal();
    const outcome = resource.query(sleepSql(kind, tag, 5), [], { signal: controller.signal }).catch((error: unknown) => error);
    await pause(50);
    expect(await waitUntil(async () => (await running(kind, tag)) === 1, 1000)).toBe(true);
    controller.abort();
    expect(await waitUntil(async () => (await running(kind, tag)) === 0, 1000)).toBe(true);
    expect(await outcome).toMatchObject(cancelledBy[kind]);
    // The pool is healthy afterwards.
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('streamBatches: aborting before the first batch ends the statement within 1 s', async () => {
    const tag = `cancel_stream_${kind}_${Date.now()}`;
    const controller = new AbortController();
    const batches = resource.streamBatches(sleepSql(kind, tag, 5), [], { signal: controller.signal });
    const first = batches.next().catch((error: unknown) => error);
    expect(await waitUntil(async () => (await running(kind, tag)) === 1, 1000)).toBe(true);
    controller.abort();
    expect(await waitUntil(async () => (await running(kind, tag)) === 0, 1000)).toBe(true);
    expect(await first).toMatchObject(cancelledBy[kind]);
    await batches.return(undefined);
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it.each(['query', 'streamBatches'] as const)('%s: a caller that leaves while its statement waits for a connection gets CANCELLED, and the statement never runs', async (method) => {
    const busyTag = `cancel_busy_${kind}_${Date.now()}`;
    const waitingTag = `cancel_waiting_${kind}_${Date.now()}`;
    const holders = Array.from({ length: 4 }, () => new AbortController());
    const held = holders.map((holder) => resource.query(sleepSql(kind, busyTag, 5), [], { signal: holder.signal }).catch((error: unknown) => error));
    expect(await waitUntil(async () => (await running(kind, busyTag)) === 4, 2000)).toBe(true);
    const caller = callerSignal();
    const statement = sleepSql(kind, waitingTag, 5);
    const options = { signal: caller.signal };
    const waiting = (method === 'query' ? resource.query(statement, [], options) : resource.streamBatches(statement, [], options).next()).catch((error: unknown) => error);
    await pause(50);
    caller.abort();
    for (const holder of holders) holder.abort();
    await Promise.all(held);
    expect(await waiting).toMatchObject({ code: 'CANCELLED', message: expect.stringMatching(/caller is gone/) });
    expect(await running(kind, waitingTag)).toBe(0);
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('an already aborted signal runs nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(resource.query('SELECT 1 AS one', [], { signal: controller.signal })).rejects.toMatchObject({ code: 'CANCELLED', message: expect.stringMatching(/caller is gone/) });
  });

  it('streams hold at most the pool size less two connections; point reads still get one', async () => {
    const rowsSql = kind === 'mysql' ? 'SELECT a.d FROM (SELECT 1 AS d UNION ALL SELECT 2) a' : 'SELECT generate_series(1, 2) AS d';
    // Pool of 4: two streams hold a connection each, a third waits for a slot.
    const held = [resource.streamBatches(rowsSql), resource.streamBatches(rowsSql)];
    for (const stream of held) expect((await stream.next()).done).toBe(false);
    const waiting = resource.streamBatches(rowsSql);
    let thirdStarted = false;
    const third = waiting.next().then((step) => {
      thirdStarted = true;
      return step;
    });
    await pause(200);
    expect(thirdStarted).toBe(false);
    const reads = await Promise.all(Array.from({ length: 20 }, () => resource.query('SELECT 1 AS one')));
    expect(reads).toEqual(Array.from({ length: 20 }, () => [{ one: 1 }]));
    await held[0].return(undefined);
    expect((await third).done).toBe(false);
    expect(thirdStarted).toBe(true);
    await held[1].return(undefined);
    await waiting.return(undefined);
  });

  it('a stream waiting for a slot leaves the queue when its caller leaves', async () => {
    const rowsSql = kind === 'mysql' ? 'SELECT 1 AS d' : 'SELECT 1 AS d';
    const held = [resource.streamBatches(`${rowsSql} UNION ALL SELECT 2`), resource.streamBatches(`${rowsSql} UNION ALL SELECT 2`)];
    for (const stream of held) await stream.next();
    const controller = new AbortController();
    const waiting = resource.streamBatches(rowsSql, [], { signal: controller.signal });
    const outcome = waiting.next().then(
      () => 'started',
      (error: Error) => error.message,
    );
    await pause(50);
    controller.abort();
    expect(await outcome).toMatch(/caller is gone/);
    for (const stream of held) await stream.return(undefined);
    // Both slots are free again: two more streams start at once.
    const again = [resource.streamBatches(rowsSql), resource.streamBatches(rowsSql)];
    for (const stream of again) expect((await stream.next()).value).toEqual([{ d: 1 }]);
    for (const stream of again) await stream.return(undefined);
  });
});
