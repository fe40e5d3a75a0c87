import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLiveFeed } from '../../visualizer/server/live-feed.js';
import { loadTrace } from '../../visualizer/server/trace-file.js';
import { followTraceFile } from '../../visualizer/server/trace-follow.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

describe('following a trace file as it is written', () => {
  it('hands over each whole line once, after where the load stopped; a half-written line waits for its newline', async () => {
    const path = join(makeTempDir(), 'trace.jsonl');
    writeFileSync(path, '{"i":0,"kind":"start"}\n{"i":1,"kind":"mod');
    const loaded = loadTrace(path);
    expect(loaded.lines).toHaveLength(1);
    expect(loaded.ended).toBe(false);
    expect(loaded.notes[0]!.text).toContain('or is still writing it');
    const seen: string[] = [];
    const stop = followTraceFile(path, loaded.completeBytes, (line) => seen.push(line), { intervalMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([]);
    appendFileSync(path, 'el","note":"é"}\n{"i":2,');
    await waitUntil(() => seen.length === 1, 'the first whole line');
    appendFileSync(path, '"kind":"end","status":"done"}\n');
    await waitUntil(() => seen.length === 2, 'the second whole line');
    stop();
    expect(seen.map((line) => JSON.parse(line) as { i: number })).toEqual([
      { i: 1, kind: 'model', note: 'é' },
      { i: 2, kind: 'end', status: 'done' },
    ]);
    expect(loadTrace(path).ended).toBe(true);
  });

  it('stops, and says so, when the file gets shorter (replaced by another run)', async () => {
    const path = join(makeTempDir(), 'trace.jsonl');
    writeFileSync(path, '{"i":0,"kind":"start"}\n{"i":1,"kind":"model"}\n');
    let resets = 0;
    const seen: string[] = [];
    followTraceFile(path, loadTrace(path).completeBytes, (line) => seen.push(line), {
      intervalMs: 10,
      onReset: () => {
        resets += 1;
      },
    });
    writeFileSync(path, '{"i":0,"kind":"start"}\n');
    await waitUntil(() => resets === 1, 'the reset');
    appendFileSync(path, '{"i":1,"kind":"model"}\n{"i":2,"kind":"model"}\n');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(seen).toEqual([]);
    expect(resets).toBe(1);
  });

  it('a resumed run that writes on after an earlier end line has not ended; a Ctrl+C or a crash ends what is written', () => {
    const path = join(makeTempDir(), 'trace.jsonl');
    const write = (kinds: string[]) => writeFileSync(path, kinds.map((kind, i) => JSON.stringify({ i, kind })).join('\n') + '\n');
    write(['start', 'end', 'resume', 'model']);
    expect(loadTrace(path).ended).toBe(false);
    write(['start', 'model', 'interrupted']);
    expect(loadTrace(path).ended).toBe(true);
    expect(
      loadTrace(path)
        .notes.map((note) => note.text)
        .join(' '),
    ).not.toContain('interrupted');
    write(['start', 'model', 'crash']);
    expect(loadTrace(path).ended).toBe(true);
  });

  it('the feed passes read-back trace lines on as they are, and drops what is not a JSON object', () => {
    const feed = createLiveFeed();
    feed.traceLine('{"i":7,"kind":"tool","t":1.5}');
    feed.traceLine('not json');
    feed.traceLine('[1,2]');
    expect(feed.since(0).map((message) => JSON.parse(message.json) as unknown)).toEqual([{ seq: 1, type: 'trace', line: { i: 7, kind: 'tool', t: 1.5 } }]);
  });
});
