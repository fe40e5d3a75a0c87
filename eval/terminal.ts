import { AGENT_USAGE_HEADERS, agentUsageRows } from './agent-usage.js';
import type { Comparison } from './comparison.js';
import type { EvalView } from './eval-view.js';
import { columns, fixed, percent, pText, signed, signedUsd, signedWhole, usd, whole } from './format.js';

/** The end-of-eval table for the terminal: one row per configuration, then each paired comparison. */
export function formatEvalTable(view: EvalView): string {
  const rows = [['configuration', 'resolved', 'mean cost', 'steps', 'tokens', 'stalls', 'refusals', 'elided', 'summarized']];
  for (const stats of view.stats) {
    rows.push([
      stats.label,
      `${stats.resolvedTasks}/${stats.tasks} ${percent(stats.resolvedTasks, stats.tasks)}`,
      usd(stats.meanCostUsd),
      fixed(stats.meanSteps),
      whole(stats.meanPromptTokens + stats.meanCompletionTokens),
      String(stats.stallFirings),
      String(stats.gateRefusals),
      String(stats.contextElisions),
      String(stats.contextSummaries),
    ]);
  }
  const lines = [columns(rows)];
  const agentRows = agentUsageRows(view.records, view.configs);
  if (agentRows.length > 0) lines.push('', 'usage per agent (runs that delegated):', columns([AGENT_USAGE_HEADERS, ...agentRows]));
  for (const comparison of view.comparisons) lines.push('', formatComparison(comparison));
  return lines.join('\n');
}

/**
 * A paired comparison as a small table, the flipped tasks and the exact
 * McNemar p-value; says so when repeats were folded by majority.
 */
export function formatComparison(comparison: Comparison, sources?: { a: string; b: string }): string {
  const { a, b } = comparison;
  const lines = [`${a} vs ${b}${sources ? ` (${sources.a} vs ${sources.b})` : ''}: ${comparison.tasks.length} paired tasks`];
  const missing = comparison.missingInA.length + comparison.missingInB.length;
  if (missing > 0)
    lines.push(
      `  not paired: ${comparison.missingInB.length} only in ${a}${listed(comparison.missingInB)}, ${comparison.missingInA.length} only in ${b}${listed(comparison.missingInA)}`,
    );
  lines.push(
    indent(
      columns([
        ['', a, b, 'delta (B − A)'],
        [
          'resolved',
          `${comparison.resolvedA}/${comparison.tasks.length}`,
          `${comparison.resolvedB}/${comparison.tasks.length}`,
          String(comparison.resolvedB - comparison.resolvedA),
        ],
        ['mean cost', usd(comparison.cost.a), usd(comparison.cost.b), signedUsd(comparison.cost.delta)],
        ['mean steps', fixed(comparison.steps.a), fixed(comparison.steps.b), signed(comparison.steps.delta)],
        ['mean tokens', whole(comparison.tokens.a), whole(comparison.tokens.b), signedWhole(comparison.tokens.delta)],
      ]),
    ),
  );
  lines.push(`  only_a (${a} solved, ${b} failed): ${comparison.onlyA.length}${listed(comparison.onlyA)}`);
  lines.push(`  only_b (${b} solved, ${a} failed): ${comparison.onlyB.length}${listed(comparison.onlyB)}`);
  lines.push(`  exact McNemar p = ${pText(comparison.pValue)} (two-sided${comparison.pValue < 0.05 ? '; * p < 0.05' : ''})`);
  if (comparison.byMajority) lines.push('  repeats: each task counts as solved when a strict majority of its runs solved it (ties count as unsolved)');
  return lines.join('\n');
}

function listed(tasks: readonly string[]): string {
  return tasks.length === 0 ? '' : `: ${tasks.join(', ')}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
