import type { ColumnInfo } from './driver-adapter';
import { SqlResourceError } from './errors';
import { tableShape, TypedValues } from './values';

/** Read again at most this often per table when a call names a column the cache lacks. */
const refreshIntervalMs = 1000;

/**
 * The columns of the tables a resource's calls name, read from the database's catalogue once
 * and kept for the life of the pool, with each table's shape for typed binding (values.ts).
 */
export class TableCatalogue {
  readonly #columns = new Map<string, Promise<ColumnInfo[]>>();
  /** Tables whose columns have arrived, for binding without waiting a turn. */
  readonly #typed = new Map<string, TypedValues>();
  /** When each table's columns were last read again because a call named a column they lack. */
  readonly #refreshedAt = new Map<string, number>();

  constructor(
    private readonly read: (table: string) => Promise<ColumnInfo[]>,
    private readonly ignoreCase: boolean,
  ) {}

  /** Forgets every table (a new pool may reach another server). */
  clear(): void {
    this.#columns.clear();
    this.#typed.clear();
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
          else this.#typed.set(table, new TypedValues(tableShape(columns, this.ignoreCase), table));
        },
        () => this.#columns.delete(table),
      );
      this.#columns.set(table, cached);
    }
    return cached;
  }

  /**
   * The binding of `table`'s values: at once when known, else after one read of the catalogue.
   * Values pass as given for a table the catalogue does not know or a name that is not a string
   * (the database or the builder then refuses them).
   */
  #typedValues(table: unknown): TypedValues | Promise<TypedValues> {
    if (typeof table !== 'string') return untyped;
    const known = this.#typed.get(table);
    if (known !== undefined) return known;
    // columns() files the binding before this reaction runs.
    return this.columns(table).then(() => this.#typed.get(table) ?? untyped);
  }

  /**
   * Runs `bind` with the table's typed binding; when it refuses a column the cached catalogue
   * does not hold, reads the catalogue again (at most once a second per table: a column added by
   * ALTER TABLE is then known) and tries once more.
   */
  typed<T>(table: unknown, bind: (typed: TypedValues) => T): T | Promise<T> {
    const attempt = (typed: TypedValues): T | Promise<T> => {
      try {
        return bind(typed);
      } catch (error) {
        const name = table as string;
        const now = Date.now();
        if (!(error instanceof SqlResourceError) || error.code !== 'UNKNOWN_COLUMN' || now - (this.#refreshedAt.get(name) ?? 0) < refreshIntervalMs) throw error;
        this.#refreshedAt.set(name, now);
        this.#columns.delete(name);
        this.#typed.delete(name);
        const again = this.#typedValues(table);
        return again instanceof Promise ? again.then(bind) : bind(again);
      }
    };
    const typed = this.#typedValues(table);
    return typed instanceof Promise ? typed.then(attempt) : attempt(typed);
  }
}

const untyped = new TypedValues(undefined, '');
