/**
 * `rein/run`: A run and its record: starting and resuming runs, the trace, the run directory, the saved state, rules files.
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */

export { describeDiff, describeDiffCounts } from '../lib/snapshots/tree-diff.js';
export { planServers, startServers } from './parts/mcp-servers.js';
export { tamperWarning } from './parts/rules-watch.js';
export { checkTaskFits } from './parts/task-fit.js';
export { readJsonLines } from './record/jsonl.js';
export { chooseRunDir, newRunId, RUN_FILES, readOwnRunMeta, readRunMeta, runFile, traceFileOf } from './record/run-dir.js';
export { liveRunWriter } from './record/run-liveness.js';
export { readSnapshotIndex, type StepSnapshot } from './record/snapshot-index.js';
export { hasSavedState, loadState } from './record/state-file.js';
export { nextTraceIndex, redactTraceLine, TRACE_VERSION } from './record/trace.js';
export { type LoadedRules, loadRules, type ReceivedRules } from './rules-files/load-rules.js';
export { readProjectServers } from './rules-files/mcp-json.js';
export { forksOf, writeForkRunDir } from './snapshots/fork-run-dir.js';
export { applyRewind, hasOutsideChanges, materialiseStep, planRewind, type RewindPlan, restoreWorkspace } from './snapshots/rewind.js';
export { defaultSnapshotStore } from './snapshots/snapshot-runs.js';
export { chartOf, diffStepTrees, openSnapshotRun, stepSnapshot } from './snapshots/step-snapshots.js';
export { collectSnapshotGarbage, GC_GRACE_MS } from './snapshots/store-gc.js';
export { type ModelSource, type RunHandle, type RunOptions, resumeRun, startRun } from './start-run.js';
