import { closeSync, existsSync, openSync, readFileSync, readSync, truncateSync } from 'node:fs';
import type { ChatMessage, MessageRecord } from '../../context/messages.js';
import { type LineWriter, openLineWriter } from './jsonl.js';

/** Newest messages kept in memory: a turn's worth and more, so the view builder never reads the file for new ones. */
const RECENT = 64;
/** Leading messages kept in memory: the system prompt and the task, in every view. */
const HEAD = 2;
/** Every this many lines the record remembers a byte offset, so reading any message back scans at most this many lines. */
const STRIDE = 64;
const CHUNK_BYTES = 256 * 1024;

/**
 * The full record of a run: every message, in order, never modified,
 * appended to `record.jsonl` line by line. Memory holds the head (system
 * prompt and task), the newest messages and a sparse index into the file, so
 * a long run costs what its window costs, not what its record costs; older
 * messages are read back from the file when the view needs them (after a
 * compaction changes how an old result is shown). Without a path everything
 * stays in memory.
 *
 * @example const transcript = new Transcript(join(runDir, 'record.jsonl')); transcript.append([message]); transcript.at(0);
 */
export class Transcript implements MessageRecord {
  private readonly head: ChatMessage[] = [];
  private recent: ChatMessage[] = [];
  private recentStart = 0;
  private count = 0;
  /** Byte offset of line `i * STRIDE`. */
  private readonly offsets: number[] = [];
  private bytes = 0;
  private writer: LineWriter | null;
  private readonly keep: number;

  constructor(
    private readonly path: string | null,
    options: { bytes?: number; recent?: number } = {},
  ) {
    this.writer = path ? openLineWriter(path) : null;
    this.bytes = options.bytes ?? 0;
    this.keep = path ? (options.recent ?? RECENT) : Number.POSITIVE_INFINITY;
  }

  get length(): number {
    return this.count;
  }

  /** Messages held in memory (the rest are read back from the file). */
  get held(): number {
    return this.head.length + this.recent.length;
  }

  append(messages: readonly ChatMessage[]): void {
    for (const message of messages) {
      const line = JSON.stringify(message);
      this.writer?.write(line);
      this.remember(message, Buffer.byteLength(line) + 1);
    }
  }

  at(index: number): ChatMessage | undefined {
    if (index < 0 || index >= this.count) return undefined;
    if (index < this.head.length) return this.head[index];
    if (index >= this.recentStart) return this.recent[index - this.recentStart];
    return this.read(index, index + 1)[0];
  }

  slice(start: number, end: number): ChatMessage[] {
    const from = Math.max(0, start);
    const to = Math.min(end, this.count);
    if (from >= to) return [];
    const inMemory = (index: number) => index < this.head.length || index >= this.recentStart;
    let onDisk = from;
    while (onDisk < to && inMemory(onDisk)) onDisk++;
    if (onDisk === to) return Array.from({ length: to - from }, (_, offset) => this.at(from + offset)!);
    const read = this.read(onDisk, Math.min(to, this.recentStart));
    return [...this.headPart(from, onDisk), ...read, ...this.recentPart(Math.max(onDisk + read.length, this.recentStart), to)];
  }

  flush(): void {
    this.writer?.flush();
  }
  sync(): void {
    this.writer?.sync();
  }
  close(): void {
    this.writer?.close();
    this.writer = null;
  }

  /**
   * Opens a record written by an earlier process, keeping only its first
   * `length` messages: anything after the last persisted state belongs to a
   * step that will be redone. The file is cut to match. The file is read
   * once, in chunks, keeping only what a live record keeps.
   */
  static resume(path: string, length: number): Transcript {
    if (!existsSync(path)) {
      if (length > 0) throw new Error(`record ${path} has 0 messages, the saved state expects ${length}`);
      return new Transcript(path);
    }
    const transcript = new Transcript(null);
    let end = 0;
    end = scanLines(path, 0, (line, offset) => {
      if (transcript.count >= length) return false;
      let message: ChatMessage;
      try {
        message = JSON.parse(line) as ChatMessage;
      } catch {
        throw new Error(`record ${path}: line ${transcript.count + 1} is not JSON; the saved state expects ${length} messages`);
      }
      transcript.remember(message, Buffer.byteLength(line) + 1, offset, RECENT);
      return true;
    });
    if (transcript.count < length) throw new Error(`record ${path} has ${transcript.count} messages, the saved state expects ${length}`);
    truncateSync(path, end);
    const resumed = new Transcript(path, { bytes: end });
    resumed.head.push(...transcript.head);
    resumed.recent = transcript.recent;
    resumed.recentStart = transcript.recentStart;
    resumed.count = transcript.count;
    resumed.offsets.push(...transcript.offsets);
    return resumed;
  }

  private remember(message: ChatMessage, lineBytes: number, offset = this.bytes, keep = this.keep): void {
    if (this.count % STRIDE === 0) this.offsets.push(offset);
    this.bytes = offset + lineBytes;
    if (this.count < HEAD) {
      this.head.push(message);
      this.recentStart = this.count + 1;
    } else {
      this.recent.push(message);
      // Dropped in batches, so appending stays O(1) amortized.
      if (this.recent.length > 2 * keep) {
        const drop = this.recent.length - keep;
        this.recent = this.recent.slice(drop);
        this.recentStart += drop;
      }
    }
    this.count++;
  }

  private headPart(from: number, to: number): ChatMessage[] {
    return this.head.slice(from, Math.min(to, this.head.length));
  }

  private recentPart(from: number, to: number): ChatMessage[] {
    return from >= to ? [] : this.recent.slice(from - this.recentStart, to - this.recentStart);
  }

  /** Messages `from` to `to` read back from the file. */
  private read(from: number, to: number): ChatMessage[] {
    if (!this.path) return [];
    this.writer?.flush();
    const messages: ChatMessage[] = [];
    let line = Math.floor(from / STRIDE) * STRIDE;
    scanLines(this.path, this.offsets[line / STRIDE]!, (text) => {
      if (line >= to) return false;
      if (line >= from) messages.push(JSON.parse(text) as ChatMessage);
      line++;
      return true;
    });
    return messages;
  }
}

/**
 * Calls `visit` with each complete line of a file from byte `start`, and its
 * offset, until it returns false; returns the offset after the last line
 * visited. Holds one chunk and one line at a time.
 */
function scanLines(path: string, start: number, visit: (line: string, offset: number) => boolean): number {
  const fd = openSync(path, 'r');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let pending: Buffer[] = [];
  let position = start;
  let lineStart = start;
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, position);
      if (read === 0) return lineStart;
      let from = 0;
      for (let at = buffer.indexOf(0x0a, 0); at !== -1 && at < read; at = buffer.indexOf(0x0a, from)) {
        const text = Buffer.concat([...pending, buffer.subarray(from, at)]).toString('utf8');
        pending = [];
        if (!visit(text, lineStart)) return lineStart;
        lineStart = position + at + 1;
        from = at + 1;
      }
      if (from < read) pending.push(Buffer.from(buffer.subarray(from, read)));
      position += read;
    }
  } finally {
    closeSync(fd);
  }
}

/** Every message of a record file (tests, `runScripted`). */
export function readRecord(path: string): ChatMessage[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ChatMessage)
    : [];
}
