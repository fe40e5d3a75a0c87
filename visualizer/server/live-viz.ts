import type { AnswerSource } from 'rein/actors';
import type { TraceLine } from 'rein/formats';
import type { Rules } from 'rein/rules';
import type { RunHandle } from 'rein/run';
import type { InspectionEvent } from 'xstate';
import { createAgentPages } from './agent-pages.js';
import type { StatechartGraph } from './graph-types.js';
import { createLiveFeed } from './live-feed.js';
import { createPageApprovals } from './page-approvals.js';
import type { PageNote } from './page-data.js';
import { loadPageAssets, renderPageHtml } from './page-html.js';
import { relatedRunPage } from './related-runs.js';
import { buildStatechartGraph } from './statechart-graph.js';
import { gaugeLimits } from './trace-file.js';
import { startVizServer } from './viz-server.js';
import { workspaceStepsOf } from './workspace-steps.js';

interface LiveVizOptions {
  port: number;
  rules: Rules;
  /** Where the URL and the "still serving" note go (the CLI's stderr). */
  log: (text: string) => void;
  /** Values never sent to the page (API keys). */
  secrets?: Array<string | undefined>;
  /** Serve on after the run until SIGINT/SIGTERM, so the person can look. */
  keepServing: boolean;
  /** A resumed run's trace so far: the page starts with it, and live lines number on from it. */
  history?: { lines: unknown[]; notes: PageNote[]; nextIndex: number };
}

/** The observers a run gets so the page can follow it. */
export interface RunObservers {
  onTrace?: (line: TraceLine) => void;
  inspect?: (event: InspectionEvent) => void;
  onStart?: (handle: RunHandle) => void;
  /** The page's Approve / Deny buttons, as an answer source for the run's approvals. */
  answerSources?: AnswerSource[];
}

/**
 * Runs `execute` with the live visualizer attached: the server starts first
 * (its URL is printed before the run), the chart is laid out from the
 * running machine, and trace lines and XState inspection events stream to
 * the page. Without options it just runs. Returns `execute`'s exit code,
 * after Ctrl+C when `keepServing`.
 *
 * @example return withLiveViz({ port: 0, rules, log, keepServing: true }, (observers) => executeRun({ io, json, run: { ...run, onTrace: observers.onTrace, inspect: observers.inspect }, onStart: observers.onStart }));
 */
export async function withLiveViz(options: LiveVizOptions | null, execute: (observers: RunObservers) => Promise<number>): Promise<number> {
  if (!options) return execute({});
  const assets = loadPageAssets();
  const feed = createLiveFeed({ secrets: options.secrets ?? [], firstIndex: options.history?.nextIndex ?? 0 });
  const approvals = createPageApprovals();
  let resolveGraph: (graph: Promise<StatechartGraph>) => void = () => undefined;
  const graph = new Promise<StatechartGraph>((resolve) => {
    resolveGraph = resolve;
  });
  const html = graph.then((chart) =>
    renderPageHtml(
      {
        mode: 'live',
        source: 'live run',
        graph: chart,
        limits: gaugeLimits(options.rules),
        lines: options.history?.lines ?? [],
        notes: options.history?.notes ?? [],
        eventsUrl: '/events',
        approval: { url: '/approval' },
        agentPages: true,
        workspaceUrl: '/workspace',
      },
      assets,
    ),
  );
  // A failed layout is reported to the page's request; it must not end the run as an unhandled rejection.
  html.catch(() => undefined);
  // The run's directory, once it has started: the step panel reads its snapshots, fork links open its relatives,
  // the delegated children's pages are found under it.
  let runDir: string | null = null;
  const agents = createAgentPages(() => runDir);
  const server = await startVizServer({
    port: options.port,
    page: () => html,
    feed,
    approvals,
    agents,
    workspace: () => (runDir ? workspaceStepsOf(runDir) : null),
    relatedPage: relatedRunPage(() => runDir),
  });
  options.log(`rein: visualizer: ${server.url}\n`);
  let code: number;
  try {
    code = await execute({
      onTrace: ({ i: _index, t: _time, kind, ...data }) => feed.onTrace(kind, data),
      inspect: feed.inspect,
      onStart: (handle) => {
        runDir = handle.runDir;
        resolveGraph(buildStatechartGraph(handle.machine));
      },
      answerSources: [approvals.source],
    });
  } catch (error) {
    await server.close();
    throw error;
  }
  if (options.keepServing) {
    options.log(`rein: the visualizer stays up at ${server.url} (press Ctrl+C to exit)\n`);
    await exitSignal();
  }
  await server.close();
  return code;
}

/** Resolves on the first SIGINT or SIGTERM (and stops listening for both). */
export function exitSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
