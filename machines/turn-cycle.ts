import type { AssistantMessage, ChatMessage, ToolCall, ToolMessage } from '../context/messages.js';
import type { TodoItem } from '../lib/tool-effect.js';
import { acceptsCallId, type CallIdFormat, makeCallId } from '../rules/call-ids.js';
import type { Phase } from '../rules/schema.js';
import { addUsage } from './budgets.js';
import { type FoldRules, foldResults, initialTurn } from './facts.js';
import { foldReply } from './stall/counters.js';
import type { HarnessContext, ModelReply, ToolsOutput } from './types.js';
import type { Update } from './update.js';

/**
 * The turn cycle every phase runs: deliver queued notices, build the view,
 * call the model, run its tool calls (a finish goes to the gate), review the
 * turn for stalls, route by the phase's exits. These are its record and
 * fact updates; the states are in phase-state.ts.
 */

/** The first two messages of every record: the static system prompt and the task. */
export function openingUpdate(context: HarnessContext, params: { systemPrompt: string }): Update {
  return {
    append: [
      { role: 'system', content: params.systemPrompt },
      { role: 'user', content: taskMessage(context.task, context.testCmd, context.facts.todo, context.repositoryInstructions) },
    ],
  };
}

function taskMessage(task: string, testCmd: string, todo: readonly TodoItem[], repository?: string): string {
  // The repository's words come first and labelled as such; the task, rein's words, after them.
  const parts = repository ? [repository, task.trim()] : [task.trim()];
  if (testCmd) parts.push(`Verification command: \`${testCmd}\``);
  if (todo.length > 0) {
    const lines = todo.map((item) => `[${item.done ? 'x' : ' '}] ${item.task}`).join('\n');
    parts.push(`Todo list left by an earlier session on this workspace (.rein/progress.json):\n${lines}`);
  }
  return parts.join('\n\n');
}

/** A phase is entered: what the phase-relative guards measure from starts here. */
export function enterPhaseUpdate(context: HarnessContext, params: { phase: Phase }): Update {
  const { facts } = context;
  return {
    context: {
      phase: params.phase,
      previousPhase: context.phase,
      facts: { ...facts, phaseStartSeq: facts.seq, phaseStartStep: context.step, phaseStartTestRuns: facts.testRuns },
    },
  };
}

/** Deliver the queued notices as user messages, after all tool results of the turn. */
export function deliveryUpdate(context: HarnessContext): Update {
  if (context.notices.length === 0) return {};
  const append: ChatMessage[] = context.notices.map((text) => ({ role: 'user', content: `[harness] ${text}` }));
  return { context: { notices: [] }, append };
}

/** Why rein gave a call another id than the provider's: none came, it is not one the endpoint accepts back, or it was used before. */
type IdChange = { index: number; given: string | null; id: string; why: 'missing' | 'invalid' | 'duplicate' };

/**
 * Gives every tool call an id that is unique in the whole run, so each result
 * pairs with exactly one call. The provider's id is sent back exactly as it
 * came when the endpoint accepts it (`format`, from the endpoint profile);
 * rein makes one only for a call without one, with one the endpoint would
 * refuse (Mistral wants nine letters and digits), or with one already used
 * in the run. Resume and the call journal key calls by step and position,
 * never by id.
 */
export function normalizeCalls(
  message: AssistantMessage,
  step: number,
  options: { format?: CallIdFormat; used?: readonly string[] } = {},
): { calls: ToolCall[]; changes: IdChange[] } {
  const format = options.format ?? 'any';
  // The run's ids are looked through, not copied into a set: a reply has a call or two, the run thousands of ids.
  const used = options.used ?? [];
  const fresh: string[] = [];
  const seen = { has: (id: string) => fresh.includes(id) || used.includes(id), add: (id: string) => fresh.push(id) };
  const changes: IdChange[] = [];
  const calls = (message.tool_calls ?? []).map((call, index): ToolCall => {
    const given = typeof call.id === 'string' && call.id !== '' ? call.id : null;
    let id = given ?? '';
    const why = given === null ? 'missing' : !acceptsCallId(format, given) ? 'invalid' : seen.has(given) ? 'duplicate' : null;
    if (why) {
      for (let attempt = 0; ; attempt++) {
        id = makeCallId(format, { step, index, attempt });
        if (!seen.has(id)) break;
      }
      changes.push({ index, given: given === null ? null : given.slice(0, 200), id, why });
    }
    seen.add(id);
    const name = typeof call.function?.name === 'string' ? call.function.name : '';
    const args = typeof call.function?.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function?.arguments ?? {});
    return { id, type: 'function', function: { name, arguments: args } };
  });
  return { calls, changes };
}

