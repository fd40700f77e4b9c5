import { Charsets } from 'mysql2';
import { configError, integerDriverOptions, integerOption, type ServerSettings } from '../../config';
import type { AdapterHooks, DriverAdapter } from '../../driver-adapter';
import { SqlResource } from '../../sql-resource';
import { mysqlConfigSchema } from './config-schema';
import { MysqlAdapter, mysqlIntegerOptions } from './mysql-adapter';
import { mysqlDialect } from './dialect';

/** A MySQL/MariaDB resource (`_class: mysql`): a mysql2 pool plus a keep-alive timer. */
export class MysqlResource extends SqlResource {
  /** The JSON Schema of this kind's `resources.<id>` entry (see registry.ts). */
  /** The SQL of this kind, known before any resource is built (templates are checked with it). */
  static readonly dialect = mysqlDialect;
  static readonly configSchema = mysqlConfigSchema;
  /** Seconds between keep-alive `SELECT 1`s; 0 disables them. */
  readonly keepAliveInterval: number;
  #keepAlive?: NodeJS.Timeout;
  readonly #driverIntegers: Readonly<Record<string, number>>;

  constructor(id: string, config: unknown) {
    super(id, config, new.target.dialect, 3306);
    // Past 2^31 − 1 ms a Node timer fires at once: the interval is capped below that.
    this.keepAliveInterval = integerOption(id, this.config.options, 'keepAliveInterval', 20, { min: 0, max: 2_147_483 });
    this.#driverIntegers = integerDriverOptions(id, this.config.server, mysqlIntegerOptions);
    if (!Object.prototype.hasOwnProperty.call(Charsets, this.config.server.charset.toUpperCase())) {
      throw configError(id, 'server.charset', `'${this.config.server.charset}' is not a charset or collation mysql2 knows`);
    }
    if (!this.config.server.preparedStatements) {
      throw configError(id, 'server.preparedStatements', 'cannot be turned off for mysql: values are always bound server-side');
    }
  }

  protected createAdapter(server: ServerSettings, hooks: AdapterHooks): DriverAdapter {
    return new MysqlAdapter(server, hooks, this.#driverIntegers);
  }

  protected override afterStart(): void {
    if (this.keepAliveInterval === 0) return;
    this.#keepAlive = setInterval(() => this.#ping(), this.keepAliveInterval * 1000);
    // The timer alone must never keep the process alive.
    this.#keepAlive.unref();
  }

  protected override beforeStop(): void {
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }

  #ping(): void {
    this.ping().then(
      () => this.log('keep-alive ok'),
      (error: unknown) => this.reportError('keep-alive', error),
    );
  }
}
