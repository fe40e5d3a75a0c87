import { defineConfig } from 'vitest/config';
import { chosenGroups } from './stryker.config.mjs';

// The tests Stryker runs against the mutated core: each group's own (stryker.config.mjs), for the groups
// REIN_MUTATE chose. Tests that drive the built CLI or a browser exercise dist/, which is not mutated, and the
// 10,000-reply property test would run for nearly every mutant (tens of seconds each); both run in `npm test`.
const tests = [...new Set((chosenGroups() as Array<{ tests: string[] }>).flatMap((group) => group.tests))];

export default defineConfig({
  test: {
    include: tests,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
