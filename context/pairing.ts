import type { ChatMessage } from './messages.js';

/**
 * Problems with tool-call pairing in a message list: providers reject a
 * request in which an assistant tool call is not followed by exactly one
 * result for it before any other message, or a result has no call.
 * Returns an empty list when the messages are well-formed.
 *
 * @example checkPairing(view.messages) // []
 */
export function checkPairing(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  let pending: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      const position = pending.indexOf(message.tool_call_id);
      if (position === -1) problems.push(`message ${index}: result for ${message.tool_call_id} has no open call`);
      else pending.splice(position, 1);
      return;
    }
    if (pending.length > 0) problems.push(`message ${index}: calls ${pending.join(', ')} not answered before a ${message.role} message`);
    // Stryker disable next-line ConditionalExpression: only assistant messages carry tool_calls, so any other message gives no calls either way
    pending = message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [];
  });
  if (pending.length > 0) problems.push(`end: calls ${pending.join(', ')} never answered`);
  return problems;
}
