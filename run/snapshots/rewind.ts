import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { UsageError } from '../../lib/errors.js';
import { type RestoreReport, restoreTree } from '../../lib/snapshots/restore-tree.js';
import { diffTrees, type TreeDiff } from '../../lib/snapshots/tree-diff.js';
import { type FlatEntry, flattenTree } from '../../lib/snapshots/tree-format.js';
import { runFile } from '../record/run-dir.js';
import { appendSnapshotIndex, type StepSnapshot } from '../record/snapshot-index.js';
import { type SavedState, saveState } from '../record/state-file.js';
import { chartOf, openSnapshotRun, refuseLiveRun, type SnapshotRun, scanWorkspace, stepSnapshot } from './step-snapshots.js';

/** What a rewind to a step will do, worked out before anything is written. */
export interface RewindPlan {
  run: SnapshotRun;
  workspace: string;
  target: StepSnapshot;
  chart: SavedState;
  targetEntries: Map<string, FlatEntry>;
  current: { tree: string; entries: Map<string, FlatEntry> };
  /** The workspace now → the step. */
  changes: TreeDiff;
  /** The run's last snapshot → the workspace now: changes the run did not make (or made in a step cut short by a kill). */
  outside: TreeDiff & { since: StepSnapshot };
  /** What going back cannot undo. */
  notRestorable: string[];
}

/**
 * Works out a rewind of a run's workspace to the snapshot of `step`: what will change, what changed outside the run
 * since its last snapshot, and what cannot be undone (commands' effects outside the workspace, excluded paths).
 *
 * @example const plan = planRewind(runDir, 3); console.log(plan.changes);
 */
export function planRewind(runDir: string, step: number, workspace?: string): RewindPlan {
  const run = openSnapshotRun(runDir);
  refuseLiveRun(run);
  const target = stepSnapshot(run, step);
  const chart = chartOf(run, target);
  const where = workspace ?? run.meta.workspace;
  if (!existsSync(where)) throw new UsageError(`the run's workspace ${where} is gone; use --out DIR to materialise step ${step} elsewhere`);
  const targetEntries = flattenTree(run.store, target.tree);
  const current = scanWorkspace(run, where);
  const latest = run.index[run.index.length - 1]!;
  const outside = latest.tree === current.tree ? { added: [], deleted: [], modified: [] } : diffTrees(flattenTree(run.store, latest.tree), current.entries);
  return {
    run,
    workspace: realpathSync(where),
    target,
    chart,
    targetEntries,
    current: { tree: current.tree, entries: current.entries },
    changes: diffTrees(current.entries, targetEntries),
    outside: { ...outside, since: latest },
    notRestorable: notRestorable(run, target, chart),
  };
}

/** Whether the workspace holds changes the run's snapshots do not. */
export function hasOutsideChanges(plan: RewindPlan): boolean {
  const { added, deleted, modified } = plan.outside;
  return added.length + deleted.length + modified.length > 0;
}

/**
 * Restores the workspace of a plan. The workspace as it is now is kept first (a `before-rewind` snapshot: nothing is
 * lost, `--force` included), and the step's snapshot becomes the run's latest, so the next rewind compares with it.
 *
 * @example const report = restoreWorkspace(planRewind(runDir, 3));
 */
export function restoreWorkspace(plan: RewindPlan): RestoreReport {
  const { run, target } = plan;
  appendSnapshotIndex(run.runDir, { step: target.step, kind: 'before-rewind', store: run.store.root, tree: plan.current.tree, at: new Date().toISOString() });
  const report = restoreTree({ root: plan.workspace, store: run.store, target: plan.targetEntries, current: plan.current.entries });
  appendSnapshotIndex(run.runDir, { ...target, at: new Date().toISOString(), ms: 0, bytes: 0 });
  return report;
}

/**
 * A whole rewind: the workspace restored, `state.json` made the step's chart state and the call journal cut after the
 * step, so `rein resume` continues from it with the facts, budgets and record of that moment.
 *
 * @example const report = applyRewind(planRewind(runDir, 3));
 */
export function applyRewind(plan: RewindPlan): RestoreReport {
  const report = restoreWorkspace(plan);
  saveState(runFile(plan.run.runDir, 'state'), plan.chart);
  keepJournalUpTo(plan.run.runDir, plan.target.step);
  return report;
}

/**
 * Writes the workspace of a step into `out`, a new or empty folder, leaving the run's workspace alone.
 *
 * @example materialiseStep(runDir, 3, '/tmp/step-3');
 */
export function materialiseStep(runDir: string, step: number, out: string): { report: RestoreReport; target: StepSnapshot; run: SnapshotRun } {
  const run = openSnapshotRun(runDir);
  const target = stepSnapshot(run, step);
  if (existsSync(out) && readdirSync(out).length > 0) throw new UsageError(`--out ${out} is not empty; name a new or empty folder`);
  mkdirSync(out, { recursive: true });
  const report = restoreTree({ root: realpathSync(out), store: run.store, target: flattenTree(run.store, target.tree), current: new Map() });
  return { report, target, run };
}

/** calls.jsonl without the calls of later steps: a resumed run must run its new steps' calls, not reuse the old ones' results. */
export function keepJournalUpTo(runDir: string, step: number, into = runDir): void {
  const path = runFile(runDir, 'journal');
  if (!existsSync(path)) return;
  const kept = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => {
      if (!line.trim()) return false;
      try {
        return Number.parseInt((JSON.parse(line) as { key: string }).key, 10) <= step;
      } catch {
        return false;
      }
    });
  const target = runFile(into, 'journal');
  writeFileSync(`${target}.tmp`, kept.map((line) => `${line}\n`).join(''));
  renameSync(`${target}.tmp`, target);
}

function notRestorable(run: SnapshotRun, target: StepSnapshot, chart: SavedState): string[] {
  const out: string[] = [];
  for (const command of commandsAfter(run.runDir, chart.recordLength))
    out.push(`a command ran after step ${target.step}; what it did outside the workspace (processes, network, other folders) is not undone: ${command}`);
  if (run.exclude.length > 0) out.push(`excluded paths are left as they are: ${run.exclude.join(' ')} (and .git, .rein/)`);
  for (const path of target.skipped) out.push(`${path}: not a file, folder or symlink at step ${target.step}; not kept`);
  return out;
}

/** The `run` commands of the record after its first `length` messages. */
function commandsAfter(runDir: string, length: number): string[] {
  const path = runFile(runDir, 'record');
  if (!existsSync(path)) return [];
  const commands: string[] = [];
  const lines = readFileSync(path, 'utf8').split('\n').slice(length);
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const message = JSON.parse(line) as { tool_calls?: { function?: { name?: string; arguments?: string } }[] };
      for (const call of message.tool_calls ?? []) {
        if (call.function?.name !== 'run') continue;
        const command = (JSON.parse(call.function.arguments ?? '{}') as { command?: unknown }).command;
        if (typeof command === 'string') commands.push(command.length > 200 ? `${command.slice(0, 200)}…` : command);
      }
    } catch {
      // a line cut by a kill: nothing to list
    }
  }
  return commands;
}
