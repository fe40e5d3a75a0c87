import { realpathSync } from 'node:fs';
import { UsageError } from '../../lib/errors.js';
import { snapshotExclusion } from '../../lib/snapshots/exclusion.js';
import { type ObjectStore, openObjectStore } from '../../lib/snapshots/object-store.js';
import { diffTrees, type TreeDiff } from '../../lib/snapshots/tree-diff.js';
import { type FlatEntry, flattenTree } from '../../lib/snapshots/tree-format.js';
import { createTreeScanner, type ScanResult } from '../../lib/snapshots/tree-scan.js';
import { writerGone } from '../../lib/trace/trace-writer.js';
import { rulesSchema } from '../../rules/schema.js';
import { readJsonLines } from '../record/jsonl.js';
import { type RunMeta, readOwnRunMeta, traceFileOf } from '../record/run-dir.js';
import { findStepSnapshot, readSnapshotIndex, type StepSnapshot } from '../record/snapshot-index.js';
import type { SavedState } from '../record/state-file.js';
import { migrateSavedState } from '../record/state-migration.js';

/** A run directory opened for going back: its run.json (rein's own), its snapshots and the store they are in. */
export interface SnapshotRun {
  runDir: string;
  meta: RunMeta;
  index: StepSnapshot[];
  store: ObjectStore;
  excluded: (path: string, isDir: boolean) => boolean;
  exclude: string[];
}

/**
 * Opens a run's snapshots. run.json must be the one rein wrote (it names the workspace a rewind writes into); a run
 * without snapshots is a usage error that says why.
 *
 * @example const run = openSnapshotRun('/repo/.rein/runs/20260101T000000Z-ab12');
 */
export function openSnapshotRun(runDir: string): SnapshotRun {
  const meta = readOwnRunMeta(runDir);
  const index = readSnapshotIndex(runDir);
  const first = index[0];
  if (!first) throw new UsageError(`${runDir}: this run kept no workspace snapshots (snapshots.enabled was false, or it ended before its first step)`);
  const exclude = rulesSchema.parse(meta.rules).snapshots.exclude;
  return { runDir, meta, index, store: runStores(index), excluded: snapshotExclusion(exclude), exclude };
}

/**
 * The stores a run's snapshot lines name, as one: an object is read from whichever holds it (a fork's first lines are
 * its origin's, and the fork may have run under another state dir), and new objects go to the newest line's store.
 */
function runStores(index: readonly StepSnapshot[]): ObjectStore {
  const newest = openObjectStore(index.at(-1)!.store);
  const all = [newest, ...[...new Set(index.map((line) => line.store))].filter((root) => root !== newest.root).map(openObjectStore)];
  if (all.length === 1) return newest;
  const holder = (id: string) => all.find((store) => store.has(id)) ?? newest;
  return { ...newest, get: (id) => holder(id).get(id), has: (id) => all.some((store) => store.has(id)) };
}

/** The snapshot of `step`, or a usage error listing the steps there are. */
export function stepSnapshot(run: SnapshotRun, step: number): StepSnapshot {
  const found = findStepSnapshot(run.index, step);
  if (found) return found;
  const steps = [...new Set(run.index.filter((line) => line.kind === 'step').map((line) => line.step))];
  throw new UsageError(`${run.runDir}: no snapshot of step ${step}; the run kept steps ${describeSteps(steps)}`);
}

function describeSteps(steps: number[]): string {
  if (steps.length === 0) return 'none';
  const min = Math.min(...steps);
  const max = Math.max(...steps);
  return steps.length === max - min + 1 ? `${min} to ${max}` : steps.join(', ');
}

/** The saved chart state of a snapshot, in the current format. */
export function chartOf(run: SnapshotRun, snapshot: StepSnapshot): SavedState {
  if (!snapshot.chart) throw new UsageError(`${run.runDir}: the snapshot of step ${snapshot.step} has no chart state`);
  const raw = JSON.parse(run.store.get(snapshot.chart).toString('utf8')) as SavedState;
  return migrateSavedState(raw, `${run.runDir} (step ${snapshot.step})`);
}

/** The workspace as it is now, scanned into the store with the run's exclusions (so a rewind can itself be undone). */
export function scanWorkspace(run: SnapshotRun, workspace: string): ScanResult & { entries: Map<string, FlatEntry> } {
  const scan = createTreeScanner({ workspace: realpathSync(workspace), store: run.store, excluded: run.excluded }).scan();
  return { ...scan, entries: flattenTree(run.store, scan.tree) };
}

/** What changed in the workspace from the snapshot of step `from` to a later snapshot of the same run. */
export function diffStepTrees(run: SnapshotRun, from: number, to: StepSnapshot): TreeDiff {
  return diffTrees(flattenTree(run.store, stepSnapshot(run, from).tree), flattenTree(run.store, to.tree));
}

/**
 * Refuses to go back while the run is still going: its trace has no end line after its last start or resume, and the
 * process that wrote that line is alive on this host (a live run would go on changing the workspace under the restore).
 */
export function refuseLiveRun(run: SnapshotRun): void {
  const lines = readJsonLines<Record<string, unknown>>(traceFileOf(run.runDir, run.meta)).values;
  let opened = lines.length - 1;
  while (opened >= 0 && lines[opened]!.kind !== 'start' && lines[opened]!.kind !== 'resume') opened--;
  if (opened < 0 || lines.slice(opened).some((line) => line.kind === 'end' || line.kind === 'interrupted' || line.kind === 'crash')) return;
  if (writerGone(lines[opened]) === false)
    throw new UsageError(`${run.runDir}: the run is still going (process ${String(lines[opened]!.pid)}); stop it first (Ctrl+C), then rewind or fork`);
}
