import { createHmac, timingSafeEqual } from 'node:crypto';
import fastify, { type FastifyInstance } from 'fastify';
import { rawDriver } from './raw';
import { marker, quote, type Kind } from './servers';

/**
 * The comparison server of part 2: what a developer would write by hand with fastify and the
 * driver pool in its fastest mode (mysql2 `execute`, pg named prepared statements; the pools
 * of bench/raw.ts), for the same endpoints the host serves from its profile. It sends
 * the statements the resource builds, and the engine's envelope with the host's messages, so
 * both servers answer byte-identical bodies for the same row.
 */
export interface HandWrittenRoutes {
  /** GET `/items/:id`: one row by primary key (the host's `readOne`). */
  readOne: string;
  /** POST `/items`: insert the body's name, qty, price, note; answer the stored row (the host's `create`). */
  create: string;
  /** GET `/list?from=&to=`: the rows with ids in [from, to] (the host's `list`). */
  list: string;
  /**
   * GET `/page?after=`: the `pageLimit` rows after a keyset cursor, by id, read with one row more
   * to know whether a next page exists (the host's paged table list, SPEC §8).
   */
  page: string;
}

/** Rows per page of GET `/page`: the host's `page.defaultLimit`. */
export const pageLimit = 100;

/** The key both servers sign `/page` cursors with: the host's `server.cursorSecret`. */
export const pageCursorSecret = 'bench-cursor-secret-of-at-least-32-bytes';

/**
 * Keyset cursors written as the host writes them (src/lists/cursor.ts), so both answer the same
 * `page.next`: the order's values as base64url JSON, a dot, and 16 bytes of HMAC-SHA-256 over
 * the endpoint, the order and that payload.
 */
function idCursors(secret: string, endpoint: string): { sign(id: unknown): string; read(cursor: string): unknown } {
  const key = Buffer.from(secret, 'utf8');
  const context = `${endpoint}\nid\n`;
  const signature = (payload: string): Buffer => createHmac('sha256', key).update(context).update(payload).digest().subarray(0, 16);
  return {
    sign(id) {
      const payload = Buffer.from(JSON.stringify([id])).toString('base64url');
      return `${payload}.${signature(payload).toString('base64url')}`;
    },
    read(cursor) {
      const dot = cursor.indexOf('.');
      if (dot < 0) return undefined;
      const payload = cursor.slice(0, dot);
      const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
      const expected = signature(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[])[0];
    },
  };
}

/** The SQL text each endpoint runs; the host builds the same from its profile (checked by the bench). */
export function handWrittenSql(kind: Kind, table: string): HandWrittenRoutes {
  const t = quote(kind, table);
  const c = (column: string): string => quote(kind, column);
  const $ = (index: number): string => marker(kind, index);
  return {
    readOne: `SELECT * FROM ${t} WHERE ${c('id')} = ${$(1)}`,
    create: `INSERT INTO ${t} (${c('name')}, ${c('qty')}, ${c('price')}, ${c('note')}) VALUES (${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}) RETURNING *`,
    list: `SELECT * FROM ${t} WHERE ${c('id')} BETWEEN ${$(1)} AND ${$(2)}`,
    page: `SELECT * FROM ${t} WHERE ${c('id')} > ${$(1)} ORDER BY ${c('id')} LIMIT ${$(2)}`,
  };
}

interface ItemBody {
  name: string;
  qty: number;
  price: number;
  note?: string | null;
}

export function handWrittenServer(kind: Kind, table: string): FastifyInstance {
  const db = rawDriver(kind);
  const sql = handWrittenSql(kind, table);
  const readOne = db.prepare(sql.readOne);
  const create = db.prepare(sql.create);
  const list = db.prepare(sql.list);
  const page = db.prepare(sql.page);
  const cursors = idCursors(pageCursorSecret, 'GET /page');
  const server = fastify();
  server.addHook('onClose', () => db.close());

  server.get<{ Params: { id: string } }>('/items/:id', async (request, reply) => {
    const [row] = (await readOne([request.params.id])) as unknown[];
    if (row === undefined) return reply.code(404).send({ code: 'nok', message: `no row in ${table} with id = ${request.params.id}` });
    return { code: 'ok', message: `readOne ${table}: found`, data: row };
  });
  server.post<{ Body: ItemBody }>('/items', async (request, reply) => {
    const { name, qty, price, note = null } = request.body;
    const [row] = (await create([name, qty, price, note])) as unknown[];
    void reply.code(201);
    return { code: 'ok', message: `create ${table}: created`, data: row };
  });
  server.get<{ Querystring: { from: string; to: string } }>('/list', async (request) => {
    const rows = (await list([request.query.from, request.query.to])) as unknown[];
    return { code: 'ok', message: 'list /list', data: rows, total: rows.length };
  });
  server.get<{ Querystring: { after?: string } }>('/page', async (request, reply) => {
    const after = typeof request.query.after === 'string' ? cursors.read(request.query.after) : undefined;
    if (typeof after !== 'number') return reply.code(400).send({ code: 'nok', message: "query parameter 'after' is not a cursor of this list" });
    const rows = (await page([after, pageLimit + 1])) as { id: number }[];
    const more = rows.length > pageLimit;
    if (more) rows.length = pageLimit;
    // A keyset page has no known position: Content-Range says neither where it starts nor how many there are.
    void reply.header('content-range', '*/*');
    const next = more ? { next: `/page?limit=${pageLimit}&after=${cursors.sign(rows[rows.length - 1].id)}` } : {};
    return { code: 'ok', message: `list ${table}`, data: rows, total: rows.length, page: { limit: pageLimit, ...next } };
  });
  return server;
}
