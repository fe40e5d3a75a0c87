import { type ChatMessage, initialContextState, manageContext, totalChars, ViewBuilder } from 'rein/context';
import { defaultRules } from 'rein/rules';
import { sessionRecord } from './prefix-cache.js';

/** Microseconds per step spent building the working view, incrementally (rein) and from scratch (the seed). */
interface ViewFigures {
  steps: number;
  reinMicros: number;
  seedMicros: number;
}

/**
 * Builds the view for every step of an `steps`-step session twice: with
 * rein's incremental builder, and the seed's way (copy every message and
 * re-measure the whole record on every call, O(n) a step). A window large
 * enough that no elision happens isolates construction itself.
 */
export function measureViewConstruction(steps: number): ViewFigures {
  const record = sessionRecord({ steps, resultChars: 200, windowTokens: 10_000_000, charsPerToken: 4 });
  const rules = { ...defaultRules().context, windowTokens: 10_000_000 };
  const builder = new ViewBuilder();
  let state = initialContextState(4);
  let started = process.hrtime.bigint();
  for (let length = 4; length <= record.length; length += 2)
    state = manageContext(record.slice(0, length), state, rules, builder, { force: false, overheadTokens: 0 }).state;
  const rein = Number(process.hrtime.bigint() - started) / 1e3;
  started = process.hrtime.bigint();
  let sink = 0;
  for (let length = 4; length <= record.length; length += 2) sink += seedView(record.slice(0, length)).length;
  const seed = Number(process.hrtime.bigint() - started) / 1e3;
  if (sink < 0) throw new Error('unreachable');
  return { steps, reinMicros: rein / steps, seedMicros: seed / steps };
}

/** The seed's `ContextManager.view` below the soft limit: a copy of every message, and the size of all of them. */
function seedView(record: readonly ChatMessage[]): ChatMessage[] {
  const messages = record.map((message) => ({ ...message }));
  if (totalChars(messages) < 0) return [];
  return messages;
}
