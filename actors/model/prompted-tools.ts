import type { ChatMessage } from '../../context/messages.js';
import { stableStringify } from '../../lib/stable-json.js';

/**
 * The tools described in the system prompt, in one fixed format (Hermes'
 * `<tool_call>` blocks, the one most open models were trained on). Built once
 * per run from the stable tool schemas, so every request's prefix is the same bytes.
 *
 * @example toolPrompt(toolSchemas(defaultTools)).startsWith('# Tools') // true
 */
export function toolPrompt(schemas: readonly unknown[]): string {
  const lines = schemas.map((schema) => stableStringify((schema as { function?: unknown }).function ?? schema));
  return [
    '# Tools',
    '',
    'You call tools by writing blocks in your reply, one per call, in this exact form:',
    '',
    '<tool_call>',
    '{"name": "<tool name>", "arguments": {<arguments as JSON>}}',
    '</tool_call>',
    '',
    'Several blocks run in order. Each result comes back in a <tool_response> block. Only these tools exist:',
    '',
    '<tools>',
    ...lines,
    '</tools>',
  ].join('\n');
}

/**
 * A record as a prompted-mode request: the tool prompt after the system
 * prompt, each assistant call written back as the `<tool_call>` block it
 * stands for, each result as a `<tool_response>` in a user message, and
 * consecutive user messages joined (chat templates without tools insist that
 * roles alternate). Pure and deterministic: the same record gives the same bytes.
 */
export function promptedMessages(messages: readonly ChatMessage[], prompt: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  const pushUser = (text: string) => {
    const last = out.at(-1);
    if (last?.role === 'user') out[out.length - 1] = { role: 'user', content: `${last.content}\n\n${text}` };
    else out.push({ role: 'user', content: text });
  };
  for (const [index, message] of messages.entries()) {
    if (message.role === 'system') out.push({ role: 'system', content: index === 0 ? `${message.content}\n\n${prompt}` : message.content });
    else if (message.role === 'user') pushUser(message.content);
    else if (message.role === 'tool') pushUser(`<tool_response>\n${message.content}\n</tool_response>`);
    else {
      const blocks = (message.tool_calls ?? []).map(
        (call) => `<tool_call>\n{"name": ${JSON.stringify(call.function.name)}, "arguments": ${call.function.arguments || '{}'}}\n</tool_call>`,
      );
      const content = [message.content ?? '', ...blocks].filter((part) => part !== '').join('\n');
      out.push({ role: 'assistant', content });
    }
  }
  return out;
}
