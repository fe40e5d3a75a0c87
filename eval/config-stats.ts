import type { Comparison } from './comparison.js';
import type { EvalView } from './eval-view.js';
import { fixed, percent, pText, signed, signedUsd, signedWhole, usd, whole } from './format.js';

/**
 * One row per configuration for the summary and the report: resolved tasks,
 * mean cost, steps and tokens, harness counts and end statuses; the wall
 * time only where the table shows it.
 *
 * @example configStatsRows(view, { wallSeconds: true })[0] // ['default', '12/12 (100.0%)', '$0.0974', …]
 */
export function configStatsRows(view: EvalView, options: { wallSeconds: boolean }): string[][] {
  return view.stats.map((stats) => [
    stats.label,
    `${stats.resolvedTasks}/${stats.tasks} (${percent(stats.resolvedTasks, stats.tasks)})`,
    usd(stats.meanCostUsd),
    fixed(stats.meanSteps),
    whole(stats.meanPromptTokens),
    whole(stats.meanCompletionTokens),
    whole(stats.meanCachedTokens),
    String(stats.stallFirings),
    String(stats.gateRefusals),
    String(stats.contextElisions),
    String(stats.contextSummaries),
    ...(options.wallSeconds ? [fixed(stats.meanWallSeconds)] : []),
    Object.entries(stats.statuses)
      .map(([status, count]) => `${status} ${count}`)
      .join(', '),
  ]);
}

/** The headers of the paired comparison of each configuration with the baseline. */
export const COMPARISON_HEADERS = [
  'configuration',
  'paired tasks',
  'resolved (base → this)',
  'only base',
  'only this',
  'p',
  'Δ mean cost',
  'Δ mean steps',
  'Δ mean tokens',
];

/**
 * One row per compared configuration for the summary and the report: paired
 * tasks, resolved counts, the tasks only one side solved, the exact McNemar
 * p and the mean differences.
 *
 * @example comparisonRows(view.comparisons)[0] // ['no-plan', '12', '12 → 6', '6', '0', '0.0312', …]
 */
export function comparisonRows(comparisons: readonly Comparison[]): string[][] {
  return comparisons.map((comparison) => [
    comparison.b,
    String(comparison.tasks.length),
    `${comparison.resolvedA} → ${comparison.resolvedB}`,
    String(comparison.onlyA.length),
    String(comparison.onlyB.length),
    pText(comparison.pValue),
    signedUsd(comparison.cost.delta),
    signed(comparison.steps.delta),
    signedWhole(comparison.tokens.delta),
  ]);
}
