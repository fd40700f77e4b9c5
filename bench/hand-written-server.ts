import fastify, { type FastifyInstance } from 'fastify';
import { rawDriver } from './raw';
import { marker, quote, type Kind } from './servers';

/**
 * The comparison server of part 2: what a developer would write by hand with fastify and the
 * driver pool in its fastest mode (mysql2 `execute`, pg named prepared statements; the pools
 * of bench/raw.ts), for the same three endpoints the host serves from its profile. It sends
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
  return server;
}
