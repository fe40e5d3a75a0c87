import type { AssistantMessage, ChatMessage, ToolCall, ToolMessage } from '../context/messages.js';
import { foldReply, foldResults, initialTurn, noteFiring, type VerificationRules } from './facts.js';
import { addUsage } from './budget.js';
import type { Price } from '../rules/schema.js';
import type { HarnessContext, ModelReply, ToolsOutput } from './types.js';

/** A context change plus the messages it appends to the record, computed purely. */
export interface Update {
  context: Partial<HarnessContext>;
  append: ChatMessage[];
}

/**
 * Gives every tool call an id that is unique in the whole run, so each
 * result pairs with exactly one call. Provider ids are long and random and
 * are kept; empty, short, odd or repeated ids (scripted or broken models)
 * become `call_<step>_<index>`, unique by construction.
 */
export function normalizeCalls(message: AssistantMessage, step: number): ToolCall[] {
  const seen = new Set<string>();
  return (message.tool_calls ?? []).map((call, index) => {
    let id = typeof call.id === 'string' ? call.id.trim() : '';
    if (id.length < 16 || id.length > 80 || !/^[\w.:-]+$/.test(id) || seen.has(id)) id = `call_${step}_${index}`;
    seen.add(id);
    const name = typeof call.function?.name === 'string' ? call.function.name : '';
    const args = typeof call.function?.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function?.arguments ?? {});
    return { id, type: 'function', function: { name, arguments: args } };
  });
}

/** A model reply arrived: count the step and the usage, start a new turn. */
export function replyUpdate(context: HarnessContext, reply: ModelReply, price: Price): Update {
  const step = context.step + 1;
  const calls = normalizeCalls(reply.message, step);
  const message: AssistantMessage = { role: 'assistant', content: reply.message.content ?? null };
  if (calls.length > 0) message.tool_calls = calls;
  const charsPerToken = calibrate(context, reply);
  return {
    context: {
      step, calls, cursor: 0, turn: initialTurn(),
      usage: addUsage(context.usage, reply.usage, price),
      stall: foldReply(context.stall, calls.length > 0),
      contextState: calibratedState(context, reply, charsPerToken),
      forceCompaction: false,
      promptRejections: 0,
    },
    append: [message],
  };
}

/** The context state after a reply: the chars-per-token estimate and the provider's correction factor, where the reply says something about them. */
function calibratedState(context: HarnessContext, reply: ModelReply, charsPerToken: number | null): HarnessContext['contextState'] {
  const reported = reply.usage.promptTokens;
  const reportedRatio = reported > 0 && context.viewTokens > 0 ? Math.round((reported / context.viewTokens) * 1000) / 1000 : undefined;
  if (charsPerToken === null && reportedRatio === undefined) return context.contextState;
  return {
    ...context.contextState,
    ...(charsPerToken !== null ? { charsPerToken } : {}),
    ...(reportedRatio !== undefined ? { reportedRatio } : {}),
  };
}

/**
 * Moves the chars-per-token estimate toward what the provider reported,
 * smoothed; `null` when this reply says nothing about it. The first report
 * is taken as it is: until then the estimate was a guess.
 */
function calibrate(context: HarnessContext, reply: ModelReply): number | null {
  const state = context.contextState;
  const chars = reply.requestChars ?? 0;
  const reported = reply.usage.promptTokens - context.overheadTokens;
  if (chars < MIN_CALIBRATION_CHARS || reported <= 0) return null;
  const observed = Math.min(8, Math.max(1.5, chars / reported));
  const next = state.reportedRatio !== undefined ? state.charsPerToken * 0.5 + observed * 0.5 : observed;
  return Math.round(next * 1000) / 1000;
}

/** Requests shorter than this say too little about the tokenizer (the fixed overhead dominates). */
const MIN_CALIBRATION_CHARS = 400;

/** Tool results arrived: fold them into the facts and append them in call order. */
export function resultsUpdate(context: HarnessContext, output: ToolsOutput, rules: VerificationRules): Update {
  const folded = foldResults(context, output.results, rules);
  const append: ToolMessage[] = output.results.map((result) => ({ role: 'tool', tool_call_id: result.id, content: result.outcome.content }));
  return { context: { ...folded, cursor: context.cursor + output.results.length }, append };
}

/**
 * The gate refused a finish call: the refusal is that call's result. It is
 * an action like any other for the stall detector (a model that keeps
 * calling finish is repeating itself, whatever summary it writes).
 */
export function refusalUpdate(context: HarnessContext, refusal: string, rules: VerificationRules): Update {
  const call = context.calls[context.cursor]!;
  const attempt = { id: call.id, name: 'finish', args: {}, outcome: { content: refusal, ok: false, effect: { kind: 'none' as const } }, ms: 0 };
  const folded = foldResults(context, [attempt], rules);
  return {
    context: {
      cursor: context.cursor + 1,
      facts: { ...folded.facts, gateRefusals: context.facts.gateRefusals + 1 },
      turn: { ...folded.turn, finishRefused: true },
      stall: folded.stall,
    },
    append: [{ role: 'tool', tool_call_id: call.id, content: refusal }],
  };
}

/**
 * The gate accepted finish: its summary becomes the run's (only an accepted
 * finish's summary is), and the call and any calls after it are closed, so
 * the record stays well-formed.
 */
export function acceptanceUpdate(context: HarnessContext): Update {
  const append: ToolMessage[] = context.calls.slice(context.cursor).map((call, index) => ({
    role: 'tool', tool_call_id: call.id, content: index === 0 ? 'Finished.' : 'Not run: the run finished.',
  }));
  return { context: { cursor: context.calls.length, summary: finishSummary(context.calls[context.cursor]) }, append };
}

/** The summary a finish call gives; the tool actor only stops at a finish whose arguments parsed. */
function finishSummary(call: ToolCall | undefined): string {
  try {
    const summary = (JSON.parse(call?.function.arguments ?? '{}') as { summary?: unknown }).summary;
    return typeof summary === 'string' ? summary : '';
  } catch {
    return '';
  }
}

/** A stall rule fired: queue its nudge for after this turn's tool results. */
export function nudgeUpdate(context: HarnessContext, rule: string, text: string, limits: Record<string, number>): Update {
  return { context: { stall: noteFiring(context.stall, rule, limits), notices: [...context.notices, text] }, append: [] };
}

/** Deliver the queued notices as user messages, after all tool results of the turn. */
export function deliveryUpdate(context: HarnessContext): Update {
  const append: ChatMessage[] = context.notices.map((text) => ({ role: 'user', content: `[harness] ${text}` }));
  return { context: { notices: [] }, append };
}

/** Fills `{name}` placeholders of a rule's message. */
export function fillTemplate(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
