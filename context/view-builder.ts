import type { ContextState } from './context-state.js';
import { SUMMARY_HEADER } from './context-state.js';
import { capAt, elideContent, NO_CAPS } from './elision.js';
import type { ChatMessage, MessageRecord } from './messages.js';
import { messageChars } from './messages.js';

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
 * record messages (O(new) per step). A state change rebuilds it once, reusing
 * every message whose form did not change, so only results whose cap changed
 * are read back from the record: the record may live on disk.
 *
 * @example const builder = new ViewBuilder(); const view = builder.viewFor(record, state);
 */
export class ViewBuilder {
  private view: View = emptyView();
  private caps: ContextState['caps'] | null = null;
  private summary: ContextState['summary'] | undefined = undefined;
  private consumed = 0;

  viewFor(record: MessageRecord, state: ContextState): View {
    // Keyed on the decisions themselves (caps and summary), which are new objects whenever they change.
    if (record.length < this.consumed) this.reset();
    if (state.caps !== this.caps || state.summary !== this.summary) this.rebuild(record, state);
    for (let index = this.consumed; index < record.length; index++) this.push(shown(record.at(index)!, index, state), index);
    this.consumed = record.length;
    return this.view;
  }

  private reset(): void {
    this.view = emptyView();
    this.caps = null;
    this.summary = undefined;
    this.consumed = 0;
  }

  private rebuild(record: MessageRecord, state: ContextState): void {
    const oldCaps = this.caps;
    // Every message the old view showed, by record index: reused below unless its form changed.
    const shownBefore = new Map(this.view.sources.map((source, position) => [source, this.view.messages[position]!]));
    this.view = emptyView();
    this.caps = state.caps;
    this.summary = state.summary;
    const head = Math.min(HEAD_LENGTH, record.length);
    for (let index = 0; index < head; index++) this.push(shownBefore.get(index) ?? record.at(index)!, index);
    let start = head;
    if (state.summary && state.summary.through >= head) {
      this.push({ role: 'user', content: `${SUMMARY_HEADER}\n${state.summary.text}` }, -1);
      start = Math.min(state.summary.through + 1, record.length);
    }
    const end = Math.max(this.consumed, start);
    let originals: { from: number; messages: ChatMessage[] } | null = null;
    for (let index = start; index < end; index++) {
      const reused = shownBefore.get(index);
      if (reused && (reused.role !== 'tool' || capAt(oldCaps ?? NO_CAPS, index) === capAt(state.caps, index))) {
        this.push(reused, index);
        continue;
      }
      // One sequential read from the first changed message on: they are the newest block.
      originals ??= { from: index, messages: record.slice(index, end) };
      this.push(shown(originals.messages[index - originals.from]!, index, state), index);
    }
    this.consumed = end;
  }

  private push(message: ChatMessage, source: number): void {
    this.view.messages.push(message);
    this.view.sources.push(source);
    this.view.chars += messageChars(message);
  }
}

function emptyView(): View {
  return { messages: [], sources: [], chars: 0 };
}

function shown(message: ChatMessage, index: number, state: ContextState): ChatMessage {
  if (message.role !== 'tool') return message;
  const cap = capAt(state.caps, index);
  return cap === null ? message : { ...message, content: elideContent(message.content, cap) };
}
