import type { EvalView } from './eval-view.js';
import { fixed, percent, usd, whole } from './format.js';

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
