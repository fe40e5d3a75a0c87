import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ChatMessage } from '../context/messages.js';
import { openLineWriter, readJsonLines, type LineWriter } from './jsonl.js';

/**
 * The full record of a run: every message, in order, never modified. Kept
 * in memory for the view builder and appended to `record.jsonl` line by line
 * so a resumed run can reload it.
 */
export class Transcript {
  readonly messages: ChatMessage[] = [];
  private writer: LineWriter | null;

  constructor(private readonly path: string | null) {
    this.writer = path ? openLineWriter(path) : null;
  }

  append(messages: readonly ChatMessage[]): void {
    for (const message of messages) {
      this.messages.push(message);
      this.writer?.write(JSON.stringify(message));
    }
  }

  flush(): void { this.writer?.flush(); }
  sync(): void { this.writer?.sync(); }
  close(): void { this.writer?.close(); this.writer = null; }

  /**
   * Loads a record written by an earlier process, keeping only its first
   * `length` messages: anything after the last persisted state belongs to a
   * step that will be redone. The file is rewritten to match.
   */
  static resume(path: string, length: number): Transcript {
    const parsed = existsSync(path) ? readJsonLines<ChatMessage>(path).values : [];
    if (parsed.length < length) throw new Error(`record ${path} has ${parsed.length} messages, the saved state expects ${length}`);
    const kept = parsed.slice(0, length);
    writeFileSync(path, kept.map((message) => JSON.stringify(message) + '\n').join(''));
    const transcript = new Transcript(path);
    transcript.messages.push(...kept);
    return transcript;
  }
}

export function readRecord(path: string): ChatMessage[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as ChatMessage) : [];
}
