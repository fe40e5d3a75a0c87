import type { StateValue } from 'xstate';
import type { ScriptedReply } from '../actors/model/scripted-model.js';
import type { ChatMessage, ToolCall } from '../context/messages.js';
import type { MachineNote } from '../lib/trace/trace-events.js';
import type { ContextOutput, HooksOutput } from '../machines/actor-contracts.js';
import { batchRulesOf, toolBatch } from '../machines/approval-handling.js';
import type { HarnessMachine } from '../machines/harness-machine.js';
import { initialContext } from '../machines/initial-context.js';
import { stateLabel } from '../machines/introspection.js';
import { normalizeCalls } from '../machines/turn-cycle.js';
import type { HarnessContext, HarnessEmitted, ModelReply, ToolsOutput } from '../machines/types.js';
import type { ApprovalDecision } from '../rules/approvals/pending.js';
import type { Rules } from '../rules/schema.js';
import { firstValidFinish } from '../tools/finish.js';
import { pureTransition } from './pure-transition.js';
import type { ResultSpec } from './results.js';

type Snapshot = ReturnType<HarnessMachine['resolveState']>;

/** What one step of a probe produced. */
export interface ProbeStep {
  /** Dotted state after the step, e.g. `fix.compact`. */
  state: string;
  context: HarnessContext;
  /** Everything the machine emitted: record appends and trace notes. */
  emitted: HarnessEmitted[];
  /** Messages appended to the record. */
  appended: ChatMessage[];
  /** Trace notes the step wrote (`stall`, `progress`, `finish`, `context`, `budget_warning`, `rule_action`, `end`), as they appear in the trace. */
  notes: MachineNote[];
}

/**
 * Drives the harness machine one event at a time with XState's pure
 * transition (testing/pure-transition.ts): no actors run, no files or network are touched. Start it
 * at any state with any context, feed it a model reply or tool results, and
 * read the state it reaches, what it appended and which notes it emitted.
 *
 * @example
 * const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
 * probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
 * const step = probe.tools([ran('npm test', 1)]);
 * expect(step.state).toBe('fix.compact');
 */
