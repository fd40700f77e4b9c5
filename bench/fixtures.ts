import { rawDriver, type RawDriver } from './raw';
import { quote, type Kind } from './servers';

/**
 * The bench table of one kind: `rows` seeded rows with ids 1..rows, created under a unique
 * name and dropped at the end. Plain driver calls (text protocol, unnamed statements), so
 * the fixtures never touch the statement caches being measured.
 */
export class BenchTable {
  readonly kind: Kind;
  readonly name: string;
  readonly rows: number;
  readonly #admin: RawDriver;
  #created = false;

  constructor(kind: Kind, name: string, rows: number) {
    this.kind = kind;
    this.name = name;
    this.rows = rows;
    this.#admin = rawDriver(kind, { plain: true });
  }

  get quoted(): string {
    return quote(this.kind, this.name);
  }

  async #sql(sql: string, params: unknown[] = []): Promise<unknown> {
    return this.#admin.prepare(sql)(params);
  }

  /** Runs one statement on the fixtures' own connections (text protocol): seeding, ANALYZE, EXPLAIN. */
  run(sql: string, params: unknown[] = []): Promise<unknown> {
    return this.#sql(sql, params);
  }

  /** Creates the table with these column definitions and no rows; dropped by `drop()` like the bench schema. */
  async createWith(columns: string): Promise<void> {
    await this.#sql(`CREATE TABLE ${this.quoted} (${columns})`);
    this.#created = true;
  }

  async create(): Promise<void> {
    const id = this.kind === 'mysql' ? 'INT AUTO_INCREMENT PRIMARY KEY' : 'SERIAL PRIMARY KEY';
    const created = this.kind === 'mysql' ? 'TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP' : 'TIMESTAMP NOT NULL DEFAULT now()';
    await this.createWith(`id ${id}, name VARCHAR(64) NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NOT NULL, note VARCHAR(255) NULL, created_at ${created}`);
    await this.#fill(this.rows, 'seed');
  }

  /** Appends `count` rows named `label` in bulk; answers their ids. */
  async #fill(count: number, label: string): Promise<number[]> {
    const [{ top }] = (await this.#sql(`SELECT COALESCE(MAX(id), 0) AS top FROM ${this.quoted}`)) as [{ top: number | string }];
    const batch = 1000;
    for (let done = 0; done < count; done += batch) {
      const size = Math.min(batch, count - done);
      const values: string[] = [];
      const params: unknown[] = [];
      for (let i = 0; i < size; i++) {
        const n = done + i + 1;
        values.push(this.kind === 'mysql' ? '(?, ?, ?, ?)' : `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`);
        params.push(`${label}-${n}`, n % 97, (n % 1000) / 10 + 0.99, n % 3 === 0 ? null : `row ${n} of the bench`);
      }
      await this.#sql(`INSERT INTO ${this.quoted} (name, qty, price, note) VALUES ${values.join(', ')}`, params);
    }
    const rows = (await this.#sql(`SELECT id FROM ${this.quoted} WHERE id > ${Number(top)} AND name LIKE '${label}-%' ORDER BY id`)) as { id: number }[];
    return rows.map((row) => Number(row.id));
  }

  /** Rows made to be deleted by the `delete` measurement. */
  deletable(count: number): Promise<number[]> {
    return this.#fill(count, 'del');
  }

  /** Drops the table; retried for a while, so a server restarting under the bench still gets cleaned. */
  async drop(): Promise<void> {
    try {
      for (let attempt = 1; this.#created; attempt++) {
        try {
          await this.#sql(`DROP TABLE IF EXISTS ${this.quoted}`);
          this.#created = false;
        } catch (error) {
          if (attempt >= 10) throw error;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    } finally {
      await this.#admin.close().catch(() => undefined);
    }
  }
}
