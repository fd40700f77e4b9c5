import { configError, isPlainObject } from './config';
import { SqlResourceError } from './errors';
import { resourceClassOf } from './registry';
import type { SqlResource } from './sql-resource';

/** `$app.resources`: the resources of a profile, by id. */
export class ResourceManager {
  readonly #resources = new Map<string, SqlResource>();

  /** Builds a resource from its configuration's `_class` and keeps it under `id`. */
  add(id: string, config: unknown): SqlResource {
    if (typeof id !== 'string' || id === '') throw new SqlResourceError('INVALID_ARGUMENT', 'a resource needs a non-empty id');
    if (this.#resources.has(id)) throw configError(id, 'id', 'is declared twice');
    if (!isPlainObject(config)) throw configError(id, 'configuration', 'must be an object');
    if (typeof config._class !== 'string' || config._class === '') throw configError(id, '_class', 'is required (a string)');
    const ResourceClass = resourceClassOf(config._class, id);
    const resource = new ResourceClass(id, config);
    this.#resources.set(id, resource);
    return resource;
  }

  get(id: string): SqlResource {
    const resource = this.#resources.get(id);
    if (!resource) {
      const known = [...this.#resources.keys()].join(', ') || 'none';
      throw new SqlResourceError('UNKNOWN_RESOURCE', `no resource with id '${id}' (declared: ${known})`);
    }
    return resource;
  }

  exist(id: string): boolean {
    return this.#resources.has(id);
  }

  ids(): string[] {
    return [...this.#resources.keys()];
  }

  /** Starts every resource; if one fails, the ones already started are stopped again. */
  async startAll(): Promise<void> {
    const results = await Promise.allSettled([...this.#resources.values()].map((resource) => resource.start()));
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) {
      await this.stopAll();
      throw failure.reason;
    }
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#resources.values()].map((resource) => resource.stop()));
  }
}
