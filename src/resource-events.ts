import type { SqlResourceError } from './errors';
import type { QueryEvent } from './statement-path';

/** The events a resource emits (eventemitter3, typed). */
export interface SqlResourceEvents {
  connect: (info: { host: string; port: number; database: string }) => void;
  /** After each call and stream: operation, table, duration, rows, error. Built only when listened to. */
  query: (event: QueryEvent) => void;
  /** A failure that belongs to no caller: the pool, a keep-alive. */
  error: (error: SqlResourceError) => void;
  stop: () => void;
}

/** Options of `query`, `stream` and `streamBatches`. */
export interface QueryOptions {
  /** When it aborts (the HTTP client left), the statement is cancelled on the server. */
  signal?: AbortSignal;
}
