import type { ChatMessage } from './messages.js';

/**
 * The messages the model is sent this turn, held in the machine context
 * behind a private field: XState's snapshot persistence walks every
 * enumerable property of the context, and the view (up to a whole context
 * window of messages) is rebuilt from the record anyway, so it must cost
 * nothing to persist. It serializes to null.
 *
 * @example const view = new WorkingView(messages); view.messages.length
 */
export class WorkingView {
  readonly #messages: readonly ChatMessage[];

  constructor(messages: readonly ChatMessage[]) {
    this.#messages = messages;
  }

  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }

  toJSON(): null {
    return null;
  }
}