/** A model reply arrived: count the step and the usage, start a new turn; the ids rein changed are traced beside the provider's. */
export function replyUpdate(context: HarnessContext, reply: ModelReply, params: { callIds?: CallIdFormat } = {}): Update {
  const step = context.step + 1;
  const { calls, changes } = normalizeCalls(reply.message, step, { ...(params.callIds ? { format: params.callIds } : {}), used: context.callIds ?? [] });
  const message: AssistantMessage = { role: 'assistant', content: reply.message.content ?? null };
  if (calls.length > 0) message.tool_calls = calls;
  return {
    context: {
      step,
      calls,
      ...(calls.length > 0 ? { callIds: [...(context.callIds ?? []), ...calls.map((call) => call.id)] } : {}),
      cursor: 0,
      turn: initialTurn(calls.length),
      usage: addUsage(context.usage, reply.usage, context.price),
      stall: foldReply(context.stall, calls.length > 0),
      contextState: calibratedState(context, reply),
      forceCompaction: false,
      promptRejections: 0,
      ...(reply.notice ? { notices: [...context.notices, reply.notice] } : {}),
    },
    append: [message],
    ...(changes.length > 0 ? { notes: [{ kind: 'call_ids' as const, step, calls: changes }] } : {}),
  };
}

/** Requests shorter than this say too little about the tokenizer (the fixed overhead dominates). */
const MIN_CALIBRATION_CHARS = 400;

/**
 * The context state after a reply: the chars-per-token estimate moved toward
 * what the provider reported (smoothed; the first report is taken as it is),
 * and the provider's correction factor, where the reply says something about them.
 */
function calibratedState(context: HarnessContext, reply: ModelReply): HarnessContext['contextState'] {
  const state = context.contextState;
  const reported = reply.usage.promptTokens;
  const reportedRatio = reported > 0 && context.viewTokens > 0 ? Math.round((reported / context.viewTokens) * 1000) / 1000 : undefined;
  const chars = reply.requestChars ?? 0;
  const content = reported - context.overheadTokens;
  let charsPerToken: number | undefined;
  if (chars >= MIN_CALIBRATION_CHARS && content > 0) {
    const observed = Math.min(8, Math.max(1.5, chars / content));
    charsPerToken = Math.round((state.reportedRatio !== undefined ? state.charsPerToken * 0.5 + observed * 0.5 : observed) * 1000) / 1000;
  }
  if (charsPerToken === undefined && reportedRatio === undefined) return state;
  return { ...state, ...(charsPerToken !== undefined ? { charsPerToken } : {}), ...(reportedRatio !== undefined ? { reportedRatio } : {}) };
}

/** Tool results arrived: fold them into the facts, append them in call order, and note what they made new. */
export function resultsUpdate(context: HarnessContext, output: ToolsOutput, fold: Omit<FoldRules, 'testCmd'>): Update {
  const { progress, ...folded } = foldResults(context, output.results, { ...fold, testCmd: context.testCmd });
  const append: ToolMessage[] = output.results.map((result) => ({ role: 'tool', tool_call_id: result.id, content: result.outcome.content }));
  // What the stall detector counted as new, so a person can see why a nudge came (or did not).
  const notes = progress.length > 0 ? [{ kind: 'progress' as const, step: context.step, results: progress }] : [];
  return { context: { ...folded, cursor: context.cursor + output.results.length }, append, notes };
}
