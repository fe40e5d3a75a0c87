import { join } from 'node:path';
import { snapshotExclusion } from '../../lib/snapshots/exclusion.js';
import { openObjectStore } from '../../lib/snapshots/object-store.js';
import { createTreeScanner } from '../../lib/snapshots/tree-scan.js';
import { userStateDir } from '../../lib/state/user-state-dir.js';
import { stateLabel } from '../../machines/introspection.js';
import type { HarnessContext } from '../../machines/types.js';
import { appendSnapshotIndex, readSnapshotIndex } from '../record/snapshot-index.js';
import type { SavedState } from '../record/state-file.js';
import type { RunOptions } from '../start-run.js';

interface ChartView {
  value: unknown;
  status: string;
  context: HarnessContext;
}

/** Where snapshot objects are kept unless the run names another store: the user state dir, which no sandbox shows. */
function defaultSnapshotStore(env: NodeJS.ProcessEnv = process.env): string {
  return join(userStateDir(env), 'snapshots');
}

/**
 * Takes the run's snapshot of each step: once the step's tool results are folded in and before the next request (the
 * first `compact` of a step), and at the run's end. A snapshot is the workspace as a tree in the object store and the
 * chart's saved state at that moment, as an object too; its line in `snapshots.jsonl` is appended last, so a kill at
 * any moment leaves every earlier step restorable. Returns what to call at the end of every machine step.
 *
 * @example const onStep = workspaceSnapshots({ options, workspace, savedState }); actor.subscribe({ next: onStep });
 */
export function workspaceSnapshots(parts: {
  options: RunOptions;
  workspace: string;
  /** The state as `saveState` would write it now. */
  savedState: () => SavedState;
}): (snapshot: ChartView) => void {
  const { options, workspace } = parts;
  const rules = options.rules.snapshots;
  if (!rules.enabled) return () => undefined;
  const storeRoot = options.snapshotStore ?? defaultSnapshotStore();
  const store = openObjectStore(storeRoot);
  const scanner = createTreeScanner({ workspace, store, excluded: snapshotExclusion(rules.exclude) });
  // A resumed (or rewound) run goes on after the step its last snapshot holds; the steps before stay as they were taken.
  let lastStep = readSnapshotIndex(options.runDir)
    .filter((line) => line.kind === 'step')
    .reduce((_, line) => line.step, -1);
  return (snapshot) => {
    const label = stateLabel(snapshot.value as never);
    const ended = snapshot.status !== 'active';
    const step = snapshot.context.step;
    // Between a step's compact and the run's end no command runs: the end adds a snapshot only for a step not yet kept.
    if (!(ended || label.endsWith('compact')) || step <= lastStep) return;
    lastStep = step;
    const started = performance.now();
    const before = store.bytesWritten();
    const scan = scanner.scan();
    const chart = store.put(JSON.stringify(parts.savedState()));
    appendSnapshotIndex(options.runDir, {
      step,
      store: storeRoot,
      tree: scan.tree,
      chart,
      state: ended ? snapshot.status : label,
      at: new Date().toISOString(),
      ms: Math.round((performance.now() - started) * 100) / 100,
      bytes: store.bytesWritten() - before,
      files: scan.files,
      skipped: scan.skipped,
    });
  };
}
