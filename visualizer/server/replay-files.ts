import { existsSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { StatechartGraph } from './graph-types.js';
import { renderReplayPage } from './replay-page.js';
import { layoutMachine } from './graph-layout.js';
import { describeMachine } from './machine-graph.js';

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

/**
 * Writes the replay page of each trace beside it (see `replayPathFor`), so
 * a report can link every run to its replay and the pages open from disk.
 * A page newer than its trace is kept. Each distinct machine is laid out
 * once. Returns the pages
 * written; a trace that cannot be read is skipped and named in `failed`.
 *
 * @example const { written } = await writeReplayPages(records.map((record) => join(outDir, record.tracePath)));
 */
export async function writeReplayPages(tracePaths: string[]): Promise<{ written: string[]; failed: Array<{ tracePath: string; error: string }> }> {
  const charts = new Map<string, Promise<StatechartGraph>>();
  const written: string[] = [];
  const failed: Array<{ tracePath: string; error: string }> = [];
  for (const tracePath of tracePaths.map((path) => resolve(path))) {
    const page = replayPathFor(tracePath);
    if (!existsSync(tracePath) || (existsSync(page) && statSync(page).mtimeMs >= statSync(tracePath).mtimeMs)) continue;
    try {
      const { html } = await renderReplayPage(tracePath, {
        chart: (trace) => {
          // Rules differ per task (the test command, say) while the machine often does not: one layout per machine shape.
          const shape = describeMachine(trace.machine);
          const key = JSON.stringify(shape);
          if (!charts.has(key)) charts.set(key, layoutMachine(shape));
          return charts.get(key)!;
        },
      });
      writeFileSync(page, html);
      written.push(page);
    } catch (error) {
      failed.push({ tracePath, error: (error as Error).message });
    }
  }
  return { written, failed };
}
