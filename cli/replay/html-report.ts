import type { ReplayResult } from 'rein/testing';
import type { RunChange } from './compare.js';
import type { SkippedInput } from './load-runs.js';
import { type ReplaySummary, share } from './summary.js';

const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d232b;line-height:1.4}
h1{font-size:1.5rem;overflow-wrap:anywhere}h2{font-size:1.15rem;margin-top:2rem}
.note{background:#fff7e0;border:1px solid #e8c96a;padding:.6rem .8rem;border-radius:4px}
.scroll{overflow-x:auto;max-width:100%;margin:.5rem 0}
table{border-collapse:collapse}th,td{border:1px solid #d4d8de;padding:.3rem .5rem;text-align:left;font-size:.9rem;vertical-align:top}
th{background:#f3f5f7}td.pass{background:#dff3e4}td.fail{background:#f9dede}td.learn{outline:3px solid #e07b00;outline-offset:-3px}
pre{font-size:.8rem;margin:.2rem 0;white-space:pre-wrap}
a{color:#1f5fa8}`;

const esc = (text: unknown) => String(text).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

interface Side {
  label: string;
  results: readonly ReplayResult[];
  summary: ReplaySummary;
}

/**
 * `report.html` of `rein replay --out`: one self-contained page (inline CSS,
 * no scripts) in the style of `rein eval`'s report: the figures of each rules
 * set side by side, the runs a rules change affects with the actions around
 * each nudge, and every run with a nudge or stop, linked to its replay page.
 */
export function renderReplayReport(view: {
  inputs: readonly string[];
  a: Side;
  b?: Side;
  changes: readonly RunChange[] | null;
  skipped: readonly SkippedInput[];
  traces: Record<string, string>;
}): string {
  const sides = view.b ? [view.a, view.b] : [view.a];
  const row = (name: string, value: (summary: ReplaySummary) => string) =>
    `<tr><th>${esc(name)}</th>${sides.map((side) => `<td>${esc(value(side.summary))}</td>`).join('')}</tr>`;
  const rules = (table: Record<string, number>) =>
    Object.entries(table)
      .map(([rule, count]) => `${rule} ${count}`)
      .join(', ') || 'none';
  const figures = `<div class="scroll"><table><tr><th></th>${sides.map((side) => `<th>${esc(side.label)}</th>`).join('')}</tr>${[
    row('runs / actions', (s) => `${s.runs} / ${s.actions}`),
    row('resolved runs nudged', (s) => share(s.resolvedNudged, s.resolved)),
    row('… while learning', (s) => share(s.resolvedNudgedLearning, s.resolved)),
    row('nudges on resolved runs', (s) => rules(s.resolvedNudgesByRule)),
    row('all nudges', (s) => rules(s.nudgesByRule)),
    row('runs stopped', (s) => String(s.stopped)),
    row('resolved runs stopped (false stops)', (s) => String(s.falseStops)),
    row('limit runs stopped / actions saved', (s) => `${s.limitRunsStopped} / ${s.savedActions}`),
    row('unmapped actions', (s) => rules(s.unmapped)),
  ].join('')}</table></div>`;
  const link = (id: string) => (view.traces[id] ? `<a href="${esc(view.traces[id])}">${esc(id)}</a>` : esc(id));
  const changes = view.changes
    ? view.changes.length === 0
      ? '<p>No run changes.</p>'
      : `<div class="scroll"><table><tr><th>run</th><th>resolved</th><th>lost (A only)</th><th>gained (B only)</th><th>stop A → B</th></tr>${view.changes
          .map(
            (change) =>
              `<tr><td>${link(change.id)}</td><td class="${change.resolved ? 'pass' : 'fail'}">${change.resolved === null ? '?' : change.resolved ? 'yes' : 'no'}</td>${[
                change.lost,
                change.gained,
              ]
                .map(
                  (nudges) =>
                    `<td>${nudges.map((nudge) => `<div class="${nudge.learning ? 'learn' : ''}">${esc(nudge.rule)} at ${nudge.index + 1}<pre>${esc(nudge.around.join('\n'))}</pre></div>`).join('')}</td>`,
                )
                .join('')}<td>${change.stopA === null ? '-' : change.stopA + 1} → ${change.stopB === null ? '-' : change.stopB + 1}</td></tr>`,
          )
          .join('')}</table></div>`
    : '';
  const last = view.b ?? view.a;
  const flagged = last.results.filter((result) => result.nudges.length > 0 || result.stop);
  const runs = `<div class="scroll"><table><tr><th>run</th><th>resolved</th><th>actions</th><th>nudges (rule at step; outlined: while learning)</th><th>stop</th></tr>${flagged
    .map(
      (result) =>
        `<tr><td>${link(result.run.id)}</td><td class="${result.run.resolved ? 'pass' : 'fail'}">${result.run.resolved === null ? '?' : result.run.resolved ? 'yes' : 'no'}</td><td>${result.run.steps.length}</td><td>${result.nudges
          .map((nudge) => `<span class="${nudge.learning ? 'learn' : ''}">${esc(nudge.rule)}@${nudge.index + 1}</span>`)
          .join(' ')}</td><td>${result.stop ? `step ${result.stop.index + 1}: ${esc(result.stop.reason)}` : '-'}</td></tr>`,
    )
    .join('')}</table></div>`;
  const body = [
    `<h1>rein replay: ${esc(view.inputs.join(', '))}</h1>`,
    '<p class="note">Open loop: each recorded action went through rein\'s statechart with its recorded result. The agent never saw a nudge, so a nudge means "rein would have interrupted here" and a stop "rein would have ended the run here". Learning: at least 6 of the last 8 observations were new to the run.</p>',
    '<h2>Figures</h2>',
    figures,
    ...(view.changes ? [`<h2>Runs a change from ${esc(view.a.label)} to ${esc(view.b!.label)} affects</h2>`, changes] : []),
    `<h2>Runs with a nudge or a stop under ${esc(last.label)} (${flagged.length})</h2>`,
    runs,
    ...(view.skipped.length > 0
      ? [`<h2>Skipped inputs (${view.skipped.length})</h2>`, `<ul>${view.skipped.map((skip) => `<li>${esc(skip.why)}</li>`).join('')}</ul>`]
      : []),
  ];
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>rein replay</title><style>${STYLE}</style></head><body>${body.join('\n')}</body></html>\n`;
}
