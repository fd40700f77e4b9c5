import { ResourceManager } from '../../src/resource-manager';
import { kinds, q, rawQuery, resourceConfig, types, uniqueName, type Kind } from '../support/servers';

const wallClock: Record<Kind, (column: string) => string> = {
  mysql: (column) => `DATE_FORMAT(${column}, '%Y-%m-%d %H:%i:%s')`,
  postgres: (column) => `to_char(${column}, 'YYYY-MM-DD HH24:MI:SS')`,
};

describe.each(kinds)('%s server.timezone', (kind: Kind) => {
  const table = uniqueName('sr_tz');

  beforeAll(() => rawQuery(kind, `CREATE TABLE ${q(kind, table)} (id INT PRIMARY KEY, at ${types[kind].timestamp})`));
  afterAll(() => rawQuery(kind, `DROP TABLE IF EXISTS ${q(kind, table)}`));

  it.each([
    ['Z', '2020-01-01 10:00:00'],
    ['+02:00', '2020-01-01 12:00:00'],
    ['-05:30', '2020-01-01 04:30:00'],
  ])('stores and reads wall-clock times in %s', async (timezone, stored) => {
    const instant = new Date('2020-01-01T10:00:00.000Z');
    const resource = new ResourceManager().add('tz', resourceConfig(kind, { timezone }, { keepAliveInterval: 0 }));
    await resource.start();
    try {
      const id = Math.floor(Math.random() * 1e9);
      await resource.insert(table, { id, at: instant });
      const [raw] = await rawQuery(kind, `SELECT ${wallClock[kind]('at')} AS text FROM ${q(kind, table)} WHERE id = ${id}`);
      expect(raw.text).toBe(stored);
      const [row] = await resource.read(table, { id });
      expect((row.at as Date).toISOString()).toBe(instant.toISOString());
      expect(await resource.read(table, { at: instant, id })).toEqual([{ id, at: instant }]);
    } finally {
      await resource.stop();
    }
  });
});
