import type { CallJournal } from '../../actors/tool-runner.js';
import type { ToolCallResult } from '../../machines/types.js';
import { type LineWriter, openLineWriter, readJsonLines } from './jsonl.js';

/**
 * A `CallJournal` kept in `calls.jsonl`: every executed tool call's result,
 * by `step:index`. A run resumed after a kill reuses these instead of running
 * the calls again, so no edit or command happens twice. Memory holds only
 * the step in progress: steps only move forward, so an older entry is never
 * asked for again (the file keeps them all).
 *
 * @example const journal = openCallJournal(join(runDir, 'calls.jsonl'));
 */
export function openCallJournal(path: string | null): CallJournal & { sync(): void; close(): void } {
  const entries = new Map<string, ToolCallResult>();
  const started = new Set<string>();
  if (path) {
    for (const entry of readJsonLines<{ key: string; result?: ToolCallResult; started?: boolean }>(path).values) {
      if (entry.result) entries.set(entry.key, entry.result);
      else if (entry.started) started.add(entry.key);
    }
  }
  const writer: LineWriter | null = path ? openLineWriter(path) : null;
  let step = Number.NEGATIVE_INFINITY;
  const reach = (key: string) => {
    const keyStep = Number.parseInt(key, 10);
    if (!(keyStep > step)) return;
    step = keyStep;
    for (const old of entries.keys()) if (Number.parseInt(old, 10) < step) entries.delete(old);
    for (const old of started) if (Number.parseInt(old, 10) < step) started.delete(old);
  };
  return {
    get: (key) => {
      reach(key);
      return entries.get(key);
    },
    start(key) {
      reach(key);
      started.add(key);
      writer?.write(JSON.stringify({ key, started: true }));
      writer?.flush();
    },
    wasStarted: (key) => {
      reach(key);
      return started.has(key);
    },
    put(key, result) {
      reach(key);
      entries.set(key, result);
      // Written at once: a call must be on disk before the next one runs, or a resumed run would repeat it.
      writer?.write(JSON.stringify({ key, result }));
      writer?.flush();
    },
    sync() {
      writer?.sync();
    },
    close() {
      writer?.close();
    },
  };
}
