import type { TraceRecord } from 'rein/formats';
import { costOf } from 'rein/machines';
import { ATIF_SCHEMA_VERSION, type AtifObservationResult, type AtifStep, type AtifToolCall, type AtifTrajectory } from './atif-schema.js';
import { type AssistantMessage, checkedMessages, fromTrace, type Message, type ModelLine, repliesByStep } from './conversation.js';
import { type AtifPrice, finalMetrics, priceFor, usageSchema } from './metrics.js';
import { collectStepFacts, forkPoint, runFacts, stepFactsJson } from './run-facts.js';

/** What a trajectory is built from: the run's trace lines and its record of messages (either may be cut short by a kill). */
interface TrajectorySource {
  lines: readonly TraceRecord[];
  /** `record.jsonl` as parsed lines, or null when the run kept no record (only the trace is left). */
  record: readonly unknown[] | null;
  sessionId: string;
  agentVersion: string;
}

/**
 * One ATIF trajectory from a rein run: a system and a user step for the
 * prompt and the task, an agent step per model reply (its tool calls, their
 * results from the record, token counts and cost), a user step per harness
 * notice, and rein's facts (phase, gate decisions, stall nudges, context
 * compactions, resumes) under `extra.rein`. A fork's steps copied from its origin (`rein fork`) are marked
 * `is_copied_context`, as ATIF marks context carried over from an earlier trajectory. Replies the trace holds but the
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
  const replies = repliesByStep(models);
  const facts = collectStepFacts(lines);
  const notes: string[] = [];
  const messages = source.record ? checkedMessages(source.record, notes) : fromTrace(start, replies, lines, notes);
  const steps: AtifStep[] = [];
  const used = new Set<ModelLine>();
  let agentTime = typeof start?.t === 'number' ? start.t : undefined;
  // A fork's first record messages are its origin's, up to the fork step: ATIF's copied context (v1.5+).
  const copied = copiedBefore(lines);
  const mark = (message: Message) => {
    if (message.line !== undefined && message.line < copied) steps.at(-1)!.is_copied_context = true;
  };
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
      mark(message);
      continue;
    }
    // The reply is bound to its trace line by rein's step count, never by the provider's call ids.
    const { step } = message;
    const line = replies.get(step);
    if (line) {
      used.add(line);
      if (!sameCalls(line, message)) notes.push(`Step ${step}: the trace's reply names other tools than the record's; the record's are kept.`);
    }
    if (typeof line?.t === 'number') agentTime = line.t;
    steps.push(agentStep({ stepId: steps.length + 1, step, message, line, price, facts }));
    mark(message);
  }
  // Harbor's model needs at least one step: a run that recorded no message still says what it was.
  if (steps.length === 0) steps.push(emptyRunStep(start, agentTime));
  const discarded = models.filter((line) => !used.has(line));
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: source.sessionId,
    agent: {
      name: 'rein',
      // The rein that ran it (its start line says, since 0.1.0's traces), else the one exporting.
      version: typeof start?.reinVersion === 'string' ? start.reinVersion : source.agentVersion,
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

/**
 * How many record messages a fork copied from its origin (0 for a run that is not a fork). Without its record (the
 * trace alone), a fork's copied messages cannot be told apart, and none is marked.
 */
function copiedBefore(lines: readonly TraceRecord[]): number {
  return forkPoint(lines)?.recordLength ?? 0;
}

/** The one step of a trajectory whose run recorded no message (killed at once, or a trace cut before its start line). */
function emptyRunStep(start: TraceRecord | undefined, at: number | undefined): AtifStep {
  return {
    step_id: 1,
    ...(at !== undefined ? { timestamp: isoOf(at) } : {}),
    source: 'system',
    message: typeof start?.task === 'string' ? `The run recorded no messages. Its task: ${start.task}` : 'The run recorded no messages.',
    extra: { rein: { kind: 'empty_run' } },
  };
}

/** Whether a trace line's reply calls the same tools, in order, as the recorded message (ids aside: rein renames short ones). */
function sameCalls(line: ModelLine, message: AssistantMessage): boolean {
  const traced = Array.isArray(line.tool_calls) ? line.tool_calls.map((call) => (call as { function?: { name?: unknown } }).function?.name) : [];
  const recorded = (message.tool_calls ?? []).map((call) => call.function.name);
  return traced.length === recorded.length && traced.every((name, index) => name === recorded[index]);
}

interface AgentStepInput {
  stepId: number;
  /** rein's step: the reply's number in the run. */
  step: number;
  message: AssistantMessage;
  line: ModelLine | undefined;
  price: AtifPrice | null;
  facts: ReturnType<typeof collectStepFacts>;
}

function agentStep({ stepId, step, message, line, price, facts }: AgentStepInput): AtifStep {
  const toolCalls: AtifToolCall[] = (message.tool_calls ?? []).map((call) => {
    const args = parseArguments(call.function.arguments);
    return {
      tool_call_id: call.id,
      function_name: call.function.name,
      arguments: args ?? {},
      // Bad JSON from the model: the arguments are empty, and the text it sent is kept beside the call (ToolCall.extra, v1.7).
      ...(args ? {} : { extra: { raw_arguments: call.function.arguments } }),
    };
  });
  const usage = usageSchema.safeParse(line?.usage);
  const rein = { ...stepFactsJson(step, facts.get(step)), ...(line ? {} : { no_trace_line: true }) };
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
    // One model call per step: the RFC's "one LLM per step" convention, said explicitly (v1.7).
    llm_call_count: 1,
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

function isoOf(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}
