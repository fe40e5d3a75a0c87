import { replayPathFor } from 'rein-visualizer/server/replay-files.js';
import type { EvalView } from './eval-view.js';
import { usd } from './format.js';
import type { TaskOutcome } from './outcomes.js';
import type { RunRecord } from './run-record.js';
import { escapeXml as esc } from './svg-charts.js';

/**
 * The report's task × configuration grid: per cell pass or fail (a flip
 * against the first configuration outlined, ▲ gained, ▼ lost), the task's
 * cost and tokens under that configuration, and a link to the replay page
 * of its run (of each run, with repeats). The task column stays in view
 * when the grid scrolls sideways.
 *
 * @example body.push(reportGrid(view));
 */
export function reportGrid(view: EvalView): string {
  const baseline = view.configs[0];
  const head = `<tr><th>task</th>${view.configs.map((config) => `<th>${esc(config)}</th>`).join('')}</tr>`;
  const rows = view.tasks.map((task) => {
    const row = view.grid.get(task)!;
    const base = baseline === undefined ? undefined : row.get(baseline);
    const note = view.taskNotes?.[task] ? `<br><small>${esc(view.taskNotes[task]!)}</small>` : '';
    const cells = view.configs.map((config) => {
      const outcome = row.get(config);
      if (!outcome) return '<td class="none">–</td>';
      const flipped = base !== undefined && config !== baseline && base.resolved !== outcome.resolved;
      const runs = view.records.filter((record) => record.task === task && record.config === config).sort((a, b) => a.repeat - b.repeat);
      return cell(outcome, runs, flipped);
    });
    return `<tr><td><code>${esc(task)}</code>${note}</td>${cells.join('')}</tr>`;
  });
  return `<div class="scroll"><table class="grid">${head}${rows.join('')}</table></div>`;
}

function cell(outcome: TaskOutcome, runs: RunRecord[], flipped: boolean): string {
  const title = runs
    .map(
      (run) =>
        `#${run.repeat}: ${run.status}, ${run.steps} steps, ${usd(run.costUsd)}, ${tokens(run.promptTokens + run.completionTokens)} tokens${run.reason ? ` (${run.reason})` : ''}`,
    )
    .join('\n');
  const label = `${outcome.resolved ? 'pass' : 'fail'}${outcome.runs > 1 ? ` ${outcome.resolvedRuns}/${outcome.runs}` : ''}${flipped ? (outcome.resolved ? ' ▲' : ' ▼') : ''}`;
  const first = runs.find((run) => run.tracePath);
  const main = first ? `<a class="run" href="${esc(replayPathFor(first.tracePath))}" title="Open the replay of run #${first.repeat}">${label}</a>` : label;
  const figures = `<span class="figures">${usd(outcome.costUsd)} · ${tokens(outcome.tokens)} tok${outcome.runs > 1 ? ' (mean)' : ''}</span>`;
  const repeats =
    runs.length > 1
      ? `<span class="repeats">${runs
          .filter((run) => run.tracePath)
          .map((run) => `<a href="${esc(replayPathFor(run.tracePath))}" title="Replay of run #${run.repeat}: ${esc(run.status)}">#${run.repeat}</a>`)
          .join(' ')}</span>`
      : '';
  return `<td class="${outcome.resolved ? 'pass' : 'fail'}${flipped ? ' flip' : ''}" title="${esc(title)}">${main}${figures}${repeats}</td>`;
}

/** Tokens short: 52,354 → 52.4k. */
function tokens(value: number): string {
  return value >= 10_000 ? `${(value / 1000).toFixed(1)}k` : Math.round(value).toLocaleString('en-US');
}
