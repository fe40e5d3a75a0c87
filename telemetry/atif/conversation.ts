import type { TraceRecord } from 'rein/formats';
import { z } from 'zod';

const toolCallSchema = z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) });
const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(toolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
export type Message = z.infer<typeof messageSchema>;
/** A trace `model` line, its fields unchecked (traces come from other versions too). */
export type ModelLine = TraceRecord & { step: number; content?: unknown; tool_calls?: unknown; usage?: unknown; ms?: unknown; finishReason?: unknown };

/** The record's lines that are chat messages; the rest are counted in `notes`. */
export function checkedMessages(record: readonly unknown[], notes: string[]): Message[] {
  const out: Message[] = [];
  let bad = 0;
  for (const value of record) {
    const parsed = messageSchema.safeParse(value);
    if (parsed.success) out.push(parsed.data);
    else bad++;
  }
  if (bad > 0) notes.push(`${bad} line(s) of the record were not chat messages and were left out.`);
  return out;
}

/** Without a record, the conversation is rebuilt from the trace: the task, each reply and its results as the trace cut them. */
export function fromTrace(start: TraceRecord | undefined, models: ModelLine[], lines: readonly TraceRecord[], notes: string[]): Message[] {
  notes.push('The run has no record.jsonl: steps are rebuilt from the trace; the system prompt is missing and tool results are cut to 2,000 characters.');
  const out: Message[] = [];
  if (typeof start?.task === 'string') out.push({ role: 'user', content: start.task });
  for (const line of models) {
    const calls = z.array(toolCallSchema).safeParse(line.tool_calls);
    out.push({ role: 'assistant', content: typeof line.content === 'string' ? line.content : null, ...(calls.success ? { tool_calls: calls.data } : {}) });
    for (const tool of lines)
      if (tool.kind === 'tool' && tool.step === line.step && typeof tool.id === 'string')
        out.push({ role: 'tool', tool_call_id: tool.id, content: String(tool.result ?? '') });
  }
  return out;
}

/** The first model line from `cursor` whose reply is this message (same text, same calls); -1 if none. */
export function matchReply(models: readonly ModelLine[], cursor: number, message: Extract<Message, { role: 'assistant' }>): number {
  const key = replyKey(message.content, message.tool_calls);
  for (let index = cursor; index < models.length; index++) {
    const line = models[index]!;
    const calls = z.array(toolCallSchema).safeParse(line.tool_calls);
    if (replyKey(typeof line.content === 'string' ? line.content : null, calls.success ? calls.data : undefined) === key) return index;
  }
  return -1;
}

function replyKey(content: string | null, calls: ReadonlyArray<z.infer<typeof toolCallSchema>> | undefined): string {
  return JSON.stringify([content ?? '', (calls ?? []).map((call) => [call.id, call.function.name, call.function.arguments])]);
}
