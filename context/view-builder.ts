import type { ChatMessage } from './messages.js';
import { messageChars } from './messages.js';
import { capAt, elideContent } from './elision.js';
import type { ContextState } from './context-state.js';
import { SUMMARY_HEADER } from '../rules/texts.js';

/** The working view: what the model is sent, with where each message came from. */
export interface View {
  messages: ChatMessage[];
  /** Record index of each view message; -1 for the summary note. */
  sources: number[];
  chars: number;
}

/** Number of leading record messages never shortened or summarized: system prompt and task. */
export const HEAD_LENGTH = 2;

/**
 * Builds the view from the record and the context state. The full record is
 * never modified. While the state is unchanged the view only grows by the new
 * record messages (O(new) per step); a state change rebuilds it once.
 *
 * @example const builder = new ViewBuilder(); const view = builder.viewFor(record, state);
 */
export class ViewBuilder {
  private view: View = { messages: [], sources: [], chars: 0 };
  private caps: ContextState['caps'] | null = null;
  private summary: ContextState['summary'] | undefined = undefined;
  private consumed = 0;

  viewFor(record: readonly ChatMessage[], state: ContextState): View {
    // Keyed on the decisions themselves (caps and summary), which are new objects whenever they change.
    if (state.caps !== this.caps || state.summary !== this.summary || record.length < this.consumed) this.rebuild(record, state);
    for (let index = this.consumed; index < record.length; index++) this.push(shown(record[index]!, index, state), index);
    this.consumed = record.length;
    return this.view;
  }

  private rebuild(record: readonly ChatMessage[], state: ContextState): void {
    this.view = { messages: [], sources: [], chars: 0 };
    this.caps = state.caps;
    this.summary = state.summary;
    const head = Math.min(HEAD_LENGTH, record.length);
    for (let index = 0; index < head; index++) this.push(record[index]!, index);
    this.consumed = head;
    if (state.summary && state.summary.through >= head) {
      this.push({ role: 'user', content: `${SUMMARY_HEADER}\n${state.summary.text}` }, -1);
      this.consumed = Math.min(state.summary.through + 1, record.length);
    }
  }

  private push(message: ChatMessage, source: number): void {
    this.view.messages.push(message);
    this.view.sources.push(source);
    this.view.chars += messageChars(message);
  }
}

function shown(message: ChatMessage, index: number, state: ContextState): ChatMessage {
  if (message.role !== 'tool') return message;
  const cap = capAt(state.caps, index);
  return cap === null ? message : { ...message, content: elideContent(message.content, cap) };
}
