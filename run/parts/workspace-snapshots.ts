import { performance } from 'node:perf_hooks';
import { snapshotExclusion } from '../../lib/snapshots/exclusion.js';
import { openObjectStore } from '../../lib/snapshots/object-store.js';
import { createTreeScanner } from '../../lib/snapshots/tree-scan.js';
import { stateLabel } from '../../machines/introspection.js';
import type { HarnessContext } from '../../machines/types.js';
import { appendSnapshotIndex, readSnapshotIndex } from '../record/snapshot-index.js';
import type { SavedState } from '../record/state-file.js';
import type { CallJudge, SentCall } from '../snapshots/read-only-calls.js';
import { defaultSnapshotStore, registerSnapshotRun } from '../snapshots/snapshot-runs.js';
import type { RunOptions } from '../start-run.js';

interface ChartView {
  value: unknown;
  status: string;
  context: HarnessContext;
}

/** The run's step snapshots: what to call at the end of every machine step, what commands wait for, and the close. */
export interface WorkspaceSnapshots {
  /** Called at the end of every machine step with the chart and the state as `saveState` would write it now. */
  onStep(snapshot: ChartView, savedState: () => SavedState): void;
  /**
   * Resolves once every snapshot asked for so far is indexed (or failed): a command or hook waits for it before it runs.
   * `calls` are the tool calls about to run; a caller that does not name them (a hook) may write anything, and so may
   * calls that `readOnly` does not judge read-only: the step's snapshot then scans the workspace.
   */
  settled(calls?: readonly SentCall[]): Promise<void>;
  /**
   * Lets a step whose calls cannot have written the workspace keep the last scan's tree: `readOnly` judges a step's
   * calls (`readOnlyCalls`), `jobsRunning` says whether a background job runs now (one may write at any moment). Until
   * this is called, every step is scanned.
   */
  reuseScansWhen(judges: { calls: CallJudge; jobsRunning: () => boolean }): void;
  /** Waits for the snapshots under way. */
  close(): Promise<void>;
}

const DISABLED: WorkspaceSnapshots = {
  onStep: () => undefined,
  settled: () => Promise.resolve(),
  reuseScansWhen: () => undefined,
  close: () => Promise.resolve(),
};

/**
 * Takes the run's snapshot of each step: once the step's tool results are folded in and before the next request (the
 * first `compact` of a step), and at the run's end. A snapshot is the workspace as a tree in the object store and the
 * chart's saved state at that moment, as an object too. The chart's state is taken at once; the workspace is scanned
 * a few ms at a time while the run goes on to ask the model (nothing in the run writes the workspace while it waits
 * for the reply), and the next command, hook or the run's end waits for the scan (`settled`). Its line in
 * `snapshots.jsonl` is appended last, so a kill at any moment leaves every earlier step restorable.
 *
 * @example const snapshots = workspaceSnapshots({ options, workspace }); actor.subscribe({ next: (s) => snapshots.onStep(s, saved) });
 */
export function workspaceSnapshots(parts: { options: RunOptions; workspace: string }): WorkspaceSnapshots {
  const { options, workspace } = parts;
  const rules = options.rules.snapshots;
  if (!rules.enabled) return DISABLED;
  const storeRoot = options.snapshotStore ?? defaultSnapshotStore();
  const store = openObjectStore(storeRoot);
  // The store is shared by every run of this user: its list of runs is what \`rein snapshots gc\` keeps objects for.
  registerSnapshotRun(options.runDir, storeRoot);
  let listedAt = performance.now();
  const scanner = createTreeScanner({ workspace, store, excluded: snapshotExclusion(rules.exclude) });
  // A resumed (or rewound) run goes on after the step its last snapshot holds; the steps before stay as they were taken.
  let lastStep = readSnapshotIndex(options.runDir)
    .filter((line) => line.kind === 'step')
    .reduce((_, line) => line.step, -1);
  let pending: Promise<void> = Promise.resolve();
  // Whether the workspace may have changed since the last snapshot: a step whose calls all read (`cat`, `grep`, …),
  // with no hook and no background job running, keeps the last scan's tree instead of scanning again.
  let mayHaveChanged = true;
  let judge: CallJudge = { readOnly: () => false, forget: () => undefined };
  let jobsRunning = () => true;
  let jobsAtLastSnapshot = true;
  let last: { tree: string; files: number; skipped: string[] } | null = null;
  const take = (step: number, state: string, chartText: string) => {
    const asked = performance.now();
    // Listed again if a collection dropped it meanwhile (its run directory moved away and back, say): once a minute is
    // enough, as a collection never removes an object younger than an hour.
    if (performance.now() - listedAt > RELIST_MS) {
      registerSnapshotRun(options.runDir, storeRoot);
      listedAt = performance.now();
    }
    const chartBytes = store.bytesWritten();
    const chart = store.put(chartText);
    const chartStored = store.bytesWritten() - chartBytes;
    const jobsNow = jobsRunning();
    const rescan = mayHaveChanged || jobsAtLastSnapshot || jobsNow;
    mayHaveChanged = false;
    jobsAtLastSnapshot = jobsNow;
    // What ran since may have put a program of a read-only name on PATH.
    if (rescan) judge.forget();
    // One scan at a time: a step whose reply ran nothing (no command waited) may end before the last scan did.
    const scanned = pending.then(async () => {
      const started = performance.now();
      const before = store.bytesWritten();
      const scan = !rescan && last ? last : await scanner.scanInSlices();
      last = scan;
      appendSnapshotIndex(options.runDir, {
        step,
        store: storeRoot,
        tree: scan.tree,
        chart,
        state,
        at: new Date().toISOString(),
        ms: round(performance.now() - started),
        doneMs: round(performance.now() - asked),
        bytes: store.bytesWritten() - before + chartStored,
        files: scan.files,
        skipped: scan.skipped,
      });
    });
    // A scan that failed leaves its step without a snapshot (a rewind names the steps kept); the run goes on.
    pending = scanned.catch(() => {
      // The next snapshot cannot lean on this one.
      last = null;
    });
  };
  return {
    onStep: (snapshot, savedState) => {
      const label = stateLabel(snapshot.value as never);
      const ended = snapshot.status !== 'active';
      const step = snapshot.context.step;
      // Between a step's compact and the run's end no command runs: the end adds a snapshot only for a step not yet kept.
      if (!(ended || label.endsWith('compact')) || step <= lastStep) return;
      lastStep = step;
      take(step, ended ? snapshot.status : label, JSON.stringify(savedState()));
    },
    settled: (calls) => {
      if (!calls || !judge.readOnly(calls)) mayHaveChanged = true;
      return pending;
    },
    reuseScansWhen: (judges) => {
      judge = judges.calls;
      jobsRunning = judges.jobsRunning;
    },
    close: () => pending,
  };
}

/** How often a run's entry in the store's list of runs is checked while it runs. */
const RELIST_MS = 60_000;

const round = (ms: number) => Math.round(ms * 100) / 100;
