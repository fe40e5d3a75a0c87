// Mutation testing of rein's core (`npm run mutate`): StrykerJS changes one thing at a time in these files
// (a condition, an operator, a string) and runs the tests that import them; a change no test notices survives.
// MUTATION.md holds the scores per group and the reason for every survivor left alive; regenerate it with
// `npm run mutate:report` after a run. Not in CI: a full run takes a long time on two cores.

/**
 * The file groups the scores are reported for (MUTATION.md): the files Stryker mutates and the tests it runs
 * against them. `REIN_MUTATE=deny-list,retry npm run mutate` runs some groups only.
 */
export const groups = [
  { id: 'deny-list', name: 'deny list', files: ['tools/deny-list.ts'], tests: ['test/tools/deny-list.test.ts'] },
  {
    id: 'path-guard',
    name: 'path guard',
    files: ['tools/path-guard.ts'],
    tests: ['test/tools/path-guard.test.ts', 'test/tools/read-file.test.ts', 'test/tools/edit-file.test.ts', 'test/tools/update-todo.test.ts'],
  },
  { id: 'edit', name: 'guarded edit', files: ['tools/edit-file.ts'], tests: ['test/tools/edit-file.test.ts', 'test/tools/index.test.ts'] },
  {
    id: 'shape',
    name: 'observation shaping',
    files: ['tools/shape.ts'],
    tests: ['test/tools/shape.test.ts', 'test/tools/read-file.test.ts', 'test/tools/grep.test.ts'],
  },
  {
    id: 'redact',
    name: 'redaction',
    files: ['lib/redact.ts'],
    tests: ['test/lib/redact.test.ts', 'test/actors/openai-model.test.ts', 'test/actors/tool-runner.test.ts'],
  },
  { id: 'retry', name: 'retries', files: ['actors/retry.ts'], tests: ['test/actors/retry.test.ts', 'test/actors/openai-model.test.ts'] },
  { id: 'mcnemar', name: 'McNemar', files: ['eval/mcnemar.ts'], tests: ['test/eval/mcnemar.test.ts'] },
  { id: 'run', name: 'run tool', files: ['tools/run.ts'], tests: ['test/tools/run.test.ts', 'test/tools/sandbox.test.ts', 'test/tools/environment.test.ts'] },
  { id: 'machines', name: 'machines', files: ['machines/**/*.ts'], tests: ['test/machine/**/*.test.ts', 'test/run/harness-run.test.ts'] },
  { id: 'context', name: 'context', files: ['context/**/*.ts'], tests: ['test/context/**/*.test.ts', 'test/run/harness-run.test.ts'] },
];

/** The groups `REIN_MUTATE` names (all when unset); an unknown id is an error before anything runs. */
export function chosenGroups(selection = process.env.REIN_MUTATE) {
  if (!selection) return groups;
  const ids = selection
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !groups.some((group) => group.id === id));
  if (unknown.length > 0) throw new Error(`REIN_MUTATE: unknown group ${unknown.join(', ')}; known: ${groups.map((group) => group.id).join(', ')}`);
  return groups.filter((group) => ids.includes(group.id));
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  mutate: chosenGroups().flatMap((group) => group.files),
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
  // The sandbox needs no tsconfig rewrite (vitest compiles the tests itself), and Stryker's rewrite calls the
  // TypeScript JS API, which the native TypeScript 7 compiler this repo uses does not have.
  tsconfigFile: '',
  cleanTempDir: 'always',
  // dist/ stays in the sandbox (unmutated): a few tests start a built tool in a child process.
  ignorePatterns: ['reports', '.rein', 'traces', 'scratch'],
};
