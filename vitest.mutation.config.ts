import { defineConfig } from 'vitest/config';

// The tests Stryker may run against the mutated core (stryker.config.mjs): unit and run-level tests that import
// the core directly. Tests that drive the built CLI (test/e2e) or a browser exercise dist/, which Stryker does not mutate.
export default defineConfig({
  test: {
    include: [
      'test/tools/**/*.test.ts', 'test/lib/**/*.test.ts', 'test/actors/**/*.test.ts', 'test/context/**/*.test.ts',
      'test/machine/**/*.test.ts', 'test/run/**/*.test.ts', 'test/eval/mcnemar.test.ts', 'test/eval/comparison.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
