import { configError, type ServerSettings } from '../../config';
import type { AdapterHooks, DriverAdapter } from '../../driver-adapter';
import { SqlResource } from '../../sql-resource';
import { PostgresAdapter, clientEncodingOf } from './postgres-adapter';
import { postgresDialect } from './dialect';

/** A PostgreSQL resource (`_class: postgres`): a pg pool. */
export class PostgresResource extends SqlResource {
  constructor(id: string, config: unknown) {
    super(id, config, postgresDialect, 5432);
    if (!clientEncodingOf(this.config.server.charset)) {
      throw configError(id, 'server.charset', 'must be a UTF8 charset for postgres (the pg driver decodes UTF-8 only)');
    }
  }

  protected createAdapter(server: ServerSettings, hooks: AdapterHooks): DriverAdapter {
    return new PostgresAdapter(server, hooks);
  }
}
