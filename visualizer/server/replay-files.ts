import { existsSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { renderReplayPage } from './replay-page.js';

const REPLAY_FILE = 'replay.html';

/**
 * Where a run's replay page goes: beside its trace, as `replay.html` (for a
 * trace not named `trace.jsonl`, its own name with `.replay.html`).
 *
 * @example replayPathFor('runs/add/default/r0/trace.jsonl') // 'runs/add/default/r0/replay.html'
 */
export function replayPathFor(tracePath: string): string {
  const name = basename(tracePath);
  return join(dirname(tracePath), name === 'trace.jsonl' ? REPLAY_FILE : `${name.replace(/\.jsonl$/, '')}.replay.html`);
}

interface ReplayPages {
  written: string[];
  failed: Array<{ tracePath: string; error: string }>;
}

/**
 * Writes the replay page of each trace beside it (see `replayPathFor`), so
 * a report can link every run to its replay and the pages open from disk.
 * Pages are written one after another in the background as runs finish
 * (`add`), so an eval's pages are ready soon after its last run; `finish`
 * adds any left (runs kept from an earlier eval) and resolves when all are
 * written. A page newer than its trace is kept; a trace that cannot be read is named in `failed`.
 *
 * @example const replays = createReplayWriter(); onRecord = (record) => replays.add(join(outDir, record.tracePath)); await replays.finish(all);
 */
export function createReplayWriter(): { add(tracePath: string): void; finish(tracePaths: string[]): Promise<ReplayPages> } {
  const done: ReplayPages = { written: [], failed: [] };
  const queued = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  const add = (tracePath: string) => {
    const path = resolve(tracePath);
    if (queued.has(path)) return;
    queued.add(path);
    queue = queue.then(() => writeOne(path, done));
  };
  return {
    add,
    async finish(tracePaths) {
      tracePaths.forEach(add);
      await queue;
      return done;
    },
  };
}

async function writeOne(tracePath: string, done: ReplayPages): Promise<void> {
  const page = replayPathFor(tracePath);
  if (!existsSync(tracePath) || (existsSync(page) && statSync(page).mtimeMs >= statSync(tracePath).mtimeMs)) return;
  try {
    // Rules differ per task (the test command, say) while the machine often does not: layoutMachine lays out
    // each machine shape once.
    const { html } = await renderReplayPage(tracePath);
    writeFileSync(page, html);
    done.written.push(page);
  } catch (error) {
    done.failed.push({ tracePath, error: (error as Error).message });
  }
}
