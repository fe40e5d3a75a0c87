import type { RunRecord } from './run-record.js';

/** A task's outcome under one configuration, over its repeats. */
export interface TaskOutcome {
  task: string;
  /** Solved by a strict majority of its runs (with one run: that run). A tie counts as unsolved. */
  resolved: boolean;
  runs: number;
  resolvedRuns: number;
  /** Means over the task's runs. */
  costUsd: number;
  steps: number;
  tokens: number;
}

/**
 * One outcome per task from a configuration's records: with repeats, a task
 * counts as solved when more than half of its runs were (majority; ties are
 * unsolved), and its cost, steps and tokens are the means over its runs.
 *
 * @example outcomesByTask(records.filter((r) => r.config === 'default')).get('py-stats')?.resolved
 */
export function outcomesByTask(records: readonly RunRecord[]): Map<string, TaskOutcome> {
  const groups = new Map<string, RunRecord[]>();
  for (const record of records) groups.set(record.task, [...(groups.get(record.task) ?? []), record]);
  const outcomes = new Map<string, TaskOutcome>();
  for (const [task, runs] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const resolvedRuns = runs.filter((run) => run.resolved).length;
    outcomes.set(task, {
      task,
      runs: runs.length,
      resolvedRuns,
      resolved: resolvedRuns * 2 > runs.length,
      costUsd: mean(runs.map((run) => run.costUsd)),
      steps: mean(runs.map((run) => run.steps)),
      tokens: mean(runs.map((run) => run.promptTokens + run.completionTokens)),
    });
  }
  return outcomes;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
