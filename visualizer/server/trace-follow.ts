import { closeSync, openSync, readSync, statSync } from 'node:fs';

interface TraceFollowOptions {
  /** How often the file is looked at; a run flushes its trace once a step. */
  intervalMs?: number;
  /** The file got shorter (replaced or truncated): following stops, since its lines no longer continue what was shown. */
  onReset?: () => void;
  /** Asked when a look finds nothing new: true means no more lines will come (the writing process is gone), and following stops. */
  writerGone?: () => boolean;
  /** Following stopped because `writerGone` said so, after every line written was handed over. */
  onWriterGone?: () => void;
}

const DEFAULT_INTERVAL_MS = 250;
const READ_CHUNK = 1 << 20;

/**
 * Reads a growing JSONL file from byte `from` on: each whole line is handed
 * to `onLine` once its newline is written, so a line caught half-written
 * waits for the rest. Polling, not fs.watch: it behaves the same on every
 * file system, and a step's lines arrive together anyway. When a look finds
 * nothing new and `writerGone` says the writer is gone, following stops: a
 * killed run writes no end line.
 *
 * @example const stop = followTraceFile(path, trace.completeBytes, (line) => feed.traceLine(line));
 */
export function followTraceFile(path: string, from: number, onLine: (line: string) => void, options: TraceFollowOptions = {}): () => void {
  let offset = from;
  let partial: Buffer = Buffer.alloc(0);
  let stopped = false;
  const readNew = () => {
    if (stopped) return;
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      return; // moved away for a moment, or not there yet: look again next time
    }
    if (size < offset) {
      stop();
      options.onReset?.();
      return;
    }
    if (size === offset) {
      if (options.writerGone?.()) {
        stop();
        options.onWriterGone?.();
      }
      return;
    }
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return; // gone between the look and the open: look again next time
    }
    try {
      while (offset < size) {
        const chunk = Buffer.alloc(Math.min(READ_CHUNK, size - offset));
        const read = readSync(fd, chunk, 0, chunk.length, offset);
        if (read === 0) break;
        offset += read;
        partial = emitLines(Buffer.concat([partial, chunk.subarray(0, read)]), onLine);
      }
    } finally {
      closeSync(fd);
    }
  };
  const timer = setInterval(readNew, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}

/** Hands over every whole line in `bytes` and returns what is left after the last newline. */
function emitLines(bytes: Buffer, onLine: (line: string) => void): Buffer {
  let start = 0;
  for (let newline = bytes.indexOf(0x0a, start); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
    const line = bytes.subarray(start, newline).toString('utf8').trim();
    if (line !== '') onLine(line);
    start = newline + 1;
  }
  return Buffer.from(bytes.subarray(start));
}
