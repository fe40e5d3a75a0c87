import type { ReplayResult } from 'rein/testing';

/** Exit statuses that mean the recorded run was cut off by a budget: a stop there saves the steps after it. */
const LIMIT_EXITS: readonly string[] = ['cost_limit', 'step_limit', 'context_limit', 'time_limit'];

/** The figures of one rules set on one set of runs. */
export interface ReplaySummary {
  runs: number;
  actions: number;
  resolved: number;
  resolvedNudged: number;
  /** Resolved runs with at least one nudge while the agent was learning. */
  resolvedNudgedLearning: number;
  nudges: number;
  /** Nudges on resolved runs, by rule. */
  resolvedNudgesByRule: Record<string, number>;
  nudgesByRule: Record<string, number>;
  stopped: number;
  /** Resolved runs rein would have ended as stalled. */
  falseStops: number;
  /** Runs that ended on a cost/step/context/time limit and that rein stopped, and the actions those stops save. */
  limitRunsStopped: number;
  savedActions: number;
  /** Actions no mapping table entry matched, by the action's name. */
  unmapped: Record<string, number>;
  /** Recorded actions by the rein tool they map onto (`none`: a reply without a usable action). */
  tools: Record<string, number>;
}

/** Totals over replayed runs. */
export function summarize(results: readonly ReplayResult[]): ReplaySummary {
  const summary: ReplaySummary = {
    runs: results.length,
    actions: 0,
    resolved: 0,
    resolvedNudged: 0,
    resolvedNudgedLearning: 0,
    nudges: 0,
    resolvedNudgesByRule: {},
    nudgesByRule: {},
    stopped: 0,
    falseStops: 0,
    limitRunsStopped: 0,
    savedActions: 0,
    unmapped: {},
    tools: {},
  };
  const add = (table: Record<string, number>, key: string) => {
    table[key] = (table[key] ?? 0) + 1;
  };
  for (const result of results) {
    const { run } = result;
    summary.actions += run.steps.length;
    for (const step of run.steps) {
      add(summary.tools, step.tool);
      if (step.unmapped) add(summary.unmapped, step.unmapped);
    }
    summary.nudges += result.nudges.length;
    for (const nudge of result.nudges) add(summary.nudgesByRule, nudge.rule);
    if (result.stop) summary.stopped += 1;
    if (run.resolved === true) {
      summary.resolved += 1;
      if (result.nudges.length > 0) summary.resolvedNudged += 1;
      if (result.nudges.some((nudge) => nudge.learning)) summary.resolvedNudgedLearning += 1;
      for (const nudge of result.nudges) add(summary.resolvedNudgesByRule, nudge.rule);
      if (result.stop) summary.falseStops += 1;
    }
    if (result.stop && run.exitStatus && LIMIT_EXITS.includes(run.exitStatus)) {
      summary.limitRunsStopped += 1;
      summary.savedActions += result.savedActions;
    }
  }
  return summary;
}

/** "76 of 241 (31.5%)". */
export function share(part: number, whole: number): string {
  return `${part} of ${whole} (${whole === 0 ? '0.0' : ((100 * part) / whole).toFixed(1)}%)`;
}

/** The summary as the lines `rein replay` prints. */
export function summaryLines(label: string, summary: ReplaySummary): string[] {
  const rules = (table: Record<string, number>) =>
    Object.entries(table)
      .sort((a, b) => b[1] - a[1])
      .map(([rule, count]) => `${rule} ${count}`)
      .join(', ') || 'none';
  const unmapped = Object.values(summary.unmapped).reduce((total, count) => total + count, 0);
  return [
    `${label}: ${summary.runs} runs, ${summary.actions} actions, ${summary.resolved} resolved`,
    `  actions by tool: ${rules(summary.tools)}`,
    `  resolved runs nudged: ${share(summary.resolvedNudged, summary.resolved)}; while learning: ${share(summary.resolvedNudgedLearning, summary.resolved)}`,
    `  nudges on resolved runs by rule: ${rules(summary.resolvedNudgesByRule)}`,
    `  all nudges by rule: ${rules(summary.nudgesByRule)}`,
    `  runs stopped as stalled: ${summary.stopped}; resolved runs stopped (false stops): ${summary.falseStops}`,
    `  runs that ended on a limit and were stopped: ${summary.limitRunsStopped}, saving ${summary.savedActions} actions`,
    `  unmapped actions: ${unmapped === 0 ? 'none' : `${unmapped} (${rules(summary.unmapped)})`}`,
  ];
}
