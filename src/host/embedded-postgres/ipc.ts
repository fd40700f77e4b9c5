/**
 * What start-server.ts (the parent) and server-process.ts (the forked child) say to each
 * other: the child's command-line settings, written and read here so both sides agree, and
 * the IPC messages. Loads no PGlite code.
 *
 * Arguments: --data-dir <dir> [--host 127.0.0.1] [--port 0] [--max-connections 32] [--template <tar>]
 * Messages: the child sends {type:'ready', host, port, initialized} or {type:'failed', message};
 * it accepts {type:'stop'}.
 */
import { parseArgs } from 'node:util';
import { SqlResourceError } from '../../errors';
import { integerSetting } from '../../integers';
import { DEFAULT_HOST, DEFAULT_MAX_CONNECTIONS, DEFAULT_PORT, MAX_CONNECTIONS_RANGE, PORT_RANGE } from './constants';

export interface EmbeddedServerSettings {
  dataDir: string;
  host: string;
  port: number;
  maxConnections: number;
  /** Data folder tar used when dataDir holds no database yet. */
  template?: string;
}

/** How the data folder came to hold a database on this start. */
export type Initialization = 'existing' | 'template' | 'initdb';

export type ServerToParentMessage =
  | { type: 'ready'; host: string; port: number; initialized: Initialization }
  | { type: 'failed'; message: string };

export type ParentToServerMessage = { type: 'stop' };

/** The child's argv for `settings`. */
export function serverArgs(settings: EmbeddedServerSettings): string[] {
  return [
    '--data-dir', settings.dataDir,
    '--host', settings.host,
    '--port', String(settings.port),
    '--max-connections', String(settings.maxConnections),
    ...(settings.template ? ['--template', settings.template] : []),
  ];
}

/** Reads the child's argv back; CONFIG_INVALID when an argument is missing or out of range. */
export function parseServerSettings(argv: string[]): EmbeddedServerSettings {
  const where = 'embedded-postgres server-process';
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'max-connections': { type: 'string' },
      template: { type: 'string' },
    },
  });
  const dataDir = values['data-dir'];
  if (!dataDir) throw new SqlResourceError('CONFIG_INVALID', `${where}: --data-dir is required`);
  return {
    dataDir,
    host: values.host || DEFAULT_HOST,
    port: integerSetting(where, '--port', values.port, DEFAULT_PORT, PORT_RANGE, true),
    maxConnections: integerSetting(where, '--max-connections', values['max-connections'], DEFAULT_MAX_CONNECTIONS, MAX_CONNECTIONS_RANGE, true),
    template: values.template || undefined,
  };
}
