import { join, relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { sourceAliases } from '../aliases.js';
import { chosenGroups } from './stryker.config.mjs';

// The tests Stryker runs against the mutated core: each group's own (stryker.config.mjs), for the groups
// REIN_MUTATE chose. Tests that drive the built CLI or a browser exercise dist/, which is not mutated, and the
// 10,000-reply property test would run for nearly every mutant (tens of seconds each); both run in `npm test`.
const tests = [...new Set((chosenGroups() as Array<{ tests: string[] }>).flatMap((group) => group.tests))];

/**
 * Stryker stops a mutant's run at the first failing test (bail). A mutant of code that runs when a module loads
 * (the machine's setup, the guard catalogue) runs every related test file, so the order decides what a killed
 * mutant costs: the file that just failed first (it likely kills the neighbouring mutant too), then the
 * quickest. Vitest's own order runs the longest first. Survivors run every file either way.
 */
class QuickFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const results = this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`);
      return { failed: results?.failed ? 0 : 1, duration: results?.duration ?? 0 };
    };
    return [...files].sort((a, b) => {
      const [first, second] = [rank(a), rank(b)];
      return first.failed - second.failed || first.duration - second.duration;
    });
  }
}

export default defineConfig({
  // The checkout: the groups name their tests relative to it.
  root: join(import.meta.dirname, '..', '..'),
  resolve: { alias: sourceAliases },
  test: {
    include: tests,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: QuickFirstSequencer },
    // Memory bounds are measured on the real code: instrumented code allocates more, so they stay in `npm test`.
    testNamePattern: /^(?!.*\bholds O\(cap\) memory\b)/,
  },
});
