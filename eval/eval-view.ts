import { byConfig, type ConfigStats, statsOf } from './aggregate.js';
import { type Comparison, compareRecords } from './comparison.js';
import { outcomesByTask, type TaskOutcome } from './outcomes.js';
import type { RunRecord } from './run-record.js';

/** What summary.md and report.html are written from. */
interface EvalViewInput {
  tasksDir: string;
  configs: string[];
  records: RunRecord[];
  repeat: number;
  /** One line on the model: simulated (offline) or the endpoint model's name. */
  modelNote: string;
  /** One line on where prices came from (nominal for simulated models). */
  priceNote: string;
  problems: Array<{ id: string; problem: string }>;
  /** Short descriptions per task (e.g. its simulated model), shown next to its name. */
  taskNotes?: Record<string, string>;
}

export interface EvalView extends EvalViewInput {
  tasks: string[];
  stats: ConfigStats[];
  /** Each configuration after the first against the first (the baseline). */
  comparisons: Comparison[];
  /** task → configuration → outcome (majority over repeats). */
  grid: Map<string, Map<string, TaskOutcome>>;
  /** Runs the harness could not finish: crashes, kills, setup failures. */
  brokenRuns: RunRecord[];
}

/**
 * Derives per-configuration figures, paired comparisons against the first
 * configuration and the task × configuration grid.
 *
 * @example const view = buildEvalView({ tasksDir, configs: ['default', 'no-plan'], records, repeat: 1, modelNote, priceNote, problems: [] });
 */
export function buildEvalView(input: EvalViewInput): EvalView {
  const groups = byConfig(input.records, input.configs);
  const grid = new Map<string, Map<string, TaskOutcome>>();
  for (const [config, records] of groups) {
    for (const [task, outcome] of outcomesByTask(records)) {
      if (!grid.has(task)) grid.set(task, new Map());
      grid.get(task)!.set(config, outcome);
    }
  }
  const [baseline, ...others] = input.configs;
  return {
    ...input,
    tasks: [...grid.keys()].sort(),
    stats: input.configs.map((label) => statsOf(label, groups.get(label) ?? [])),
    comparisons: baseline === undefined ? [] : others.map((label) => compareRecords(groups.get(baseline) ?? [], groups.get(label) ?? [], baseline, label)),
    grid,
    brokenRuns: input.records.filter((record) => ['crash', 'setup_failed'].includes(record.status) || record.reason.startsWith('killed')),
  };
}
