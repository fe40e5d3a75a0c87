import { z } from 'zod';
import { ATIF_SCHEMA_VERSION, type AtifObservationResult, type AtifStep, type AtifToolCall, type AtifTrajectory } from '../../lib/atif-schema.js';
import type { TraceRecord } from '../../lib/trace-events.js';
import { costOf } from '../../machines/budgets.js';
import { collectStepFacts, factOf, stepFactsJson } from './run-facts.js';

/** What a trajectory is built from: the run's trace lines and its record of messages (either may be cut short by a kill). */
export interface TrajectorySource {
  lines: readonly TraceRecord[];
  /** `record.jsonl` as parsed lines, or null when the run kept no record (only the trace is left). */
  record: readonly unknown[] | null;
  sessionId: string;
  agentVersion: string;
}

const toolCallSchema = z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) });
const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(toolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
type Message = z.infer<typeof messageSchema>;
type ModelLine = TraceRecord & { step: number; content?: unknown; tool_calls?: unknown; usage?: unknown; ms?: unknown; finishReason?: unknown };

const usageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative(),
});
const priceSchema = z.object({ input: z.number(), cachedInput: z.number(), output: z.number() });

/**
 * One ATIF trajectory from a rein run: a system and a user step for the
 * prompt and the task, an agent step per model reply (its tool calls, their
 * results from the record, token counts and cost), a user step per harness
 * notice, and rein's facts (phase, gate decisions, stall nudges, context
 * compactions, resumes) under `extra.rein`. Replies the trace holds but the
 * record lost (a kill before the step was saved; the resumed run asked
 * again) are listed under the root's `extra.rein.discarded_replies`, not as
 * steps, so the steps read as the conversation the model finally had.
 *
 * @example const trajectory = buildTrajectory({ lines, record, sessionId: 'run-1', agentVersion: '0.1.0' });
 */
export function buildTrajectory(source: TrajectorySource): AtifTrajectory {
  const { lines } = source;
  const start = lines.find((line) => line.kind === 'start');
  const model = typeof start?.model === 'string' ? start.model : undefined;
  const price = priceFor(start, model);
  const models = lines.filter((line): line is ModelLine => line.kind === 'model' && typeof line.step === 'number');
  const facts = collectStepFacts(lines);
  const notes: string[] = [];
  const messages = source.record ? checkedMessages(source.record, notes) : fromTrace(start, models, lines, notes);
  const steps: AtifStep[] = [];
  const used = new Set<ModelLine>();
  let cursor = 0;
  let agentTime = typeof start?.t === 'number' ? start.t : undefined;
  for (const message of messages) {
    if (message.role === 'tool') {
      attachResult(steps.at(-1), message, notes);
      continue;
    }
    if (message.role !== 'assistant') {
      const harness = message.role === 'user' && message.content.startsWith('[harness] ');
      steps.push({
        step_id: steps.length + 1,
        ...(agentTime !== undefined ? { timestamp: isoOf(agentTime) } : {}),
        source: message.role,
        message: message.content,
        ...(harness ? { extra: { rein: { kind: 'harness_notice' } } } : {}),
      });
      continue;
    }
    const found = matchReply(models, cursor, message);
    if (found >= 0) {
      cursor = found + 1;
      used.add(models[found]!);
    }
    const line = found >= 0 ? models[found] : undefined;
    if (typeof line?.t === 'number') agentTime = line.t;
    steps.push(agentStep(steps.length + 1, message, line, price, facts));
  }
  const discarded = models.filter((line) => !used.has(line));
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: source.sessionId,
    agent: {
      name: 'rein',
      version: source.agentVersion,
      ...(model ? { model_name: model } : {}),
      // The harness configuration is what a comparison between trajectories is about: the rules the run was started with.
      ...(start?.rules && typeof start.rules === 'object' ? { extra: { rules: start.rules } } : {}),
    },
    steps,
    ...(notes.length > 0 ? { notes: notes.join(' ') } : {}),
    final_metrics: finalMetrics(lines, models, price, steps.length),
    extra: { rein: runFacts(lines, start, discarded) },
  };
}

