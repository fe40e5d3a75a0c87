import { type Entry, text } from './entries.js';

/** A notable event for the scrubber's marks. */
export interface Mark {
  index: number;
  tone: 'refusal' | 'accept' | 'stall' | 'warning' | 'context' | 'error' | 'blocked' | 'unknown';
}

/** The mark an entry puts on the scrubber, if it is notable. */
export function markTone(entry: Entry): Mark['tone'] | null {
  switch (entry.kind) {
    case 'finish':
      return entry.data.allowed === false ? 'refusal' : 'accept';
    case 'stall':
      return 'stall';
    case 'budget_warning':
    case 'secrets_masked':
      return 'warning';
    case 'context':
      return 'context';
    case 'crash':
    case 'retry':
      return 'error';
    case 'tool':
      return isBlocked(entry.data) ? 'blocked' : null;
    case 'end':
      return text(entry.data, 'status') === 'done' ? 'accept' : 'error';
    default:
      return entry.known ? null : 'unknown';
  }
}

/** A tool call the deny list refused (the command never ran). */
export function isBlocked(data: Record<string, unknown>): boolean {
  const effect = data.effect;
  return effect !== null && typeof effect === 'object' && (effect as { blocked?: unknown }).blocked === true;
}
