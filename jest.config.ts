import type { Config } from 'jest';

type Project = Exclude<NonNullable<Config['projects']>[number], string>;

/**
 * One jest project a layer of test/: `jest --selectProjects unit` runs one layer.
 * unit needs no database; the others run against the real servers, and share one global setup
 * (jest runs it once) that fails the run at once with the command to start a missing server.
 */
function project(name: 'unit' | 'conformance' | 'e2e' | 'docs', needsServers: boolean): Project {
  return {
    displayName: name,
    preset: 'ts-jest',
    testEnvironment: 'node',
    roots: [`<rootDir>/test/${name}`],
    testMatch: ['**/*.test.ts'],
    ...(needsServers ? { globalSetup: '<rootDir>/test/support/global-setup.ts' } : {}),
  };
}

const config: Config = {
  projects: [project('unit', false), project('conformance', true), project('e2e', true), project('docs', true)],
  testTimeout: 30000,
};

export default config;
