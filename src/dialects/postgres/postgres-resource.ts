import { configError, integerDriverOptions, type ServerSettings } from '../../config';
import type { AdapterHooks, DriverAdapter } from '../../driver-adapter';
import { SqlResource } from '../../sql-resource';
import { postgresConfigSchema } from './config-schema';
import { PostgresAdapter, clientEncodingOf, postgresIntegerOptions } from './postgres-adapter';
import { postgresDialect } from './dialect';

/** A PostgreSQL resource (`_class: postgres`): a pg pool. */
export class PostgresResource extends SqlResource {
  /** The JSON Schema of this kind's `resources.<id>` entry (see registry.ts). */
  /** The SQL of this kind, known before any resource is built (templates are checked with it). */
  static readonly dialect = postgresDialect;
  static readonly configSchema = postgresConfigSchema;
  readonly #driverIntegers: Readonly<Record<string, number>>;

  constructor(id: string, config: unknown) {
    super(id, config, new.target.dialect, 5432);
    this.#driverIntegers = integerDriverOptions(id, this.config.server, postgresIntegerOptions);
    if (!clientEncodingOf(this.config.server.charset)) {
      throw configError(id, 'server.charset', 'must be a UTF8 charset for postgres (the pg driver decodes UTF-8 only)');
    }
  }

  protected createAdapter(server: ServerSettings, hooks: AdapterHooks): DriverAdapter {
    return new PostgresAdapter(server, hooks, this.#driverIntegers);
  }
}
