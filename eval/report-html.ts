import type { Comparison } from './comparison.js';
import type { EvalView } from './eval-view.js';
import { fixed, percent, pText, signed, signedUsd, signedWhole, usd, whole } from './format.js';
import type { RunRecord } from './run-record.js';
import { barChart, escapeXml as esc } from './svg-charts.js';

const STYLE = `
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d232b}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
.note{background:#fff7e0;border:1px solid #e8c96a;padding:.6rem .8rem;border-radius:4px}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d4d8de;padding:.3rem .5rem;text-align:left;font-size:.9rem}
th{background:#f3f5f7}td.pass{background:#dff3e4}td.fail{background:#f9dede}td.none{color:#999}
td.flip{outline:3px solid #e07b00;outline-offset:-3px;font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem}.legend span{display:inline-block;padding:0 .4rem;margin-right:.6rem}
a{color:#1f5fa8}`;

/**
 * `report.html`: one self-contained page (inline CSS and SVG, no scripts,
 * no network) with the resolve rate and cost per configuration, the paired
 * comparisons, and a task × configuration grid of pass/fail where flips
 * against the first configuration are outlined.
 */
export function renderReport(view: EvalView): string {
  const body = [
    `<h1>rein eval: ${esc(view.tasksDir)}</h1>`,
    `<p class="note">${esc(view.modelNote)}<br>${esc(view.priceNote)}</p>`,
    `<p>${view.records.length} runs: ${view.tasks.length} tasks × ${view.configs.length} configurations × ${view.repeat} repeat${view.repeat === 1 ? '' : 's'}.${view.repeat > 1 ? ' A task counts as resolved when a strict majority of its runs resolved it.' : ''}</p>`,
    charts(view),
    '<h2>Configurations</h2>', configTable(view),
    ...(view.comparisons.length > 0 ? [`<h2>Paired against ${esc(view.configs[0]!)} (exact McNemar, two-sided)</h2>`, comparisonTable(view.comparisons)] : []),
    '<h2>Tasks × configurations</h2>', legend(view), grid(view),
    ...(view.brokenRuns.length > 0 ? ['<h2>Runs that did not finish normally</h2>', brokenRuns(view.brokenRuns)] : []),
    ...(view.problems.length > 0 ? ['<h2>Skipped tasks</h2>', `<ul>${view.problems.map((entry) => `<li><code>${esc(entry.id)}</code>: ${esc(entry.problem)}</li>`).join('')}</ul>`] : []),
  ];
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>rein eval: ${esc(view.tasksDir)}</title><style>${STYLE}</style></head><body>${body.join('\n')}</body></html>\n`;
}

function charts(view: EvalView): string {
  const resolved = barChart('Resolve rate', view.stats.map((stats) => ({ label: stats.label, value: stats.tasks === 0 ? 0 : stats.resolvedTasks / stats.tasks, text: `${stats.resolvedTasks}/${stats.tasks} (${percent(stats.resolvedTasks, stats.tasks)})` })), { max: 1, color: '#2f7d4f' });
  const cost = barChart('Mean cost per run', view.stats.map((stats) => ({ label: stats.label, value: stats.meanCostUsd, text: usd(stats.meanCostUsd) })), { color: '#3d6fb6' });
  const steps = barChart('Mean steps per run', view.stats.map((stats) => ({ label: stats.label, value: stats.meanSteps, text: fixed(stats.meanSteps) })), { color: '#8a5cb8' });
  return `<div class="charts">${resolved}${cost}${steps}</div>`;
}

function configTable(view: EvalView): string {
  const header = ['configuration', 'resolved', 'mean cost', 'mean steps', 'prompt tokens', 'completion tokens', 'cached tokens', 'stall firings', 'gate refusals', 'elisions', 'summaries', 'end statuses'];
  const rows = view.stats.map((stats) => [
    stats.label, `${stats.resolvedTasks}/${stats.tasks} (${percent(stats.resolvedTasks, stats.tasks)})`, usd(stats.meanCostUsd), fixed(stats.meanSteps),
    whole(stats.meanPromptTokens), whole(stats.meanCompletionTokens), whole(stats.meanCachedTokens), String(stats.stallFirings), String(stats.gateRefusals),
    String(stats.contextElisions), String(stats.contextSummaries), Object.entries(stats.statuses).map(([status, count]) => `${status} ${count}`).join(', '),
  ]);
  return table(header, rows);
}

function comparisonTable(comparisons: readonly Comparison[]): string {
  const header = ['configuration', 'paired tasks', 'resolved (base → this)', 'only base', 'only this', 'p', 'Δ mean cost', 'Δ mean steps', 'Δ mean tokens', 'flipped tasks'];
  const rows = comparisons.map((comparison) => [
    comparison.b, String(comparison.tasks.length), `${comparison.resolvedA} → ${comparison.resolvedB}`, String(comparison.onlyA.length), String(comparison.onlyB.length),
    pText(comparison.pValue), signedUsd(comparison.cost.delta), signed(comparison.steps.delta), signedWhole(comparison.tokens.delta),
    [...comparison.onlyA.map((task) => `▼ ${task}`), ...comparison.onlyB.map((task) => `▲ ${task}`)].join(', ') || '–',
  ]);
  return table(header, rows);
}

function legend(view: EvalView): string {
  return `<p class="legend"><span style="background:#dff3e4">pass</span><span style="background:#f9dede">fail</span><span style="outline:3px solid #e07b00">flip against ${esc(view.configs[0] ?? '')}</span> ▼ lost, ▲ gained. Hover a cell for its end status; click it for the trace.</p>`;
}

function grid(view: EvalView): string {
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
      const runs = view.records.filter((record) => record.task === task && record.config === config);
      const title = runs.map((run) => `#${run.repeat}: ${run.status}, ${run.steps} steps, ${usd(run.costUsd)}${run.reason ? ` (${run.reason})` : ''}`).join('\n');
      const label = `${outcome.resolved ? 'pass' : 'fail'}${outcome.runs > 1 ? ` ${outcome.resolvedRuns}/${outcome.runs}` : ''}${flipped ? (outcome.resolved ? ' ▲' : ' ▼') : ''}`;
      const link = runs[0]?.tracePath ? `<a href="${esc(runs[0].tracePath)}">${label}</a>` : label;
      return `<td class="${outcome.resolved ? 'pass' : 'fail'}${flipped ? ' flip' : ''}" title="${esc(title)}">${link}</td>`;
    });
    return `<tr><td><code>${esc(task)}</code>${note}</td>${cells.join('')}</tr>`;
  });
  return `<table>${head}${rows.join('')}</table>`;
}

function brokenRuns(runs: readonly RunRecord[]): string {
  return `<ul>${runs.map((run) => `<li><code>${esc(run.task)}</code> × <code>${esc(run.config)}</code> #${run.repeat}: <b>${esc(run.status)}</b>: ${esc(run.reason)}</li>`).join('')}</ul>`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return `<table><tr>${header.map((cell) => `<th>${esc(cell)}</th>`).join('')}</tr>${rows.map((row) => `<tr>${row.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`).join('')}</table>`;
}
