/** The chat messages rein records and sends, in OpenAI chat-completions shape. */

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface SystemMessage {
  role: 'system';
  content: string;
}
interface UserMessage {
  role: 'user';
  content: string;
}
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
}
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * The full record as the context layer reads it: a plain array, or the run's
 * record on disk, which keeps only recent messages in memory.
 */
export interface MessageRecord {
  readonly length: number;
  at(index: number): ChatMessage | undefined;
  /** Messages `start` to `end` (exclusive), in order. */
  slice(start: number, end: number): ChatMessage[];
}

/**
 * Characters a message adds to a request: content plus serialized tool calls.
 * The same measure the seed's context manager uses, so its numbers reproduce.
 */
export function messageChars(message: ChatMessage): number {
  let size = message.content?.length ?? 0;
  // Stryker disable next-line ConditionalExpression: only assistant messages carry tool_calls; the role test narrows the type
  if (message.role === 'assistant' && message.tool_calls) {
    for (const call of message.tool_calls) size += call.id.length + call.function.name.length + call.function.arguments.length + 40;
  }
  return size;
}

/** Sum of `messageChars` over a list. */
export function totalChars(messages: readonly ChatMessage[]): number {
  let size = 0;
  for (const message of messages) size += messageChars(message);
  return size;
}
