import { CAPTURE_CONTENT_ENV } from './conventions.js';
import { str } from './line-fields.js';

/**
 * Message contents in the shapes of the conventions' JSON schemas
 * (gen-ai-input-messages.json, gen-ai-output-messages.json,
 * gen-ai-system-instructions.json), serialized as JSON strings because span
 * attributes hold no nested objects. Only built when the user opted in.
 */

type Part = { type: 'text'; content: string } | { type: 'tool_call'; id?: string; name: string; arguments: unknown };

/** The provider's finish reason when the trace kept it (`length`: max_tokens cut the answer), else the one the reply implies. */
export function finishReasonOf(toolCalls: unknown[], reported?: unknown): string {
  if (typeof reported === 'string' && reported) return reported;
  return toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/** `gen_ai.output.messages` for one reply: its text and its tool calls. */
export function outputMessages(content: unknown, toolCalls: unknown[], reported?: unknown): string {
  const parts: Part[] = [];
  const text = str(content);
  if (text) parts.push({ type: 'text', content: text });
  for (const call of toolCalls) {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } }).function ?? {};
    const id = str((call as { id?: unknown }).id);
    parts.push({ type: 'tool_call', ...(id ? { id } : {}), name: str(fn.name) ?? '', arguments: parseArguments(fn.arguments) });
  }
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReasonOf(toolCalls, reported) }]);
}

/** `gen_ai.output.messages` for the run's final summary. */
export function summaryMessages(summary: string): string {
  return JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: summary }], finish_reason: 'stop' }]);
}

/** `gen_ai.input.messages` for the task the run was given. */
export function taskMessages(task: string): string {
  return JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: task }] }]);
}

/** `gen_ai.system_instructions`. */
export function systemInstructions(prompt: string): string {
  return JSON.stringify([{ type: 'text', content: prompt }]);
}

/** A tool's arguments or result as an attribute value. */
export function contentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/**
 * Whether the environment opts in to contents: `true`, or the values of the
 * GenAI instrumentations' newer form that record on spans (`SPAN_ONLY`, `SPAN_AND_EVENT`).
 */
export function contentOptedIn(env: NodeJS.ProcessEnv): boolean {
  const value = env[CAPTURE_CONTENT_ENV]?.trim().toLowerCase();
  return value === 'true' || value === '1' || value === 'span_only' || value === 'span_and_event';
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
