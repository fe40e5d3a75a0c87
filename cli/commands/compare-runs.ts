import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import { chartOf, describeDiffCounts, diffStepTrees, openSnapshotRun, readJsonLines, readRunMeta, stepSnapshot, traceFileOf } from 'rein/run';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

interface Usage {
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

interface RunRow {
  runDir: string;
  role: string;
  model: string;
  rules: string;
  status: string;
  steps: number;
  /** Steps, tokens and cost after the fork point (the whole run for the origin). */
  own: { steps: number } & Usage;
  /** What the run changed in the workspace after the fork point. */
  changed: string;
}

/** Whether every argument is a run directory (run.json beside it): then `rein compare` sets a run beside its forks. */
export function areRunDirs(paths: readonly string[]): boolean {
  return paths.length > 0 && paths.every((path) => existsSync(join(resolve(path), 'run.json')));
}

/**
 * `rein compare <run-dir> <fork-dir>…`: the run and its forks side by side, each fork from its fork point: its model
 * and rules, how it ended, its own steps, tokens and cost (the origin's usage up to the fork point left out), and
 * what it changed in the workspace from there.
 *
 * @example await compareRuns(['.rein/runs/a', '.rein/runs/b'], io, false);
 */
export async function compareRuns(paths: readonly string[], io: Io, json: boolean): Promise<number> {
  const [originDir, ...forkDirs] = paths.map((path) => resolve(path));
  if (!originDir || forkDirs.length === 0) throw new UsageError('rein compare: name a run and at least one of its forks (rein fork)');
  const origin = readRunMeta(originDir);
  const rows: RunRow[] = [];
  const forkSteps: number[] = [];
  for (const forkDir of forkDirs) {
    const meta = readRunMeta(forkDir) as ReturnType<typeof readRunMeta> & { forkOf?: { runDir: string; step: number } };
    if (meta.forkOf?.runDir !== originDir) throw new UsageError(`rein compare: ${forkDir} is not a fork of ${originDir} (its run.json names no such origin)`);
    forkSteps.push(meta.forkOf.step);
    rows.push(rowOf(forkDir, `fork at step ${meta.forkOf.step}`, meta.forkOf.step, origin.configPath));
  }
  const from = Math.min(...forkSteps);
  rows.unshift(rowOf(originDir, `origin (from step ${from})`, from, origin.configPath));
  if (json) io.stdout.write(`${JSON.stringify(rows)}\n`);
  else io.stdout.write(`${formatRows(rows)}\n`);
  return EXIT.done;
}

function rowOf(runDir: string, role: string, fromStep: number, originConfig: string | undefined): RunRow {
  const meta = readRunMeta(runDir);
  const end = readJsonLines<{ kind?: string; status?: string; steps?: number; usage?: Usage }>(traceFileOf(runDir, meta))
    .values.filter((line) => line.kind === 'end')
    .at(-1);
  const run = openSnapshotRun(runDir);
  const at = chartOf(run, stepSnapshot(run, fromStep));
  const context = (at.snapshot as { context: { step: number; usage: Usage } }).context;
  const usage = end?.usage ?? context.usage;
  const last = run.index.filter((line) => line.kind === 'step').at(-1)!;
  // The workspace as the run left it at its end: a later rewind of the run (which indexes an earlier step again) does
  // not change what the run itself did after the fork point.
  const endStep = end?.steps ?? last.step;
  const final = run.index.some((line) => line.kind === 'step' && line.step === endStep) ? stepSnapshot(run, endStep) : last;
  return {
    runDir,
    role,
    model: meta.model,
    rules: meta.configPath === originConfig ? 'as the origin' : (meta.configPath ?? 'preset default'),
    status: end?.status ?? 'not ended',
    steps: endStep,
    own: {
      steps: endStep - context.step,
      promptTokens: usage.promptTokens - context.usage.promptTokens,
      completionTokens: usage.completionTokens - context.usage.completionTokens,
      costUsd: usage.costUsd - context.usage.costUsd,
    },
    changed: describeDiffCounts(diffStepTrees(run, fromStep, final)),
  };
}

function formatRows(rows: RunRow[]): string {
  const header = ['run', 'model', 'rules', 'ended', 'steps', 'own steps', 'own tokens in/out', 'own cost', 'workspace after the fork point', 'run dir'];
  const body = rows.map((row) => [
    row.role,
    row.model,
    row.rules,
    row.status,
    String(row.steps),
    String(row.own.steps),
    `${row.own.promptTokens}/${row.own.completionTokens}`,
    `$${row.own.costUsd.toFixed(4)}`,
    row.changed,
    row.runDir,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  return [header, ...body]
    .map((cells) =>
      cells
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
