import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.aliases.js';

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Many tests wait on child processes and servers; three workers overlap the waiting on two cores.
    maxWorkers: 3,
  },
});
