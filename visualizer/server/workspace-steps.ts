import { join } from 'node:path';
import { diffStepTrees, openSnapshotRun, readRunMeta, stepSnapshot } from 'rein/run';
import type { DiffView, WorkspaceSteps } from './page-data.js';

/** Paths of each kind the page lists for a step; the rest are counted. */
const LISTED = 40;

/**
 * The workspace steps of the run whose run directory holds `runDir`'s snapshots: for each kept step, what changed
 * against the step before and against the start. Null for a run without snapshots (or whose run.json rein did not write).
 *
 * @example const workspace = workspaceStepsOf('/repo/.rein/runs/abc');
 */
export function workspaceStepsOf(runDir: string): WorkspaceSteps | null {
  let run: ReturnType<typeof openSnapshotRun>;
  try {
    run = openSnapshotRun(runDir);
  } catch {
    return null;
  }
  const meta = readRunMeta(runDir) as ReturnType<typeof readRunMeta> & { forkOf?: { runDir: string; step: number } };
  const kept = [...new Set(run.index.filter((line) => line.kind === 'step').map((line) => line.step))].sort((a, b) => a - b);
  const first = kept[0]!;
  const steps: WorkspaceSteps['steps'] = {};
  kept.forEach((step, position) => {
    const snapshot = stepSnapshot(run, step);
    steps[step] = {
      state: snapshot.state,
      sincePrevious: view(diffStepTrees(run, kept[Math.max(0, position - 1)]!, snapshot)),
      sinceStart: view(diffStepTrees(run, first, snapshot)),
    };
  });
  return {
    runDir,
    model: meta.model,
    ...(meta.forkOf ? { forkOf: { ...meta.forkOf, command: `npx rein viz ${join(meta.forkOf.runDir, 'trace.jsonl')}` } } : {}),
    steps,
  };
}

function view(diff: { added: string[]; modified: string[]; deleted: string[] }): DiffView {
  const more = Math.max(0, diff.added.length - LISTED) + Math.max(0, diff.modified.length - LISTED) + Math.max(0, diff.deleted.length - LISTED);
  return { added: diff.added.slice(0, LISTED), modified: diff.modified.slice(0, LISTED), deleted: diff.deleted.slice(0, LISTED), more };
}
