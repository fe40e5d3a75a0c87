import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from '../../lib/secrets/redact.js';
import { maskUrlSecrets } from '../../lib/secrets/url-secrets.js';
import { TRACE_VERSION, type TraceData, type TraceKind, type TraceLine, type TraceRecord } from '../../lib/trace/trace-events.js';
import { type LineWriter, openLineWriter, readJsonLines } from './jsonl.js';

export { TRACE_VERSION };

export interface Tracer {
  readonly path: string;
  /** Writes one event; `data` is the event's fields without its kind. */
  log<K extends TraceKind>(kind: K, data: TraceData<K>): void;
  /** Writes buffered lines (called at the end of every machine step). */
  flush(): void;
  close(): void;
}

interface TracerOptions {
  firstIndex?: number;
  now?: () => number;
  /** Every line as the file gets it (index, time, secrets redacted), parsed and as its JSON text: the status line, the live page, telemetry. */
  onLine?: (line: TraceLine, text: string) => void;
}

/**
 * An append-only JSONL trace (seed component 10): one line per event,
 * written at the end of each machine step, secrets redacted. What listeners
 * get is what the file gets.
 *
 * @example const trace = openTracer('run/trace.jsonl', [process.env.OPENAI_API_KEY]); trace.log('retry', { error, attempt: 1, delayMs: 500 });
 */
export function openTracer(path: string, secrets: (string | undefined)[] = [], options: TracerOptions = {}): Tracer {
  mkdirSync(dirname(path), { recursive: true });
  const writer: LineWriter = openLineWriter(path);
  const now = options.now ?? Date.now;
  let index = options.firstIndex ?? 0;
  return {
    path,
    log(kind, data) {
      // Key order is fixed by construction (i, t, kind, then the event's fields), so plain JSON is deterministic.
      // `log`'s signature ties the kind to its fields; TypeScript cannot follow a generic kind into the union, hence the cast.
      const line = { i: index++, t: Math.round(now()) / 1000, kind, ...data } as unknown as TraceLine;
      const text = JSON.stringify(line);
      const written = redactTraceLine(text, secrets);
      writer.write(written);
      options.onLine?.(written === text ? line : (JSON.parse(written) as TraceLine), written);
    },
    flush() {
      writer.flush();
    },
    close() {
      writer.close();
    },
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
  // Known secrets, and whatever any URL in the line carries as a credential (a --base-url with a key in its query).
  return maskUrlSecrets(active.length > 0 ? redact(text, active) : text);
}

/** The state the last transition of an existing trace entered (where a stopped process had got to), or null. */
export function lastTraceState(path: string): string | null {
  const { values } = readJsonLines<Partial<TraceRecord> & { to?: unknown }>(path);
  for (let position = values.length - 1; position >= 0; position--) {
    const line = values[position]!;
    if (line.kind === 'transition' && typeof line.to === 'string') return line.to;
  }
  return null;
}

/** The index after the last complete line of an existing trace (0 for a new one): a resumed run numbers on from there. */
export function nextTraceIndex(path: string): number {
  const { values } = readJsonLines<Partial<TraceRecord>>(path);
  for (let position = values.length - 1; position >= 0; position--) {
    const index = values[position]!.i;
    if (typeof index === 'number') return index + 1;
  }
  return values.length;
}
