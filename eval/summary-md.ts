import { AGENT_USAGE_HEADERS, agentUsageRows } from './agent-usage.js';
import type { Comparison } from './comparison.js';
import { COMPARISON_HEADERS, comparisonRows, configStatsRows } from './config-stats.js';
import type { EvalView } from './eval-view.js';
import { markdownTable } from './format.js';

/**
 * `summary.md`: per configuration resolved %, mean cost, steps and tokens;
 * each configuration paired against the first with the exact McNemar test;
 * the task × configuration grid; skipped tasks and broken runs.
 */
export function renderSummary(view: EvalView): string {
  const parts = [
    `# rein eval: ${view.tasksDir}`,
    `${view.modelNote}\n\n${view.priceNote}\n\nRuns: ${view.records.length} (${view.tasks.length} tasks × ${view.configs.length} configurations × ${view.repeat} repeat${view.repeat === 1 ? '' : 's'}).${view.repeat > 1 ? ' With repeats a task counts as resolved when a strict majority of its runs resolved it (a tie counts as unresolved).' : ''}`,
    '## Configurations',
    configTable(view),
  ];
  if (view.comparisons.length > 0) {
    parts.push(
      `## Paired against \`${view.configs[0]}\` (exact McNemar, two-sided; * p < 0.05)`,
      comparisonTable(view.comparisons),
      ...view.comparisons.map(flipLines),
    );
  }
  const agentRows = agentUsageRows(view.records, view.configs);
  if (agentRows.length > 0) parts.push('## Usage per agent (runs that delegated)', markdownTable(AGENT_USAGE_HEADERS, agentRows));
  parts.push('## Tasks', gridTable(view));
  if (view.problems.length > 0) parts.push('## Skipped tasks', view.problems.map((entry) => `- \`${entry.id}\`: ${entry.problem}`).join('\n'));
  if (view.brokenRuns.length > 0) {
    parts.push(
      '## Runs that did not finish normally',
      view.brokenRuns.map((run) => `- \`${run.task}\` × \`${run.config}\` #${run.repeat}: ${run.status}: ${run.reason} (trace: ${run.tracePath})`).join('\n'),
    );
  }
  return parts.join('\n\n') + '\n';
}

function configTable(view: EvalView): string {
  return markdownTable(
    [
      'configuration',
      'resolved',
      'mean cost',
      'mean steps',
      'mean prompt tokens',
      'mean completion tokens',
      'mean cached tokens',
      'stall firings',
      'gate refusals',
      'elisions',
      'summaries',
      'mean wall s',
      'end statuses',
    ],
    configStatsRows(view, { wallSeconds: true }),
  );
}

function comparisonTable(comparisons: readonly Comparison[]): string {
  return markdownTable(COMPARISON_HEADERS, comparisonRows(comparisons));
}

function flipLines(comparison: Comparison): string {
  const lines = [`**${comparison.b}**: ${comparison.onlyA.length + comparison.onlyB.length} flips.`];
  if (comparison.onlyA.length > 0) lines.push(`solved by ${comparison.a} only: ${comparison.onlyA.map((task) => `\`${task}\``).join(', ')}.`);
  if (comparison.onlyB.length > 0) lines.push(`solved by ${comparison.b} only: ${comparison.onlyB.map((task) => `\`${task}\``).join(', ')}.`);
  if (comparison.missingInA.length + comparison.missingInB.length > 0)
    lines.push(`not paired (runs missing on one side): ${[...comparison.missingInA, ...comparison.missingInB].join(', ')}.`);
  return lines.join(' ');
}

function gridTable(view: EvalView): string {
  const baseline = view.configs[0];
  return markdownTable(
    ['task', ...view.configs],
    view.tasks.map((task) => {
      const row = view.grid.get(task)!;
      const base = baseline === undefined ? undefined : row.get(baseline);
      return [
        task + (view.taskNotes?.[task] ? ` (${view.taskNotes[task]})` : ''),
        ...view.configs.map((config) => {
          const outcome = row.get(config);
          if (!outcome) return '–';
          const mark = outcome.resolved ? 'pass' : 'fail';
          const flip = base && config !== baseline && base.resolved !== outcome.resolved ? ' ⚑ flip' : '';
          return `${mark}${outcome.runs > 1 ? ` ${outcome.resolvedRuns}/${outcome.runs}` : ''}${flip}`;
        }),
      ];
    }),
  );
}
