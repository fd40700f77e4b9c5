import { request } from 'node:http';
import type { App } from '../../src';
import { rawQuery, type Kind } from './servers';

/** How many statements holding `tag` the server runs now (this probe itself excluded). */
export async function runningStatements(kind: Kind, tag: string): Promise<number> {
  const rows =
    kind === 'mysql'
      ? await rawQuery(kind, "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE CONCAT('%', ?, '%') AND INFO NOT LIKE '%PROCESSLIST%'", [tag])
      : await rawQuery(kind, "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND query NOT LIKE '%pg_stat_activity%'", [tag]);
  return Number(rows[0].n);
}

/** Polls `check` every 50 ms for up to `ms`; answers whether it held. */
export async function waitUntil(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** Sends a GET and drops the connection after `ms`, before any answer. */
export function leaveAfter(app: App, path: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const outgoing = request({ host: '127.0.0.1', port: app.address()?.port, path });
    outgoing.on('error', () => undefined);
    outgoing.end();
    setTimeout(() => {
      outgoing.destroy();
      resolve();
    }, ms);
  });
}
