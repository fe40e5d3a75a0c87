import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followRun } from '../../visualizer/server/follow-run.js';
import { createLiveFeed } from '../../visualizer/server/live-feed.js';
import { loadTrace } from '../../visualizer/server/trace-file.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A real process standing in for a run that writes a trace: alive until killed. */
function startWriter() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    pid: child.pid!,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

const messages = (feed: ReturnType<typeof createLiveFeed>) =>
  feed.since(0).map((message) => JSON.parse(message.json) as { type: string; text?: string; line?: { kind: string } });

describe('following the trace of a run that is still going', () => {
  const writers: Array<ReturnType<typeof startWriter>> = [];
  afterEach(async () => {
    for (const writer of writers.splice(0)) await writer.kill();
  });

  it("stops, and tells the page why, when the run's process is gone without an end line", async () => {
    const writer = startWriter();
    writers.push(writer);
    const path = join(makeTempDir(), 'trace.jsonl');
    writeFileSync(path, `${JSON.stringify({ i: 0, t: 1, kind: 'start', pid: writer.pid, host: hostname() })}\n`);
    const trace = loadTrace(path);
    const feed = createLiveFeed();
    const said: string[] = [];
    const stop = followRun(path, { lines: trace.lines, from: trace.completeBytes, feed, say: (text) => said.push(text), intervalMs: 20 });
    appendFileSync(path, `${JSON.stringify({ i: 1, t: 2, kind: 'model', step: 1 })}\n`);
    await waitUntil(() => messages(feed).some((message) => message.line?.kind === 'model'), 'the new line');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(messages(feed).some((message) => message.type === 'follow_end')).toBe(false);
    await writer.kill();
    await waitUntil(() => messages(feed).some((message) => message.type === 'follow_end'), 'the follow end');
    const end = messages(feed).find((message) => message.type === 'follow_end')!;
    expect(end.text).toContain(`pid ${writer.pid}) is gone and wrote no end line`);
    expect(said.join('')).toContain('no longer following the trace');
    // Lines written after that are not followed any more.
    appendFileSync(path, `${JSON.stringify({ i: 2, t: 3, kind: 'model', step: 2 })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(messages(feed).filter((message) => message.line?.kind === 'model')).toHaveLength(1);
    stop();
  });

  it('a run that ended, or a trace that names no process, is not declared gone', async () => {
    const writer = startWriter();
    const path = join(makeTempDir(), 'trace.jsonl');
    writeFileSync(path, `${JSON.stringify({ i: 0, t: 1, kind: 'start', pid: writer.pid, host: hostname() })}\n`);
    const feed = createLiveFeed();
    const stop = followRun(path, { lines: loadTrace(path).lines, from: loadTrace(path).completeBytes, feed, say: () => undefined, intervalMs: 20 });
    appendFileSync(path, `${JSON.stringify({ i: 1, t: 2, kind: 'end', status: 'done' })}\n`);
    await waitUntil(() => messages(feed).some((message) => message.line?.kind === 'end'), 'the end line');
    await writer.kill();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(messages(feed).some((message) => message.type === 'follow_end')).toBe(false);
    stop();

    const older = join(makeTempDir(), 'trace.jsonl');
    writeFileSync(older, `${JSON.stringify({ i: 0, t: 1, kind: 'start' })}\n`);
    const olderFeed = createLiveFeed();
    const stopOlder = followRun(older, {
      lines: loadTrace(older).lines,
      from: loadTrace(older).completeBytes,
      feed: olderFeed,
      say: () => undefined,
      intervalMs: 20,
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(messages(olderFeed).some((message) => message.type === 'follow_end')).toBe(false);
    stopOlder();
  });
});
