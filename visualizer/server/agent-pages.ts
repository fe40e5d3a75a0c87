import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runFile } from 'rein/run';
import { followRun } from './follow-run.js';
import { createLiveFeed, type LiveFeed } from './live-feed.js';
import { renderReplayPage } from './replay-page.js';

/** A delegated child's run, found from a page address: its directory, its trace, and the address its page lives at. */
interface AgentRun {
  runDir: string;
  tracePath: string;
  /** `/agents/<dir>/` (a child's child: `/agents/<dir>/agents/<dir>/`). */
  base: string;
}

/** What a request under `/agents/` asks for: the child's loader (`…/`), its page (`…/page`) or its live lines (`…/events`). */
interface AgentRequest {
  run: AgentRun;
  what: 'loader' | 'page' | 'events';
}

// A child's directory name as the delegate tool makes it (`<step>-<call>-<task>-<agent>`): no dots, no slashes.
const DIR_NAME = /^[\w-]{1,200}$/;

/**
 * Maps a page address to a delegated child's run inside `rootRunDir` (the run the server shows): `/agents/<a>/page`
 * is `<rootRunDir>/agents/<a>`, `/agents/<a>/agents/<b>/events` its child's. Only directory names the delegate tool
 * could have made, that exist under `agents/` and hold a trace, are found: an address never reaches another file.
 *
 * @example agentRequest('/run', '/agents/2-1-0-explorer/page') // { run: { runDir: '/run/agents/2-1-0-explorer', … }, what: 'page' }
 */
export function agentRequest(rootRunDir: string, path: string): AgentRequest | null {
  const parts = path.split('/').slice(1);
  const last = parts.pop();
  const what = last === '' ? 'loader' : last === 'page' ? 'page' : last === 'events' ? 'events' : null;
  if (what === null || parts.length === 0 || parts.length % 2 !== 0) return null;
  let runDir = rootRunDir;
  for (let at = 0; at < parts.length; at += 2) {
    const [folder, name] = [parts[at], parts[at + 1]!];
    if (folder !== 'agents' || !DIR_NAME.test(name)) return null;
    const agents = join(runDir, 'agents');
    if (!existsSync(agents) || !readdirSync(agents).includes(name)) return null;
    runDir = join(agents, name);
  }
  const tracePath = runFile(runDir, 'trace');
  if (!existsSync(tracePath) || !statSync(tracePath).isFile()) return null;
  return { run: { runDir, tracePath, base: `/${parts.join('/')}/` }, what };
}

/**
 * The pages of a run's delegated children, served by the visualizer beside the run's own: each is the child's trace
 * replayed (its chart, its gauges against its own caps), followed live while the child has no end line (its new
 * lines on `…/events`), with a link back to its parent. Followers start on the first request and stop on `close`.
 *
 * @example const agents = createAgentPages(runDir); startVizServer({ page, agents });
 * A live run's directory is known once it starts: `rootRunDir` may be a function that says it (null before).
 */
export function createAgentPages(rootRunDir: string | (() => string | null)) {
  const root = typeof rootRunDir === 'string' ? () => rootRunDir : rootRunDir;
  const followers = new Map<string, { feed: LiveFeed; stop: () => void }>();
  const pages = new Map<string, Promise<string>>();
  const follow = (run: AgentRun, lines: unknown[], from: number): void => {
    if (followers.has(run.runDir)) return;
    const feed = createLiveFeed();
    const stop = followRun(run.tracePath, { lines, from, feed, say: () => undefined });
    followers.set(run.runDir, { feed, stop });
  };
  return {
    find(path: string): AgentRequest | null {
      const runDir = root();
      return runDir === null ? null : agentRequest(runDir, path);
    },
    /** The child's page; one that is still going is rendered once and followed, an ended one fresh each time. */
    async page(run: AgentRun): Promise<string> {
      const kept = pages.get(run.runDir);
      if (kept) return kept;
      const rendered = renderReplayPage(run.tracePath, { follow: true, eventsUrl: `${run.base}events`, agentPages: true }).then(
        ({ html, trace, following }) => {
          if (following) follow(run, trace.lines, trace.completeBytes);
          else pages.delete(run.runDir);
          return html;
        },
      );
      pages.set(run.runDir, rendered);
      rendered.catch(() => pages.delete(run.runDir));
      return rendered;
    },
    /** The live lines of a child whose page was served while it ran; null when it is not followed. */
    feed: (run: AgentRun): LiveFeed | null => followers.get(run.runDir)?.feed ?? null,
    close(): void {
      for (const { feed, stop } of followers.values()) {
        stop();
        feed.close();
      }
      followers.clear();
    },
  };
}

export type AgentPages = ReturnType<typeof createAgentPages>;
