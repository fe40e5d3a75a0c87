import { mean, outcomesByTask } from './outcomes.js';
import type { RunRecord } from './run-record.js';

/** Per-configuration figures for summary.md and report.html; means are per run. */
export interface ConfigStats {
  label: string;
  runs: number;
  tasks: number;
  /** Tasks solved (majority over repeats). */
  resolvedTasks: number;
  resolvedRuns: number;
  meanCostUsd: number;
  totalCostUsd: number;
  meanSteps: number;
  meanPromptTokens: number;
  meanCompletionTokens: number;
  meanCachedTokens: number;
  meanWallSeconds: number;
  stallFirings: number;
  gateRefusals: number;
  contextElisions: number;
  contextSummaries: number;
  /** Runs per end status (`done`, `step_limit`, `crash`, …). */
  statuses: Record<string, number>;
}

/**
 * The figures of one configuration's runs.
 *
 * @example statsOf('default', records.filter((record) => record.config === 'default')).resolvedTasks
 */
export function statsOf(label: string, records: readonly RunRecord[]): ConfigStats {
  const outcomes = outcomesByTask(records);
  const sum = (pick: (record: RunRecord) => number) => records.reduce((total, record) => total + pick(record), 0);
  const avg = (pick: (record: RunRecord) => number) => mean(records.map(pick));
  const statuses: Record<string, number> = {};
  for (const record of records) statuses[record.status] = (statuses[record.status] ?? 0) + 1;
  return {
    label,
    runs: records.length,
    tasks: outcomes.size,
    resolvedTasks: [...outcomes.values()].filter((outcome) => outcome.resolved).length,
    resolvedRuns: records.filter((record) => record.resolved).length,
    meanCostUsd: avg((record) => record.costUsd),
    totalCostUsd: sum((record) => record.costUsd),
    meanSteps: avg((record) => record.steps),
    meanPromptTokens: avg((record) => record.promptTokens),
    meanCompletionTokens: avg((record) => record.completionTokens),
    meanCachedTokens: avg((record) => record.cachedTokens),
    meanWallSeconds: avg((record) => record.wallSeconds),
    stallFirings: sum((record) => record.stallFirings),
    gateRefusals: sum((record) => record.gateRefusals),
    contextElisions: sum((record) => record.contextElisions),
    contextSummaries: sum((record) => record.contextSummaries),
    statuses,
  };
}

/** Records grouped by configuration label, in the given label order. */
export function byConfig(records: readonly RunRecord[], labels: readonly string[]): Map<string, RunRecord[]> {
  const groups = new Map<string, RunRecord[]>(labels.map((label) => [label, []]));
  for (const record of records) groups.get(record.config)?.push(record);
  return groups;
}
