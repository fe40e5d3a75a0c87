import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rules } from 'rein/rules';
import { createReplayer, type ReplayResult } from 'rein/testing';
import { createReplayWriter, replayPathFor } from 'rein-visualizer/server/replay-files.js';
import type { RunChange } from './compare.js';

/**
 * For `rein replay --out DIR`: each run with a nudge, a stop, or a change
 * between the two rules sets, replayed again with trace lines and written as
 * `runs/<n>.trace.jsonl` with its visualizer replay page beside it. Returns
 * the page of each run, by id (relative to DIR).
 */
export async function writeRunTraces(
  out: string,
  results: readonly ReplayResult[],
  rules: Rules,
  changes: readonly RunChange[] | null,
): Promise<Record<string, string>> {
  const changed = new Set((changes ?? []).map((change) => change.id));
  const chosen = results.filter((result) => result.nudges.length > 0 || result.stop || changed.has(result.run.id));
  if (chosen.length === 0) return {};
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(out, 'runs'), { recursive: true });
  const replayer = createReplayer({ rules, trace: true });
  const writer = createReplayWriter();
  const pages: Record<string, string> = {};
  const paths: string[] = [];
  chosen.forEach((result, index) => {
    const replayed = replayer.replay(result.run);
    const start = {
      kind: 'start',
      version: 1,
      task: `${result.run.id} (open-loop replay of a recorded run)`,
      testCmd: result.run.testCmd ?? '',
      model: result.run.model ?? 'recorded',
      endpoint: 'rein replay',
      workspace: '',
      runDir: '',
      sandbox: 'open-loop replay: nothing ran, each tool returned its recorded result',
      tools: ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish'],
      rules,
    };
    const end =
      replayed.status === 'running' ? [{ kind: 'end', status: 'failed', reason: 'the recording ended', steps: replayed.replayed, summary: '', usage: {} }] : [];
    const name = `runs/${String(index + 1).padStart(3, '0')}.trace.jsonl`;
    const path = join(out, name);
    writeFileSync(path, [start, ...(replayed.trace ?? []), ...end].map((line) => JSON.stringify(line)).join('\n') + '\n');
    pages[result.run.id] = replayPathFor(name);
    paths.push(path);
  });
  await writer.finish(paths);
  return pages;
}
