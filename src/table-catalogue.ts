import type { ColumnInfo } from './driver-adapter';
import { SqlResourceError } from './errors';
import { tableShape, type TableShape } from './values';

/** Read again at most this often per table when a call names a column the cache lacks. */
const refreshIntervalMs = 1000;

/**
 * The columns of the tables a resource's calls name, read from the database's catalogue once
 * and kept for the life of the pool, with each table's shape for typed binding (values.ts).
 */
export class TableCatalogue {
  readonly #columns = new Map<string, Promise<ColumnInfo[]>>();
  /** Tables whose columns have arrived, for binding without waiting a turn. */
  readonly #shapes = new Map<string, TableShape>();
  /** When each table's columns were last read again because a call named a column they lack. */
  readonly #refreshedAt = new Map<string, number>();

  constructor(
    private readonly read: (table: string) => Promise<ColumnInfo[]>,
    private readonly ignoreCase: boolean,
  ) {}

  /** Forgets every table (a new pool may reach another server). */
  clear(): void {
    this.#columns.clear();
    this.#shapes.clear();
  }

  columns(table: string): Promise<ColumnInfo[]> {
    let cached = this.#columns.get(table);
    if (!cached) {
      const reading = this.read(table);
      cached = reading;
      reading.then(
        (columns) => {
          if (this.#columns.get(table) !== reading) return;
          // A table not there yet is asked again next time: one created later gets typed binding too.
          if (columns.length === 0) this.#columns.delete(table);
          else this.#shapes.set(table, tableShape(columns, this.ignoreCase));
        },
        () => this.#columns.delete(table),
      );
      this.#columns.set(table, cached);
    }
    return cached;
  }

  /**
   * The shape of `table`: at once when known, else after one read of the catalogue. Undefined
   * for a table the catalogue does not know (the statement then fails as the database says) or a
   * name that is not a string (the builder refuses it).
   */
  shape(table: unknown): TableShape | Promise<TableShape | undefined> | undefined {
    if (typeof table !== 'string') return undefined;
    const known = this.#shapes.get(table);
    if (known !== undefined) return known;
    // columns() files the shape before this reaction runs.
    return this.columns(table).then((columns) => (columns.length > 0 ? this.#shapes.get(table) : undefined));
  }

  /**
   * Runs `bind` with the table's shape; when it refuses a column the cached catalogue does not
   * hold, reads the catalogue again (at most once a second per table: a column added by
   * ALTER TABLE is then known) and tries once more.
   */
  withShape<T>(table: unknown, bind: (shape: TableShape | undefined) => T): T | Promise<T> {
    const attempt = (known: TableShape | undefined): T | Promise<T> => {
      try {
        return bind(known);
      } catch (error) {
        const name = table as string;
        const now = Date.now();
        if (!(error instanceof SqlResourceError) || error.code !== 'UNKNOWN_COLUMN' || now - (this.#refreshedAt.get(name) ?? 0) < refreshIntervalMs) throw error;
        this.#refreshedAt.set(name, now);
        this.#columns.delete(name);
        this.#shapes.delete(name);
        const again = this.shape(table);
        return again instanceof Promise ? again.then(bind) : bind(again);
      }
    };
    const shape = this.shape(table);
    return shape instanceof Promise ? shape.then(attempt) : attempt(shape);
  }
}