export function probeHarness(machine: HarnessMachine, rules: Rules, options: { at?: string; context?: Partial<HarnessContext>; testCmd?: string } = {}) {
  const base = initialContext(
    { task: 'the task', testCmd: options.testCmd ?? 'npm test', ...(options.context?.model ? { model: options.context.model } : {}) },
    rules,
  );
  const at = options.at ?? `${base.phase}.think`;
  let snapshot: Snapshot = machine.resolveState({
    value: toValue(at),
    context: { ...base, recordLength: 2, phase: at.split('.')[0] as HarnessContext['phase'], ...options.context },
  });

  const apply = (event: unknown): ProbeStep => {
    const [next, actions] = pureTransition(machine, snapshot, event);
    snapshot = next;
    const emitted = (actions as Array<{ type: string; params?: unknown }>)
      .filter((action) => action.type === 'xstate.emit')
      .map((action) => (action.params as { event: HarnessEmitted }).event);
    return {
      state: stateLabel(next.value),
      context: next.context,
      emitted,
      appended: emitted.flatMap((event) => (event.type === 'record.append' ? event.messages : [])),
      notes: emitted.flatMap((event) => (event.type === 'harness.note' ? [event.note] : [])),
    };
  };

  // A probe fed an event its state does not expect would silently stay put, and the test would pass for the wrong reason.
  const expectState = (method: string, suffix: string, why: string) => {
    const label = stateLabel(snapshot.value);
    if (!label.endsWith(suffix)) throw new Error(`probe.${method}(): the machine is in ${label}; ${why}`);
  };

  return {
    get snapshot() {
      return snapshot;
    },
    get state() {
      return stateLabel(snapshot.value);
    },
    get context() {
      return snapshot.context;
    },
    /** The model actor finished with this reply (usage optional). */
    reply(scripted: ScriptedReply, usage: Partial<ModelReply['usage']> = {}): ProbeStep {
      expectState('reply', '.think', 'a model call runs in a *.think state (from *.compact, call contextReady() first)');
      if (scripted instanceof Error) return apply({ type: 'xstate.error.actor.model', error: scripted });
      const message = {
        role: 'assistant' as const,
        content: scripted.content ?? null,
        tool_calls: (scripted.calls ?? []).map((call) => ({
          // No id of its own: the machine gives it one, as it does for a provider that sends none.
          id: call.id ?? '',
          type: 'function' as const,
          function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}) },
        })),
      };
      return apply({ type: 'xstate.done.actor.model', output: { message, usage: { promptTokens: 100, completionTokens: 10, cachedTokens: 0, ...usage } } });
    },
    /** The tool actor finished with these results (ids are taken from the pending calls); `finish` stops at a finish call. */
    tools(results: ResultSpec[], finish?: { summary: string }): ProbeStep {
      expectState('tools', '.act', 'tool calls run in a *.act state, after a reply() with calls');
      const context = snapshot.context;
      // With approvals the tool actor runs only up to the next call that waits for an answer; with postToolUse hooks, one call.
      const pending =
        context.calls.length > 0
          ? toolBatch(context, batchRulesOf(context.phase, rules))
          : normalizeCalls({ role: 'assistant', content: null }, context.step).calls;
      checkResults(results, pending, finish !== undefined);
      const output: ToolsOutput = {
        results: results.map((spec, index) => ({
          id: pending[index]?.id ?? `call_${context.step}_${index}`,
          name: spec.name,
          args: spec.args ?? {},
          outcome: spec.outcome,
          ms: 1,
        })),
        finish: finish ?? null,
      };
      return apply({ type: 'xstate.done.actor.tools', output });
    },
    /** The context manager finished: by default the view fits and nothing changed. */
    contextReady(overrides: Partial<ContextOutput> = {}): ProbeStep {
      const context = snapshot.context;
      const output: ContextOutput = {
        contextState: context.contextState,
        messages: [],
        tokens: 1000,
        action: 'none',
        before: { chars: 4000, tokens: 1000 },
        chars: 4000,
        ...overrides,
      };
      return apply({ type: 'xstate.done.actor.contextManager', output });
    },
    /**
     * The approver answered the pending call: `allow` or `deny` (by default bound to the pending call's id and
     * argument hash; pass `callId`/`argsHash` to give a stale or forged answer), or an Error for an approver that failed.
     */
    answer(answer: 'allow' | 'deny' | Error | (Partial<ApprovalDecision> & { verdict: 'allow' | 'deny' })): ProbeStep {
      expectState('answer', '.awaitingApproval', 'an answer is for a call in a *.awaitingApproval state (a reply whose call the approval rules ask about)');
      if (answer instanceof Error) return apply({ type: 'xstate.error.actor.approver', error: answer });
      const pending = snapshot.context.approvals.pending!;
      const given = typeof answer === 'string' ? { verdict: answer } : answer;
      const output: ApprovalDecision = { callId: pending.callId, argsHash: pending.argsHash, by: 'command', ...given };
      return apply({ type: 'xstate.done.actor.approver', output });
    },
    /**
     * The hooks answered in a *.preToolHook or *.finishHook state: a decision (allow, deny, ask, or none), a message,
     * notes for the model; or an Error for a hooks actor that failed (which fails closed).
     */
    hook(answer: Partial<HooksOutput> | Error = {}): ProbeStep {
      const label = stateLabel(snapshot.value);
      const id = hookInvokeAt(label, rules);
      if (!id)
        throw new Error(
          `probe.hook(): the machine is in ${label}; hooks answer in a *.preToolHook, *.postToolHook, *.phaseHook, *.settleHook or *.finishHook state, or in an end state with runEnd hooks`,
        );
      if (answer instanceof Error) return apply({ type: `xstate.error.actor.${id}`, error: answer });
      return apply({ type: `xstate.done.actor.${id}`, output: { decision: null, notes: [], ...answer } });
    },
    /** Any other event: the clock (`clock.expired`), an actor error, a summary. */
    send(event: { type: string; [key: string]: unknown }): ProbeStep {
      return apply(event);
    },
  };
}

/** The hooks actor's invoke id in this state, if the state runs hooks. */
function hookInvokeAt(label: string, rules: Rules): string | null {
  const sub = label.split('.')[1];
  // An end state runs the runEnd hooks (when there are any) before the run is final in `ended`.
  if (sub === undefined) return rules.hooks.runEnd.length > 0 && label !== 'ended' ? 'runEndHook' : null;
  if (sub === 'settleHook') return 'phaseHook';
  return ['preToolHook', 'postToolHook', 'phaseHook', 'finishHook'].includes(sub) ? sub : null;
}

function toValue(label: string): StateValue {
  const [phase, child] = label.split('.');
  return child ? { [phase!]: child } : phase!;
}

/**
 * The real tool actor answers the pending calls in order, one result each,
 * and stops at the first finish call whose arguments parse, reporting its
 * summary (a finish with bad arguments is a tool error like any other call).
 */
function checkResults(results: readonly ResultSpec[], pendingCalls: readonly ToolCall[], finishing: boolean): void {
  const pending = pendingCalls.map((call) => call.function.name);
  const finishAt = firstValidFinish(pendingCalls)?.index ?? -1;
  if (finishing && finishAt < 0)
    throw new Error(`probe.tools(): a finish was given, but the pending calls (${pending.join(', ') || 'none'}) have no finish with valid arguments`);
  const expected = finishAt >= 0 ? finishAt : pending.length;
  if (results.length !== expected) {
    throw new Error(
      `probe.tools(): ${results.length} result(s) for ${expected} call(s) (${pending.slice(0, expected).join(', ') || 'none'}${finishAt >= 0 ? ', before the finish' : ''})`,
    );
  }
  if (finishAt >= 0 && !finishing)
    throw new Error(`probe.tools(): call ${finishAt + 1} is a finish; the tool actor reports it, so pass its summary: probe.tools(results, { summary })`);
  results.forEach((result, index) => {
    if (result.name !== pending[index]) throw new Error(`probe.tools(): result ${index + 1} is for ${result.name}, but call ${index + 1} is ${pending[index]}`);
  });
}
