import { createApp, type App, type Profile } from '../../src';

export interface StartedApps {
  /** Creates an app from `source` and starts it on a free loopback port. */
  start(source: Profile): Promise<App>;
  /** Stops every app started since the last call; register it with `afterAll` or `afterEach`. */
  stopAll(): Promise<void>;
}

/** The apps one test file starts, so that it can stop them all after its tests, or after each. */
export function startedApps(): StartedApps {
  const started: App[] = [];
  return {
    async start(source) {
      const app = createApp(source);
      started.push(app);
      await app.start({ port: 0 });
      return app;
    },
    async stopAll() {
      await Promise.all(started.splice(0).map((app) => app.stop()));
    },
  };
}
