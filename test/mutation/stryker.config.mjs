// Mutation testing of rein's core (`npm run mutate`): StrykerJS changes one thing at a time in these files
// (a condition, an operator, a string) and runs the tests that import them; a change no test notices survives.
// docs/mutation.md holds the scores per group and the reason for every survivor left alive; regenerate it with
// `npm run mutate:report` after a run. Not in CI: a full run takes a long time on two cores.

/**
 * The file groups the scores are reported for (docs/mutation.md): the files Stryker mutates and the tests it runs
 * against them. `REIN_MUTATE=deny-list,retry npm run mutate` runs some groups only.
 */
// test/testing/coverage (model-based coverage of every preset) takes minutes per run, so it stays in `npm test` only.
const machineTests = ['test/machines/**/*.test.ts'];

export const groups = [
  {
    id: 'deny-list',
    name: 'deny list',
    files: ['tools/permissions/deny-list.ts'],
    tests: ['test/tools/deny-list.test.ts', 'test/security/regex-deadlines.test.ts'],
  },
  {
    id: 'path-guard',
    name: 'path guard',
    files: ['tools/permissions/path-guard.ts'],
    tests: ['test/tools/path-guard.test.ts', 'test/tools/read-file.test.ts', 'test/tools/edit-file.test.ts', 'test/tools/update-todo.test.ts'],
  },
  { id: 'edit', name: 'guarded edit', files: ['tools/edit-file.ts'], tests: ['test/tools/edit-file.test.ts', 'test/tools/index.test.ts'] },
  {
    id: 'tool-patterns',
    name: 'phase tool lists (names, globs, MCP entries)',
    files: ['lib/tool-patterns.ts'],
    tests: [
      'test/lib/tool-patterns.test.ts',
      'test/actors/mcp/mcp-rules.test.ts',
      'test/actors/mcp/governance.test.ts',
      'test/rules/phase-table.test.ts',
      'test/machines/rules-check.test.ts',
      'test/actors/tool-runner.test.ts',
    ],
  },
  {
    id: 'shape',
    name: 'observation shaping',
    files: ['lib/output-collector.ts'],
    tests: ['test/tools/shape.test.ts', 'test/tools/read-file.test.ts', 'test/tools/grep.test.ts'],
  },
  {
    id: 'redact',
    name: 'redaction',
    files: ['lib/secrets/redact.ts'],
    tests: ['test/lib/redact.test.ts', 'test/actors/openai-model.test.ts', 'test/actors/tool-runner.test.ts'],
  },
  {
    id: 'retry',
    name: 'retries',
    files: ['actors/model/retry.ts'],
    tests: ['test/actors/retry.test.ts', 'test/actors/openai-sdk.test.ts', 'test/actors/openai-model.test.ts'],
  },
  { id: 'mcnemar', name: 'McNemar', files: ['eval/mcnemar.ts'], tests: ['test/eval/mcnemar.test.ts'] },
  {
    id: 'run',
    name: 'run tool',
    files: ['tools/run.ts'],
    tests: [
      'test/tools/run.test.ts',
      'test/tools/sandbox/sandbox.test.ts',
      'test/tools/sandbox/environment.test.ts',
      'test/tools/sandbox/background-jobs.test.ts',
      'test/tools/sandbox/warm-run.test.ts',
      'test/actors/tool-runner.test.ts',
      'test/tools/index.test.ts',
    ],
  },
  // The machine is scored by concern, so each part can be re-run on its own in reasonable time on two cores;
  // docs/mutation.md also reports the folder total. probeHarness tests drive the whole chart, so every concern runs
  // against all of test/machines (Stryker picks, per mutant, only the tests that reach it).
  { id: 'machines-stall', name: 'machines: stall detector', folder: 'machines', files: ['machines/stall/**/*.ts', 'machines/facts.ts'], tests: machineTests },
  {
    id: 'machines-gate',
    name: 'machines: gate and phase exits',
    folder: 'machines',
    files: ['machines/gate.ts', 'machines/verification.ts', 'machines/phase-exits.ts'],
    tests: machineTests,
  },
  {
    id: 'machines-budgets',
    name: 'machines: budgets and context',
    folder: 'machines',
    files: ['machines/budgets.ts', 'machines/context-handling.ts'],
    tests: machineTests,
  },
  {
    id: 'machines-guards',
    name: 'machines: guards, rules check and introspection',
    folder: 'machines',
    files: ['machines/guards/**/*.ts', 'machines/rules-check.ts', 'machines/introspection.ts', 'lib/guard-labels.ts', 'machines/rule-actions.ts'],
    // test/run/rules-files/load-rules.test.ts is left out: its rules-check cases live in test/machines/rules-check.test.ts (direct
    // calls), and its slowest tests start the built CLI (dist/, not mutated) yet would run for every module-level mutant.
    tests: [...machineTests, 'test/visualizer/guard-phrases.test.ts'],
  },
  {
    id: 'machines-cycle',
    name: 'machines: turn cycle and setup',
    folder: 'machines',
    files: [
      'machines/turn-cycle.ts',
      'machines/harness-setup.ts',
      'machines/harness-machine.ts',
      'machines/phase-state.ts',
      'machines/initial-context.ts',
      'machines/update.ts',
      'machines/actor-contracts.ts',
      'machines/types.ts',
      'machines/approval-handling.ts',
      'machines/hook-handling.ts',
    ],
    tests: machineTests,
  },
  {
    id: 'delegation-edits',
    name: "delegation: a child's command edits",
    files: ['run/delegation/workspace-changes.ts'],
    tests: ['test/run/delegation-edits.test.ts', 'test/run/workspace-changes.test.ts'],
  },
  {
    id: 'snapshots',
    name: 'workspace snapshots: scan and store',
    files: ['lib/snapshots/tree-scan.ts', 'lib/snapshots/object-store.ts'],
    tests: ['test/run/snapshots/snapshot-gate.test.ts', 'test/run/snapshots/hard-links.test.ts', 'test/run/snapshots/store-gc.test.ts'],
  },
  {
    id: 'read-only-steps',
    name: 'snapshots: steps that only read',
    files: ['run/snapshots/read-only-calls.ts', 'run/parts/workspace-snapshots.ts'],
    tests: ['test/run/snapshots/read-only-calls.test.ts', 'test/run/snapshots/read-only-steps.test.ts', 'test/run/snapshots/snapshot-gate.test.ts'],
  },
  {
    id: 'state-and-replies',
    name: 'saved state, run liveness, reply bodies',
    files: ['run/record/state-file.ts', 'run/record/run-liveness.ts', 'actors/model/body-limits.ts'],
    tests: ['test/run/state-file.test.ts', 'test/run/run-liveness.test.ts', 'test/actors/body-limits.test.ts', 'test/actors/foreign-endpoint.test.ts'],
  },
  {
    id: 'context',
    name: 'context',
    folder: 'context',
    files: ['context/**/*.ts'],
    tests: ['test/context/**/*.test.ts', 'test/machines/context-handling.test.ts'],
  },
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
  vitest: { configFile: 'test/mutation/vitest.mutation.config.ts', related: true },
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
