import { writerGone } from 'rein/lib';
import type { LiveFeed } from './live-feed.js';
import { followTraceFile } from './trace-follow.js';

interface FollowRunOptions {
  /** Lines already shown (the page has them): the last start or resume names the process writing the trace. */
  lines: unknown[];
  /** Where the load stopped: following reads on from there. */
  from: number;
  feed: LiveFeed;
  /** One line for the terminal (rein viz's stderr). */
  say: (text: string) => void;
  intervalMs?: number;
}

/**
 * Follows the trace of a run that has not ended: each new line goes to the
 * page; an end line is said on the terminal; and when the run's process is
 * gone with no end line (killed), following stops and the page is told why,
 * instead of showing "following" forever. Returns a function that stops it.
 *
 * @example const stop = followRun(path, { lines: trace.lines, from: trace.completeBytes, feed, say: (text) => io.stderr.write(text) });
 */
export function followRun(path: string, options: FollowRunOptions): () => void {
  let writer = lastWriterLine(options.lines);
  let ended = false;
  const stopWith = (text: string) => {
    options.say(`rein viz: ${text}\n`);
    options.feed.followEnded(text);
  };
  return followTraceFile(
    path,
    options.from,
    (json) => {
      const line = options.feed.traceLine(json);
      if (line?.kind === 'start' || line?.kind === 'resume') {
        writer = line;
        ended = false;
      }
      if (line?.kind === 'end' || line?.kind === 'interrupted' || line?.kind === 'crash') {
        ended = true;
        if (line.kind === 'end') options.say(`rein viz: the run ended (${String(line.status)})\n`);
      }
    },
    {
      ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
      onReset: () => stopWith('the trace file got shorter (replaced?); no longer following it'),
      writerGone: () => !ended && writerGone(writer) === true,
      onWriterGone: () =>
        stopWith(
          `the run's process (pid ${String(writer?.pid)}) is gone and wrote no end line: it was killed; no longer following the trace (rein resume continues the run)`,
        ),
    },
  );
}

function lastWriterLine(lines: unknown[]): Record<string, unknown> | undefined {
  for (let at = lines.length - 1; at >= 0; at--) {
    const line = lines[at] as Record<string, unknown> | null;
    if (line && (line.kind === 'start' || line.kind === 'resume')) return line;
  }
  return undefined;
}
