// Mutation testing of rein's core (`npm run mutate`): StrykerJS changes one thing at a time in these files
// (a condition, an operator, a string) and runs the tests that import them; a change no test notices survives.
// MUTATION.md holds the scores per group and the reason for every survivor left alive; regenerate it with
// `npm run mutate:report` after a run. Not in CI: a full run takes a long time on two cores.

/** The file groups the scores are reported for (MUTATION.md), each with the globs Stryker mutates. */
export const groups = [
  { name: 'deny list', files: ['tools/deny-list.ts'] },
  { name: 'path guard', files: ['tools/path-guard.ts'] },
  { name: 'guarded edit', files: ['tools/edit-file.ts'] },
  { name: 'observation shaping', files: ['tools/shape.ts'] },
  { name: 'redaction', files: ['lib/redact.ts'] },
  { name: 'retries', files: ['actors/retry.ts'] },
  { name: 'McNemar', files: ['eval/mcnemar.ts'] },
  { name: 'run tool', files: ['tools/run.ts'] },
  { name: 'machines', files: ['machines/**/*.ts'] },
  { name: 'context', files: ['context/**/*.ts'] },
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  mutate: groups.flatMap((group) => group.files),
  // Two shared cores: one test process at a time.
  concurrency: 1,
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  thresholds: { high: 90, low: 85, break: null },
  timeoutMS: 20_000,
  timeoutFactor: 3,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: ['dist', 'reports', '.rein', 'traces', 'scratch'],
};
