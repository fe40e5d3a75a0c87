import { redact, stableStringify } from 'rein/lib';
import type { InspectionEvent } from 'xstate';
import { createInspectionFilter } from './inspection-message.js';

/** A message ready to send: its sequence number and its JSON. */
export interface FeedMessage {
  seq: number;
  json: string;
  inspect: boolean;
}

/** What a run in this process tells the page, kept so that a page that connects late gets everything so far. */
export interface LiveFeed {
  /** The run's `onTrace` observer: the line as the trace writes it (index, time, secrets redacted). */
  onTrace(kind: string, data: Record<string, unknown>): void;
  /** The run's `inspect` observer. */
  inspect(event: InspectionEvent): void;
  /** A line read back from a trace file (already numbered and redacted by the run that wrote it); ignored unless it is a JSON object. Returns the parsed line, or null. */
  traceLine(json: string): Record<string, unknown> | null;
  /** Messages after `seq`, oldest first. */
  since(seq: number): FeedMessage[];
  subscribe(listener: (message: FeedMessage) => void): () => void;
  /** Tells connected pages that following the trace file stopped, and why. */
  followEnded(text: string): void;
  /** Tells connected pages the server is going away. */
  close(): void;
}

// Inspection messages only matter for what is happening now; trace lines are all kept.
const KEEP_INSPECT = 2000;

/**
 * A buffer and fan-out of live messages: trace lines from `onTrace` and
 * filtered XState inspection events, each numbered.
 *
 * @example const feed = createLiveFeed({ secrets: [process.env.OPENAI_API_KEY] }); startRun({ ...options, onTrace: feed.onTrace, inspect: feed.inspect });
 */
export function createLiveFeed(options: { secrets?: Array<string | undefined>; now?: () => number; firstIndex?: number } = {}): LiveFeed {
  const now = options.now ?? Date.now;
  const secrets = (options.secrets ?? []).filter((secret): secret is string => typeof secret === 'string' && secret.length >= 6);
  const toMessage = createInspectionFilter(now);
  const listeners = new Set<(message: FeedMessage) => void>();
  let messages: FeedMessage[] = [];
  let inspectCount = 0;
  let seq = 0;
  // A resumed run's trace numbers on from its earlier lines, and so does the feed.
  let index = options.firstIndex ?? 0;
  const push = (body: string, inspect: boolean) => {
    const message = { seq: ++seq, json: `{"seq":${seq},${body}}`, inspect };
    messages.push(message);
    if (inspect && ++inspectCount > KEEP_INSPECT * 2) {
      let drop = inspectCount - KEEP_INSPECT;
      messages = messages.filter((kept) => !(kept.inspect && drop-- > 0));
      inspectCount = KEEP_INSPECT;
    }
    for (const listener of listeners) listener(message);
  };
  return {
    onTrace(kind, data) {
      const line = stableStringify({ ...data, i: index++, t: Math.round(now()) / 1000, kind });
      push(`"type":"trace","line":${secrets.length > 0 ? redact(line, secrets) : line}`, false);
    },
    inspect(event) {
      const message = toMessage(event);
      if (message) push(`"type":"inspect","event":${JSON.stringify(message)}`, true);
    },
    traceLine(json) {
      let line: unknown;
      try {
        line = JSON.parse(json);
      } catch {
        return null;
      }
      if (line === null || typeof line !== 'object' || Array.isArray(line)) return null;
      push(`"type":"trace","line":${JSON.stringify(line)}`, false);
      return line as Record<string, unknown>;
    },
    since(after) {
      return messages.filter((message) => message.seq > after);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    followEnded(text) {
      push(`"type":"follow_end","text":${JSON.stringify(text)}`, false);
    },
    close() {
      push('"type":"closing"', false);
    },
  };
}