function checkedMessages(record: readonly unknown[], notes: string[]): Message[] {
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
function fromTrace(start: TraceRecord | undefined, models: ModelLine[], lines: readonly TraceRecord[], notes: string[]): Message[] {
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
function matchReply(models: readonly ModelLine[], cursor: number, message: Extract<Message, { role: 'assistant' }>): number {
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

function agentStep(
  stepId: number,
  message: Extract<Message, { role: 'assistant' }>,
  line: ModelLine | undefined,
  price: z.infer<typeof priceSchema> | null,
  facts: ReturnType<typeof collectStepFacts>,
): AtifStep {
  const raw: Record<string, string> = {};
  const toolCalls: AtifToolCall[] = (message.tool_calls ?? []).map((call) => {
    const args = parseArguments(call.function.arguments);
    if (!args) raw[call.id] = call.function.arguments;
    return { tool_call_id: call.id, function_name: call.function.name, arguments: args ?? {} };
  });
  const usage = usageSchema.safeParse(line?.usage);
  const rein = line ? stepFactsJson(line.step, facts.get(line.step)) : { unmatched: true };
  if (Object.keys(raw).length > 0) rein.raw_arguments = raw;
  const metricsExtra = {
    ...(typeof line?.ms === 'number' ? { latency_ms: line.ms } : {}),
    ...(typeof line?.finishReason === 'string' ? { finish_reason: line.finishReason } : {}),
  };
  return {
    step_id: stepId,
    ...(typeof line?.t === 'number' ? { timestamp: isoOf(line.t) } : {}),
    source: 'agent',
    message: message.content ?? '',
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(usage.success
      ? {
          metrics: {
            prompt_tokens: usage.data.promptTokens,
            completion_tokens: usage.data.completionTokens,
            cached_tokens: Math.min(usage.data.cachedTokens, usage.data.promptTokens),
            ...(price ? { cost_usd: costOf(usage.data, price) } : {}),
            ...(Object.keys(metricsExtra).length > 0 ? { extra: metricsExtra } : {}),
          },
        }
      : {}),
    extra: { rein },
  };
}

/** A tool result goes to the step whose call it answers; one that answers no call of that step is kept unlinked (no source_call_id). */
function attachResult(step: AtifStep | undefined, message: Extract<Message, { role: 'tool' }>, notes: string[]): void {
  if (step?.source !== 'agent') {
    notes.push(`A tool result (${message.tool_call_id}) came before any model reply and was left out.`);
    return;
  }
  const linked = step.tool_calls?.some((call) => call.tool_call_id === message.tool_call_id) ?? false;
  const result: AtifObservationResult = { ...(linked ? { source_call_id: message.tool_call_id } : {}), content: message.content };
  step.observation = { results: [...(step.observation?.results ?? []), result] };
}

/** The call's arguments as an object; anything else (bad JSON, an array) is null and kept raw beside. */
function parseArguments(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function priceFor(start: TraceRecord | undefined, model: string | undefined): z.infer<typeof priceSchema> | null {
  if (!model) return null;
  const rules = start?.rules as { model?: { prices?: Record<string, unknown> } } | undefined;
  const parsed = priceSchema.safeParse(rules?.model?.prices?.[model]);
  return parsed.success ? parsed.data : null;
}

/** Totals over every model call the trace holds (the discarded ones were paid for too). */
function finalMetrics(lines: readonly TraceRecord[], models: readonly ModelLine[], price: z.infer<typeof priceSchema> | null, stepCount: number) {
  const total = { prompt: 0, completion: 0, cached: 0, cost: 0 };
  for (const line of models) {
    const usage = usageSchema.safeParse(line.usage);
    if (!usage.success) continue;
    total.prompt += usage.data.promptTokens;
    total.completion += usage.data.completionTokens;
    total.cached += Math.min(usage.data.cachedTokens, usage.data.promptTokens);
    if (price) total.cost += costOf(usage.data, price);
  }
  const end = lastOf(lines, 'end');
  return {
    total_prompt_tokens: total.prompt,
    total_completion_tokens: total.completion,
    total_cached_tokens: total.cached,
    ...(price ? { total_cost_usd: total.cost } : {}),
    total_steps: stepCount,
    extra: { model_calls: models.length, ...(typeof end?.steps === 'number' ? { rein_steps: end.steps } : {}) },
  };
}

function runFacts(lines: readonly TraceRecord[], start: TraceRecord | undefined, discarded: readonly ModelLine[]): Record<string, unknown> {
  const all = (kind: string) => lines.filter((line) => line.kind === kind).map(factOf);
  const end = lastOf(lines, 'end');
  const crash = lastOf(lines, 'crash');
  const interrupted = lastOf(lines, 'interrupted');
  const outcome = end ? factOf(end) : crash ? { status: 'crashed', error: crash.error } : { status: interrupted ? 'interrupted' : 'unfinished' };
  return {
    ...(start
      ? {
          task: start.task,
          test_cmd: start.testCmd,
          endpoint: start.endpoint,
          workspace: start.workspace,
          run_dir: start.runDir,
          sandbox: start.sandbox,
          tools: start.tools,
        }
      : {}),
    outcome,
    resumes: all('resume'),
    interruptions: all('interrupted'),
    gate_decisions: all('finish'),
    stall_nudges: all('stall'),
    compactions: all('context'),
    budget_warnings: all('budget_warning'),
    jobs: all('job'),
    discarded_replies: discarded.map(factOf),
  };
}

function isoOf(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}

function lastOf(lines: readonly TraceRecord[], kind: string): TraceRecord | undefined {
  for (let index = lines.length - 1; index >= 0; index--) if (lines[index]!.kind === kind) return lines[index];
  return undefined;
}
