import { statSync } from 'node:fs';
import { join } from 'node:path';
import { diffStepTrees, forksOf, openSnapshotRun, readRunMeta, stepSnapshot } from 'rein/run';
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
  // A live page asks again every second or two: the answer is made again only when the run kept a step or a fork.
  const key = `${sizeOf(join(runDir, 'snapshots.jsonl'))}:${sizeOf(join(runDir, 'forks.jsonl'))}:${sizeOf(join(runDir, 'run.json'))}`;
  const cached = answers.get(runDir);
  if (cached?.key === key) return cached.steps;
  const steps = readWorkspaceSteps(runDir);
  // A process that writes many runs' pages (an eval) keeps the last few answers and diffs, not all of them.
  if (answers.size >= 16) answers.clear();
  if (diffs.size >= 4096) diffs.clear();
  answers.set(runDir, { key, steps });
  return steps;
}

const answers = new Map<string, { key: string; steps: WorkspaceSteps | null }>();
/** Diffs by the pair of trees they compare: a kept step's diffs are worked out once per process. */
const diffs = new Map<string, DiffView>();

function sizeOf(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? -1;
}

function readWorkspaceSteps(runDir: string): WorkspaceSteps | null {
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
    const diffFrom = (from: number): DiffView => {
      const pair = `${stepSnapshot(run, from).tree}>${snapshot.tree}`;
      const known = diffs.get(pair) ?? view(diffStepTrees(run, from, snapshot));
      diffs.set(pair, known);
      return known;
    };
    steps[step] = { state: snapshot.state, sincePrevious: diffFrom(kept[Math.max(0, position - 1)]!), sinceStart: diffFrom(first) };
  });
  const forks = forksOf(runDir);
  return {
    runDir,
    model: meta.model,
    ...(meta.forkOf ? { forkOf: { ...meta.forkOf, command: `npx rein viz ${join(meta.forkOf.runDir, 'trace.jsonl')}` } } : {}),
    ...(forks.length > 0 ? { forks } : {}),
    steps,
  };
}

function view(diff: { added: string[]; modified: string[]; deleted: string[] }): DiffView {
  const more = Math.max(0, diff.added.length - LISTED) + Math.max(0, diff.modified.length - LISTED) + Math.max(0, diff.deleted.length - LISTED);
  return { added: diff.added.slice(0, LISTED), modified: diff.modified.slice(0, LISTED), deleted: diff.deleted.slice(0, LISTED), more };
}
