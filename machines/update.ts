import type { ChatMessage } from '../context/messages.js';
import type { MachineNote } from '../lib/trace/trace-events.js';
import type { HarnessContext } from './types.js';

/**
 * What an action does, computed purely: a context change, messages to append
 * to the record, and trace notes. Every action of the harness is one of
 * these functions; `harness-setup.ts` applies them.
 */
export interface Update {
  context?: Partial<HarnessContext>;
  append?: ChatMessage[];
  notes?: MachineNote[];
}

/** Fills `{name}` placeholders of a rule's text; unknown names stay as they are. */
export function fillTemplate(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
