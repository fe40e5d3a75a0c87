import { replayPathFor } from 'rein-visualizer/server/replay-files.js';
import type { Comparison } from './comparison.js';
import { COMPARISON_HEADERS, comparisonRows, configStatsRows } from './config-stats.js';
import type { EvalView } from './eval-view.js';
import { fixed, percent, usd } from './format.js';
import { reportGrid } from './report-grid.js';
import type { RunRecord } from './run-record.js';
import { barChart, escapeXml as esc } from './svg-charts.js';

// Narrow windows: wide tables scroll inside their own box (the page never scrolls sideways), charts shrink to fit.
const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d232b;line-height:1.4}
h1{font-size:1.5rem;overflow-wrap:anywhere}h2{font-size:1.15rem;margin-top:2rem}
.note{background:#fff7e0;border:1px solid #e8c96a;padding:.6rem .8rem;border-radius:4px}
.scroll{overflow-x:auto;max-width:100%;margin:.5rem 0}
table{border-collapse:collapse}th,td{border:1px solid #d4d8de;padding:.3rem .5rem;text-align:left;font-size:.9rem;vertical-align:top}
th{background:#f3f5f7}td.pass{background:#dff3e4}td.fail{background:#f9dede}td.none{color:#999}
td.flip{outline:3px solid #e07b00;outline-offset:-3px;font-weight:600}
.grid th:first-child,.grid td:first-child{position:sticky;left:0;background:#fff;z-index:1}
.grid td a.run{font-weight:600}.grid .figures{display:block;font-size:.8rem;font-weight:400;color:#4a5361;white-space:nowrap}
.grid .repeats{font-size:.8rem}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem}.charts svg{max-width:100%;height:auto}
.legend span{display:inline-block;padding:0 .4rem;margin-right:.6rem}
.footnote{font-size:.85rem;color:#4a5361}
a{color:#1f5fa8}`;

/**
 * `report.html`: one self-contained page (inline CSS and SVG, no scripts,
 * no network) with the resolve rate and cost per configuration, the paired
 * comparisons with their significance explained, and a task × configuration
 * grid of pass/fail, cost and tokens, where flips against the first
 * configuration are outlined and each cell opens that run's replay page
 * (written beside its trace by `rein eval`, see `createReplayWriter`).
 * Usable from 800 px wide: wide tables scroll within themselves.
 *
 * @example writeFileSync(join(outDir, 'report.html'), renderReport(view));
 */
export function renderReport(view: EvalView): string {
  const body = [
    `<h1>rein eval: ${esc(view.tasksDir)}</h1>`,
    `<p class="note">${esc(view.modelNote)}<br>${esc(view.priceNote)}</p>`,
    `<p>${view.records.length} runs: ${view.tasks.length} tasks × ${view.configs.length} configurations × ${view.repeat} repeat${view.repeat === 1 ? '' : 's'}.${view.repeat > 1 ? ' A task counts as resolved when a strict majority of its runs resolved it.' : ''}</p>`,
    charts(view),
    '<h2>Configurations</h2>',
    configTable(view),
    ...(view.comparisons.length > 0
      ? [`<h2>Paired against ${esc(view.configs[0]!)} (exact McNemar, two-sided)</h2>`, comparisonTable(view.comparisons), significanceNote()]
      : []),
    '<h2>Tasks × configurations</h2>',
    legend(view),
    reportGrid(view),
    ...(view.brokenRuns.length > 0 ? ['<h2>Runs that did not finish normally</h2>', brokenRuns(view.brokenRuns)] : []),
    ...(view.problems.length > 0
      ? ['<h2>Skipped tasks</h2>', `<ul>${view.problems.map((entry) => `<li><code>${esc(entry.id)}</code>: ${esc(entry.problem)}</li>`).join('')}</ul>`]
      : []),
  ];
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>rein eval: ${esc(view.tasksDir)}</title><style>${STYLE}</style></head><body>${body.join('\n')}</body></html>\n`;
}

function charts(view: EvalView): string {
  const resolved = barChart(
    'Resolve rate',
    view.stats.map((stats) => ({
      label: stats.label,
      value: stats.tasks === 0 ? 0 : stats.resolvedTasks / stats.tasks,
      text: `${stats.resolvedTasks}/${stats.tasks} (${percent(stats.resolvedTasks, stats.tasks)})`,
    })),
    { max: 1, color: '#2f7d4f' },
  );
  const cost = barChart(
    'Mean cost per run',
    view.stats.map((stats) => ({ label: stats.label, value: stats.meanCostUsd, text: usd(stats.meanCostUsd) })),
    { color: '#3d6fb6' },
  );
  const steps = barChart(
    'Mean steps per run',
    view.stats.map((stats) => ({ label: stats.label, value: stats.meanSteps, text: fixed(stats.meanSteps) })),
    { color: '#8a5cb8' },
  );
  return `<div class="charts">${resolved}${cost}${steps}</div>`;
}

function configTable(view: EvalView): string {
  const header = [
    'configuration',
    'resolved',
    'mean cost',
    'mean steps',
    'prompt tokens',
    'completion tokens',
    'cached tokens',
    'stall firings',
    'gate refusals',
    'elisions',
    'summaries',
    'end statuses',
  ];
  const rows = configStatsRows(view, { wallSeconds: false });
  return table(header, rows);
}

function comparisonTable(comparisons: readonly Comparison[]): string {
  const flipped = comparisons.map(
    (comparison) => [...comparison.onlyA.map((task) => `▼ ${task}`), ...comparison.onlyB.map((task) => `▲ ${task}`)].join(', ') || '–',
  );
  const rows = comparisonRows(comparisons).map((row, index) => [...row, flipped[index]!]);
  return table([...COMPARISON_HEADERS, 'flipped tasks'], rows);
}

function significanceNote(): string {
  return (
    '<p class="footnote"><b>*</b> p &lt; 0.05: if the two configurations were equally good, a split of flips at least this lopsided would happen less than 5% of the time. ' +
    'p is the exact McNemar test over the tasks one configuration solved and the other did not (“only base” against “only this”); tasks both solved or both failed do not count. ' +
    'Without a star the difference may be chance: run more tasks or repeats before concluding. ▼ a task the base solved and this configuration lost, ▲ one it gained.</p>'
  );
}

function legend(view: EvalView): string {
  return (
    `<p class="legend"><span style="background:#dff3e4">pass</span><span style="background:#f9dede">fail</span><span style="outline:3px solid #e07b00">flip against ${esc(view.configs[0] ?? '')}</span> ▼ lost, ▲ gained. ` +
    `Each cell gives the run's cost and tokens (the mean over its repeats); click it to open that run's replay. Hover it for its end status.</p>`
  );
}

function brokenRuns(runs: readonly RunRecord[]): string {
  return `<ul>${runs.map((run) => `<li><code>${esc(run.task)}</code> × <code>${esc(run.config)}</code> #${run.repeat}: <b>${esc(run.status)}</b>: ${esc(run.reason)}${run.tracePath ? ` (<a href="${esc(replayPathFor(run.tracePath))}">replay</a>)` : ''}</li>`).join('')}</ul>`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return `<div class="scroll"><table><tr>${header.map((cell) => `<th>${esc(cell)}</th>`).join('')}</tr>${rows.map((row) => `<tr>${row.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`).join('')}</table></div>`;
}
