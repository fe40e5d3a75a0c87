import { buildStatechartGraph } from './statechart-graph.js';
import { loadPageAssets, renderPageHtml } from './page-html.js';
import type { PageData } from './page-data.js';
import { gaugeLimits, loadTrace, type LoadedTrace } from './trace-file.js';

/**
 * The replay page for a trace file: one self-contained HTML document with
 * the chart built from the trace's own rules and every line inlined.
 *
 * @example const { html, trace } = await renderReplayPage('trace.jsonl'); writeFileSync('run.html', html);
 */
export async function renderReplayPage(path: string): Promise<{ html: string; trace: LoadedTrace }> {
  const assets = loadPageAssets();
  const trace = loadTrace(path);
  const data: PageData = {
    mode: 'replay', source: path, graph: await buildStatechartGraph(trace.machine), limits: gaugeLimits(trace.rules),
    lines: trace.lines, notes: trace.notes, eventsUrl: null,
  };
  return { html: renderPageHtml(data, assets), trace };
}
