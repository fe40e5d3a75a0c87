import { dirname } from 'node:path';
import { readFirstLine } from './first-line.js';
import type { StatechartGraph } from './graph-types.js';
import type { PageData } from './page-data.js';
import { loadPageAssets, renderPageHtml } from './page-html.js';
import { buildStatechartGraph } from './statechart-graph.js';
import { extensionsForTrace } from './trace-extensions.js';
import { gaugeLimits, type LoadedTrace, loadTrace } from './trace-file.js';
import { workspaceStepsOf } from './workspace-steps.js';

/**
 * The replay page for a trace file: one self-contained HTML document with
 * the chart built from the trace's own rules and every line inlined. With
 * `follow`, a trace whose run has not ended yet gets a page that also takes
 * new lines from the server's `/events` (see `followTraceFile`). `chart`
 * lays the chart out (a caller writing many pages shares one per machine);
 * `check` may refuse the trace (by throwing) before that work is done; `startStep` opens the page at that step.
 *
 * @example const { html, trace } = await renderReplayPage('trace.jsonl'); writeFileSync('run.html', html);
 */
export async function renderReplayPage(
  path: string,
  options: {
    follow?: boolean;
    chart?: (trace: LoadedTrace) => Promise<StatechartGraph>;
    check?: (trace: LoadedTrace) => void;
    /** Where a followed page takes its new lines (default `/events`; a delegated child's page: `/agents/<dir>/events`). */
    eventsUrl?: string;
    /** Served by a visualizer server that also serves the run's children's pages (not a `--out` file). */
    agentPages?: boolean;
    /** The step the page opens at (a fork's origin link). */
    startStep?: number;
  } = {},
): Promise<{ html: string; trace: LoadedTrace; following: boolean }> {
  const assets = loadPageAssets();
  // A run with guards or actions from its rules module is drawn with them; the start line says where the run lived.
  const { extensions, notes } = await extensionsForTrace(path, startLineOf(path));
  const loaded = loadTrace(path, extensions);
  const trace = { ...loaded, notes: [...notes, ...loaded.notes] };
  options.check?.(trace);
  const following = options.follow === true && !trace.ended;
  const workspace = workspaceStepsOf(dirname(path));
  if (workspace?.forkOf)
    trace.notes.unshift({
      level: 'info',
      text: `A fork of ${workspace.forkOf.runDir} at step ${workspace.forkOf.step}; its page: ${workspace.forkOf.command}`,
    });
  const data: PageData = {
    mode: following ? 'follow' : 'replay',
    source: path,
    graph: await (options.chart ? options.chart(trace) : buildStatechartGraph(trace.machine)),
    limits: gaugeLimits(trace.rules),
    lines: trace.lines,
    notes: trace.notes,
    eventsUrl: following ? (options.eventsUrl ?? '/events') : null,
    ...(options.agentPages ? { agentPages: true } : {}),
    ...(workspace ? { workspace } : {}),
    // A followed run keeps steps as it goes: the page fetches them again from the server that follows it.
    ...(following && !options.eventsUrl ? { workspaceUrl: '/workspace' } : {}),
    ...(options.startStep !== undefined ? { startStep: options.startStep } : {}),
  };
  return { html: renderPageHtml(data, assets), trace, following };
}

/** The trace's start line, if its first line is one. */
function startLineOf(path: string): Record<string, unknown> | undefined {
  try {
    const first = JSON.parse(readFirstLine(path)) as Record<string, unknown>;
    return first.kind === 'start' ? first : undefined;
  } catch {
    return undefined;
  }
}
