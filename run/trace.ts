import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from '../lib/redact.js';
import { openLineWriter, readJsonLines, type LineWriter } from './jsonl.js';

/** The trace format version; readers show unknown kinds raw. */
export const TRACE_VERSION = 1;

/** One trace line: `i` orders lines, `t` is seconds since the epoch, `kind` says what happened. */
export interface TraceLine {
  i: number;
  t: number;
  kind: string;
  [field: string]: unknown;
}

export interface Tracer {
  readonly path: string;
  log(kind: string, data?: Record<string, unknown>): void;
  /** Writes buffered lines (called at the end of every machine step). */
  flush(): void;
  close(): void;
}

/**
 * An append-only JSONL trace (seed component 10): one line per event,
 * written at the end of each machine step, secrets redacted.
 *
 * @example const trace = openTracer('run/trace.jsonl', [process.env.OPENAI_API_KEY]); trace.log('start', { task });
 */
export function openTracer(path: string, secrets: (string | undefined)[] = [], options: { firstIndex?: number; now?: () => number; onLine?: (line: string) => void } = {}): Tracer {
  mkdirSync(dirname(path), { recursive: true });
  const writer: LineWriter = openLineWriter(path);
  const now = options.now ?? Date.now;
  let index = options.firstIndex ?? 0;
  return {
    path,
    log(kind, data = {}) {
      // Key order is fixed by construction (i, t, kind, then the event's fields), so plain JSON is deterministic.
      const line = redactTraceLine(JSON.stringify({ i: index++, t: Math.round(now()) / 1000, kind, ...data }), secrets);
      writer.write(line);
      // Listeners of the written line (the OpenTelemetry export) see exactly what the file holds.
      options.onLine?.(line);
    },
    flush() { writer.flush(); },
    close() { writer.close(); },
  };
}

/**
 * The trace's secret redaction, one path for every reader of trace text: the
 * trace writer and the OpenTelemetry exporters (live and `rein trace export`).
 *
 * @example redactTraceLine('{"kind":"model","content":"key sk-abc123"}', ['sk-abc123']) // '{"kind":"model","content":"key [redacted]"}'
 */
export function redactTraceLine(text: string, secrets: readonly (string | undefined)[]): string {
  const active = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 6);
  return active.length > 0 ? redact(text, active) : text;
}

/** The index after the last complete line of an existing trace (0 for a new one): a resumed run numbers on from there. */
export function nextTraceIndex(path: string): number {
  const { values } = readJsonLines<{ i?: unknown }>(path);
  for (let position = values.length - 1; position >= 0; position--) {
    const index = values[position]!.i;
    if (typeof index === 'number') return index + 1;
  }
  return values.length;
}
