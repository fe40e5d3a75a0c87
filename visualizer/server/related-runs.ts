import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { forksOf, readOwnRunMeta, runFile } from 'rein/run';
import { renderReplayPage } from './replay-page.js';

/** At most this many runs are looked at when following fork links from the served run (a hostile chain stops here). */
const MOST_LINKED = 200;

/**
 * The run directories linked to `runDir` by forks: its origin, the origin's origin, their forks, and so on. Only
 * these can be opened from the served page, so a link can never make the server read a run it was not asked about.
 * A link counts only as a `run.json` rein wrote states it (`forkOf`): `forks.jsonl` and a run directory inside a
 * workspace are writable by the agent's commands, so a planted line or a changed `forkOf` links nothing.
 *
 * @example linkedRuns('/repo/.rein/runs/a') // Set { '/repo/.rein/runs/a', '/repo/.rein/runs/b' }
 */
function linkedRuns(runDir: string): Set<string> {
  const seen = new Set<string>([resolve(runDir)]);
  const queue = [resolve(runDir)];
  while (queue.length > 0 && seen.size < MOST_LINKED) {
    const dir = queue.shift()!;
    const forks = forksOf(dir)
      .map((fork) => fork.runDir)
      .filter((fork) => originOf(fork) === dir);
    const next = [originOf(dir), ...forks];
    for (const found of next) {
      if (!found || seen.has(resolve(found))) continue;
      seen.add(resolve(found));
      queue.push(resolve(found));
    }
  }
  return seen;
}

/** The origin a run's own `run.json` names (resolved), or null: none, or a `run.json` rein did not write as it is. */
function originOf(runDir: string): string | null {
  try {
    const meta = readOwnRunMeta(runDir) as { forkOf?: { runDir?: unknown } };
    return typeof meta.forkOf?.runDir === 'string' ? resolve(meta.forkOf.runDir) : null;
  } catch {
    return null;
  }
}

/**
 * Serves the page of a run linked by forks to the served run (`servedRunDir`, null until known), opened at `step`:
 * what a fork's "origin" link and an origin's list of forks open. Null for any other directory.
 *
 * @example const page = await relatedRunPage(() => runDir)(new URLSearchParams('run=/repo/.rein/runs/b&step=3'));
 */
export function relatedRunPage(servedRunDir: () => string | null): (query: URLSearchParams) => Promise<string | null> {
  return async (query) => {
    const served = servedRunDir();
    const wanted = query.get('run');
    if (!served || !wanted || !linkedRuns(served).has(resolve(wanted))) return null;
    const trace = runFile(resolve(wanted), 'trace');
    if (!existsSync(trace)) return null;
    const step = Number(query.get('step'));
    const { html } = await renderReplayPage(trace, { follow: false, ...(Number.isInteger(step) && step >= 0 ? { startStep: step } : {}) });
    return html;
  };
}
