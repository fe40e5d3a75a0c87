import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { parseBoundedJson } from '../../lib/json-depth.js';

/**
 * An append-only file of JSON lines. `write` buffers; `flush` writes the
 * buffer with one system call. Callers flush at the end of every machine
 * step, so a killed process loses at most the step it was in, which a
 * resumed run redoes anyway.
 */
export interface LineWriter {
  write(line: string): void;
  flush(): void;
  /** Forces written lines to disk. */
  sync(): void;
  close(): void;
}

export function openLineWriter(path: string): LineWriter {
  const fd = openSync(path, 'a+');
  // A process killed mid-line leaves a cut last line: end it, so the next line starts clean.
  const size = fstatSync(fd).size;
  if (size > 0) {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 0x0a) writeSync(fd, '\n');
  }
  let open = true;
  let pending: string[] = [];
  const flush = () => {
    if (!open || pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    writeSync(fd, text);
  };
  return {
    write(line) {
      if (!open) return;
      pending.push(line + '\n');
      if (pending.length >= 256) flush();
    },
    flush,
    sync() {
      flush();
      if (open) fsyncSync(fd);
    },
    close() {
      flush();
      if (open) {
        open = false;
        closeSync(fd);
      }
    },
  };
}

/** Lines of a JSONL file that parse, plus what did not: a cut last line or corrupt lines. */
interface ParsedLines<T> {
  values: T[];
  /** 1-based line numbers that did not parse. */
  bad: Array<{ line: number; text: string; error: string }>;
  /** True when the file does not end with a newline (a line was being written when the run died). */
  truncatedTail: boolean;
  /** Bytes up to and including the last newline: where a reader following the file goes on. */
  completeBytes: number;
}

/**
 * Reads a JSONL file without ever throwing on its content: a cut last line
 * (a killed run) and corrupt lines are reported, the rest is returned.
 */
export function readJsonLines<T = unknown>(path: string): ParsedLines<T> {
  if (!existsSync(path)) return { values: [], bad: [], truncatedTail: false, completeBytes: 0 };
  const bytes = readFileSync(path);
  const completeBytes = bytes.lastIndexOf(0x0a) + 1;
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  const truncatedTail = text.length > 0 && !text.endsWith('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const values: T[] = [];
  const bad: ParsedLines<T>['bad'] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      values.push(parseBoundedJson(line) as T);
    } catch (error) {
      bad.push({ line: index + 1, text: line.slice(0, 200), error: (error as Error).message });
    }
  });
  return { values, bad, truncatedTail, completeBytes };
}
