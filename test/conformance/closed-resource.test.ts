import { ResourceManager } from '../../src/resource-manager';
import type { QueryEvent, SqlResource } from '../../src';
import { kinds, q, rawQuery, resourceConfig, uniqueName, type Kind } from '../support/servers';

describe.each(kinds)('%s resource once closed', (kind: Kind) => {
  const table = uniqueName('sr_closed');

  beforeAll(() => rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id INT PRIMARY KEY, name VARCHAR(40))`));
  afterAll(() => rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`));

  function build(): SqlResource {
    return new ResourceManager().add('closed', resourceConfig(kind, {}, kind === 'mysql' ? { keepAliveInterval: 0 } : {}));
  }

  it('refuses every method with the catalogue code NOT_STARTED (503), in promises and callbacks', async () => {
    const resource = build();
    await resource.start();
    await resource.stop();
    const refused = { code: 'NOT_STARTED', statusCode: 503, message: "resource 'closed' is stopped" };
    await expect(resource.query('SELECT 1')).rejects.toMatchObject(refused);
    await expect(resource.read(table, { id: 1 })).rejects.toMatchObject(refused);
    await expect(resource.insert(table, { id: 1, name: 'a' })).rejects.toMatchObject(refused);
    await expect(resource.update(table, { name: 'b' }, { id: 1 })).rejects.toMatchObject(refused);
    await expect(resource.delete(table, { id: 1 })).rejects.toMatchObject(refused);
    await expect(resource.updateOne(table, { name: 'b' }, { id: 1 })).rejects.toMatchObject(refused);
    await expect(resource.deleteOne(table, { id: 1 })).rejects.toMatchObject(refused);
    await expect(resource.columns(table)).rejects.toMatchObject(refused);
    await expect(resource.ping()).rejects.toMatchObject(refused);
    await expect(resource.streamBatches('SELECT 1').next()).rejects.toMatchObject(refused);
    const viaCallback = await new Promise<Error | null>((resolve) => void resource.read(table, { id: 1 }, (error) => resolve(error)).catch(() => undefined));
    expect(viaCallback).toMatchObject(refused);
  });

  it('gives a pool closed under the adapter its code where it is detected: DB_UNAVAILABLE', async () => {
    const resource = build();
    await resource.start();
    const { adapter } = resource;
    await resource.stop();
    await expect(adapter.run('SELECT 1', [])).rejects.toMatchObject({ code: 'DB_UNAVAILABLE', statusCode: 503, message: 'pool is closed' });
    await expect(adapter.transaction(() => Promise.resolve(1))).rejects.toMatchObject({ code: 'DB_UNAVAILABLE', message: 'pool is closed' });
    await expect(adapter.stream('SELECT 1', [], 10).next()).rejects.toMatchObject({ code: 'DB_UNAVAILABLE', message: 'pool is closed' });
  });

  it('runs ping through the statement path: one query event, no rows', async () => {
    const resource = build();
    await resource.start();
    const events: QueryEvent[] = [];
    resource.on('query', (event) => events.push(event));
    await expect(resource.ping()).resolves.toBeUndefined();
    await resource.stop();
    expect(events.map(({ operation, table: name, rowCount, error }) => ({ operation, table: name, rowCount, error }))).toEqual([
      { operation: 'ping', table: undefined, rowCount: 0, error: undefined },
    ]);
  });
});
