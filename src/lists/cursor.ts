import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Row } from '../driver-adapter';
import { SqlResourceError } from '../errors';
import type { OrderTerm } from '../filters';

/**
 * Keyset cursors (`?after=`): the order's values of a page's last row, signed with HMAC-SHA-256
 * so that a client can neither forge nor alter one, and bound to the endpoint and order that
 * made it. The signature is checked before the payload is read: a tampered, truncated or
 * foreign cursor is a 400, never a statement.
 */

/** Longer `after` values are refused before any work. */
export const maxCursorLength = 2048;
const signatureBytes = 16;

/** The key cursors are signed with: `server.cursorSecret`, or one per process (cursors then do not outlive it). */
export function cursorKey(secret?: string): Buffer {
  return secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
}

/**
 * A value as the cursor carries it: JSON, with buffers and bigints tagged to come back as they
 * were. (Dates make no cursor: list-endpoint.ts pages by offset past them.)
 */
function encodeValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { b: value.toString('base64') };
  if (typeof value === 'bigint') return { n: value.toString() };
  return value;
}

function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const tagged = value as { b?: string; n?: string };
  if (typeof tagged.b === 'string') return Buffer.from(tagged.b, 'base64');
  return tagged.n;
}

function invalid(message: string): SqlResourceError {
  return new SqlResourceError('INVALID_PARAMETER', `query parameter 'after' ${message}`, { field: 'after' });
}

/** Signs and reads the cursors of one endpoint. */
export class Cursors {
  readonly #key: Buffer;
  readonly #endpoint: string;

  constructor(key: Buffer, endpoint: string) {
    this.#key = key;
    this.#endpoint = endpoint;
  }

  /** What a cursor is bound to besides the key: the endpoint and the order it pages by. */
  #context(order: readonly OrderTerm[]): string {
    return `${this.#endpoint}\n${order.map((term) => `${term.column}${term.descending ? ' desc' : ''}`).join(',')}\n`;
  }

  #signature(order: readonly OrderTerm[], payload: string): Buffer {
    return createHmac('sha256', this.#key).update(this.#context(order)).update(payload).digest().subarray(0, signatureBytes);
  }

  /** The cursor of the page after `row`. */
  after(row: Row, order: readonly OrderTerm[]): string {
    const payload = Buffer.from(JSON.stringify(order.map((term) => encodeValue(row[term.column])))).toString('base64url');
    return `${payload}.${this.#signature(order, payload).toString('base64url')}`;
  }

  /** The row a cursor starts after, as the order's column → value; a cursor this endpoint and order did not make is refused. */
  read(cursor: string, order: readonly OrderTerm[]): Row {
    if (cursor.length > maxCursorLength) throw invalid('is too long to be a cursor of this list');
    const dot = cursor.indexOf('.');
    const payload = cursor.slice(0, dot);
    // Compared as the text the host wrote: decoding would skip characters that are not base64url.
    const signature = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.#signature(order, payload).toString('base64url'));
    if (dot < 0 || signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
      throw invalid('is not a cursor of this list and order (altered, cut short, or from another endpoint)');
    }
    const values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    const row: Row = {};
    order.forEach((term, i) => {
      row[term.column] = decodeValue(values[i]);
    });
    return row;
  }
}
