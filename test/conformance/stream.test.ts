import { ResourceManager } from '../../src/resource-manager';
import type { SqlResource } from '../../src';
import { fillNumbersSql, kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

describe.each(kinds)('%s stream', (kind: Kind) => {
  const table = uniqueName('sr_stream');
  let resource: SqlResource;

  beforeAll(async () => {
    await rawQuery(kind, `CREATE TABLE ${q(kind, table)} (n INT PRIMARY KEY)`);
    await rawQuery(kind, fillNumbersSql(kind, q(kind, table), 5000));
    // One connection: a stream that kept it would block every later call.
    const pool = kind === 'mysql' ? { connectionLimit: 1 } : { max: 1 };
    resource = new ResourceManager().add('stream', resourceConfig(kind, pool, { keepAliveInterval: 0 }));
    await resource.start();
  });

  afterAll(async () => {
    await resource.stop();
    await rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`);
  });

  it('yields every row in order with bound parameters', async () => {
    const marker = kind === 'mysql' ? '?' : '$1';
    let count = 0;
    let last = 0;
    for await (const row of resource.stream(`SELECT n FROM ${q(kind, table)} WHERE n > ${marker} ORDER BY n`, [100])) {
      expect(row.n).toBe(last === 0 ? 101 : last + 1);
      last = Number(row.n);
      count += 1;
    }
    expect(count).toBe(4900);
  });

  it('streamBatches yields the same rows 200 at a time, the short batch last', async () => {
    const sizes: number[] = [];
    const rows: unknown[] = [];
    for await (const batch of resource.streamBatches(`SELECT n FROM ${q(kind, table)} WHERE n > 100 ORDER BY n`)) {
      sizes.push(batch.length);
      rows.push(...batch.map((row) => row.n));
    }
    expect(sizes).toEqual([...Array<number>(24).fill(200), 100]);
    expect(rows).toEqual(Array.from({ length: 4900 }, (_, index) => index + 101));
  });

  it('streamBatches follows the resource\'s streamBatchSize', async () => {
    const small = new ResourceManager().add('small-batches', resourceConfig(kind, {}, { keepAliveInterval: 0, streamBatchSize: 7 }));
    await small.start();
    try {
      const sizes: number[] = [];
      for await (const batch of small.streamBatches(`SELECT n FROM ${q(kind, table)} WHERE n <= 30 ORDER BY n`)) sizes.push(batch.length);
      expect(sizes).toEqual([7, 7, 7, 7, 2]);
      const rows: unknown[] = [];
      for await (const row of small.stream(`SELECT n FROM ${q(kind, table)} WHERE n <= 30 ORDER BY n`)) rows.push(row.n);
      expect(rows).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    } finally {
      await small.stop();
    }
  });

  it('frees the connection when the reader stops early', async () => {
    for (let round = 0; round < 3; round += 1) {
      for await (const row of resource.stream(`SELECT n FROM ${q(kind, table)} ORDER BY n`)) {
        if (Number(row.n) >= 10) break;
      }
    }
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('discards a connection whose result was cut short, and keeps one read to its end', async () => {
    const sessionSql = kind === 'mysql' ? 'SELECT CONNECTION_ID() AS session' : 'SELECT pg_backend_pid() AS session';
    const session = async (): Promise<unknown> => ((await resource.query(sessionSql)) as { session: unknown }[])[0].session;
    const before = await session();
    for await (const row of resource.stream(`SELECT n FROM ${q(kind, table)} ORDER BY n`)) void row;
    expect(await session()).toBe(before);
    for await (const row of resource.stream(`SELECT n FROM ${q(kind, table)} ORDER BY n`)) {
      if (Number(row.n) >= 10) break;
    }
    // The rest of a cut result would still be on the wire: a new connection must serve the next call.
    expect(await session()).not.toBe(before);
  });

  it('fails with the mapped error, and the connection stays usable', async () => {
    const iterator = resource.stream('SELECT * FROM sr_no_such_table_for_stream');
    await expect(iterator.next()).rejects.toMatchObject({ code: 'DB_ERROR', driverCode: kind === 'mysql' ? 'ER_NO_SUCH_TABLE' : '42P01' });
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('fails DB_UNAVAILABLE when the server ends its connection mid-stream, and the process and the resource go on', async () => {
    // A server restart under a list: the killed connection must fail its stream, not emit an
    // 'error' nobody hears (an uncaught exception would end the host).
    const marker = `sr_killed_stream_${process.pid}`;
    const sql = kind === 'mysql' ? `SELECT SLEEP(0.001) AS s, n, '${marker}' AS m FROM ${q(kind, table)} ORDER BY n` : `SELECT pg_sleep(0.001) AS s, n, '${marker}' AS m FROM ${q(kind, table)} ORDER BY n`;
    const batches = resource.streamBatches(sql);
    expect((await batches.next()).done).toBe(false);
    const kill =
      kind === 'mysql'
        ? `SELECT CONCAT('KILL ', id) AS k FROM information_schema.processlist WHERE info LIKE '%${marker}%' AND info NOT LIKE '%processlist%'`
        : `SELECT pg_terminate_backend(pid) AS k FROM pg_stat_activity WHERE query LIKE '%${marker}%' AND pid <> pg_backend_pid()`;
    const found = await rawQuery(kind, kill);
    expect(found).toHaveLength(1);
    if (kind === 'mysql') await rawQuery(kind, String(found[0].k));
    await expect((async () => {
      for (;;) if ((await batches.next()).done) return;
    })()).rejects.toMatchObject({ code: 'DB_UNAVAILABLE' });
    expect(await resource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
