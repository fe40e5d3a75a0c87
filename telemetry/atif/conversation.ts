import type { TraceRecord } from 'rein/formats';
import { normalizeCalls } from 'rein/machines';
import { z } from 'zod';

const toolCallSchema = z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) });
const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(toolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
/** A chat message of the run; an assistant message carries the step (rein's count of model replies) it was the reply of. */
type Parsed = z.infer<typeof messageSchema>;
export type AssistantMessage = Extract<Parsed, { role: 'assistant' }> & { step: number };
/** `line`: the message's position in the record (0-based), where it came from one; a fork's first lines are its origin's. */
export type Message = (Exclude<Parsed, { role: 'assistant' }> | AssistantMessage) & { line?: number };
/** A trace `model` line, its fields unchecked (traces come from other versions too). */
export type ModelLine = TraceRecord & { step: number; content?: unknown; tool_calls?: unknown; usage?: unknown; ms?: unknown; finishReason?: unknown };

/**
 * The record's lines that are chat messages; the rest are counted in `notes`.
 * The record appends exactly one assistant message per model reply, and a
 * resumed run cuts it back to its saved state, so its n-th assistant message
 * is the reply of step n: that is how a reply finds its trace line, whatever
 * ids the provider gave its tool calls.
 */
export function checkedMessages(record: readonly unknown[], notes: string[]): Message[] {
  const out: Message[] = [];
  let bad = 0;
  let step = 0;
  for (const [line, value] of record.entries()) {
    const parsed = messageSchema.safeParse(value);
    if (!parsed.success) bad++;
    else if (parsed.data.role === 'assistant') out.push({ ...parsed.data, step: ++step, line });
    else out.push({ ...parsed.data, line });
  }
  if (bad > 0) notes.push(`${bad} line(s) of the record were not chat messages and were left out.`);
  return out;
}

/**
 * The trace line of each step's reply: the last `model` line written for it
 * (a resumed run asks again for a step whose reply a kill lost, and the record
 * keeps the later answer).
 */
export function repliesByStep(models: readonly ModelLine[]): Map<number, ModelLine> {
  const byStep = new Map<number, ModelLine>();
  for (const line of models) byStep.set(line.step, line);
  return byStep;
}

/** Without a record, the conversation is rebuilt from the trace: the task, each step's reply and its results as the trace cut them. */
export function fromTrace(start: TraceRecord | undefined, replies: ReadonlyMap<number, ModelLine>, lines: readonly TraceRecord[], notes: string[]): Message[] {
  notes.push('The run has no record.jsonl: steps are rebuilt from the trace; the system prompt is missing and tool results are cut to 2,000 characters.');
  const out: Message[] = [];
  if (typeof start?.task === 'string') out.push({ role: 'user', content: start.task });
  const used: string[] = [];
  for (const [step, line] of [...replies].sort(([a], [b]) => a - b)) {
    // The trace keeps the provider's ids; the record (and the tool lines) have the ones rein gave the calls of this step.
    const calls = Array.isArray(line.tool_calls)
      ? normalizeCalls({ role: 'assistant', content: null, tool_calls: line.tool_calls as never }, step, { used }).calls
      : [];
    // Where rein made an id (none came, or the endpoint would refuse it back), the trace's call_ids line says which.
    for (const made of lines)
      if (made.kind === 'call_ids' && made.step === step && Array.isArray(made.calls))
        for (const change of made.calls as Array<{ index?: unknown; id?: unknown }>)
          if (typeof change.index === 'number' && typeof change.id === 'string' && calls[change.index])
            calls[change.index] = { ...calls[change.index]!, id: change.id };
    used.push(...calls.map((call) => call.id));
    out.push({ role: 'assistant', step, content: typeof line.content === 'string' ? line.content : null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    for (const tool of lines)
      if (tool.kind === 'tool' && tool.step === step && typeof tool.id === 'string')
        out.push({ role: 'tool', tool_call_id: tool.id, content: String(tool.result ?? '') });
  }
  return out;
}
