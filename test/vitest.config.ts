import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { sourceAliases } from './aliases.js';

export default defineConfig({
  // The checkout, not test/: include patterns and the files tests name are relative to it.
  root: join(import.meta.dirname, '..'),
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/state-home.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Many tests wait on child processes and servers; three workers overlap the waiting on two cores.
    maxWorkers: 3,
  },
});
