import type { RecordedRun, RecordedStep } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP } from '../action-map.js';
import { FormatError, type LineSource } from './errors.js';
import { textOf } from './mini-swe-agent.js';
import { toolCallStep } from './tool-calls.js';

/**
 * OpenAI chat messages: a run is a list of `{ role, content, tool_calls }`
 * messages, tool results being `{ role: "tool", tool_call_id, content }`.
 * In a JSONL file either each line is one run (`{ "messages": [...] }`, the
 * fine-tuning shape, optionally with `id` and `resolved`) or each line is one
 * message and the file is one run.
 */

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>;
  tool_call_id?: unknown;
}

export const isChatRun = (value: unknown) =>
  typeof value === 'object' && value !== null && Array.isArray((value as { messages?: unknown }).messages) && !('info' in value);
export const isChatMessage = (value: unknown) => typeof value === 'object' && value !== null && typeof (value as { role?: unknown }).role === 'string';

export function chatRun(
  messages: readonly unknown[],
  where: LineSource,
  meta: { id?: unknown; resolved?: unknown } = {},
  map: ActionMap = DEFAULT_ACTION_MAP,
): RecordedRun {
  const list = messages as ChatMessage[];
  const results = new Map<string, string>();
  for (const message of list)
    if (message?.role === 'tool' && typeof message.tool_call_id === 'string') results.set(message.tool_call_id, textOf(message.content));
  const steps: RecordedStep[] = [];
  list.forEach((message, index) => {
    if (!isChatMessage(message)) throw new FormatError({ ...where, detail: `message ${index + 1}` }, 'a message needs a "role"');
    if (message.role !== 'assistant') return;
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      steps.push({ tool: 'none', args: {}, output: '', raw: textOf(message.content).slice(0, 120) });
      return;
    }
    for (const call of calls) {
      const name = call.function?.name;
      if (typeof name !== 'string') throw new FormatError({ ...where, detail: `message ${index + 1}` }, 'a tool call needs "function.name"');
      steps.push(
        toolCallStep(
          name,
          parseArguments(call.function?.arguments, { ...where, detail: `message ${index + 1}, ${name}` }),
          results.get(String(call.id)) ?? '',
          map,
        ),
      );
    }
  });
  return {
    id: typeof meta.id === 'string' ? meta.id : `${where.file}${where.line ? `:${where.line}` : ''}`,
    resolved: typeof meta.resolved === 'boolean' ? meta.resolved : null,
    steps,
    origin: { file: where.file, ...(where.line ? { line: where.line } : {}) },
  };
}

function parseArguments(raw: unknown, where: LineSource): Record<string, unknown> {
  if (typeof raw === 'object' && raw !== null) return raw as Record<string, unknown>;
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    throw new FormatError(where, 'tool call arguments are not JSON');
  }
}
