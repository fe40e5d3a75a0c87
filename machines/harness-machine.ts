import { cancel, enqueueActions, raise, setup } from 'xstate';
import { WorkingView } from '../context/working-view.js';
import type { Rules } from '../rules/schema.js';
import { actorPlaceholders, ContextLengthError, type ContextOutput, type SummaryOutput } from './actor-contracts.js';
import { budgetRulesOf, completionAllowance, MIN_COMPLETION_TOKENS, priceOf } from './budget.js';
import { builtInGuards, type GuardParams, type GuardRegistry } from './guards.js';
import { builtInActions, checkEffect, type ActionParams, type RuleActionRegistry } from './rule-actions.js';
import { initialContext, openingMessages } from './initial-context.js';
import { buildHarnessConfig } from './harness-config.js';
import { checkRuleReferences } from './rule-references.js';
import {
  acceptanceUpdate, deliveryUpdate, fillTemplate, nudgeUpdate, refusalUpdate, replyUpdate, resultsUpdate, type Update,
} from './turn-updates.js';
import type { EndStatus, HarnessContext, HarnessEmitted, HarnessEvent, HarnessInput, HarnessOutput, ModelReply, ToolsOutput } from './types.js';

/** Prompts in a row the provider may reject as too long before the run fails: each try aims lower. */
export const MAX_PROMPT_REJECTIONS = 3;
/** The share of a rejected prompt's size the next view aims for. */
const REJECTED_PROMPT_SHARE = 0.75;

/** Extension points for harness builders: guards and rule actions registered from TypeScript. */
export interface HarnessOptions {
  guards?: GuardRegistry;
  actions?: RuleActionRegistry;
}

type Enqueue = { assign(update: Partial<HarnessContext>): void; emit(event: HarnessEmitted): void };

function apply(enqueue: Enqueue, context: HarnessContext, update: Update): void {
  const recordLength = context.recordLength + update.append.length;
  enqueue.assign({ ...update.context, recordLength });
  if (update.append.length > 0) enqueue.emit({ type: 'record.append', messages: update.append });
}

function note(enqueue: Enqueue, kind: string, data: Record<string, unknown>): void {
  enqueue.emit({ type: 'harness.note', kind, data });
}

/**
 * Builds the harness statechart from the rules. Phases plan → build →
 * verify → fix each run the same turn cycle (context manager → model → tools
 * → stall review → phase exits); the verification gate, the stall detector and
 * the budgets are named guards. Actors are placeholders: provide real ones
 * with `machine.provide({ actors })` (see `run/session.ts`) or scripted ones
 * in tests (see `testing/`).
 *
 * @example
 * const machine = createHarnessMachine(defaultRules());
 * const actor = createActor(machine.provide({ actors }), { input: { task, testCmd: 'npm test' } });
 */
export function createHarnessMachine(rules: Rules, options: HarnessOptions = {}) {
  const registry: GuardRegistry = { ...builtInGuards, ...namedFailures(options.guards ?? {}) };
  const ruleActions: RuleActionRegistry = { ...builtInActions, ...options.actions };
  checkRuleReferences(rules, registry, ruleActions);
  const userGuards = Object.fromEntries(
    Object.entries(registry).map(([name, guard]) => [name, ({ context }: { context: HarnessContext }, params?: GuardParams) => guard(context, params ?? {})]),
  );
  const budgetRules = budgetRulesOf(rules);
  const priceFor = (context: HarnessContext) => priceOf(rules.model.prices, context.model);
  const verificationFor = (context: HarnessContext) => ({ testCmd: context.testCmd, passExitCode: rules.verification.passExitCode, passPattern: rules.verification.passPattern, commandsCountAsEdits: rules.verification.commandsCountAsEdits });
  const maxMs = rules.budgets.maxSeconds * 1000;
  const stallLimits = Object.fromEntries(rules.stall.rules.map((rule) => [rule.guard, rule.limit]));

  return setup({
    types: {
      context: {} as HarnessContext,
      input: {} as HarnessInput,
      output: {} as HarnessOutput,
      emitted: {} as HarnessEmitted,
      events: {} as HarnessEvent,
    },
    actors: actorPlaceholders,
    delays: {
      timeBudget: ({ context }) => Math.max(0, maxMs - context.elapsedMs),
      timeWarning: ({ context }) => Math.max(0, maxMs * rules.budgets.warnAt - context.elapsedMs),
    },
    guards: {
      ...userGuards,
      stepLimitReached: ({ context }) => context.step >= rules.budgets.maxSteps,
      stepWarningDue: ({ context }) => !context.warned.steps && context.step >= Math.ceil(rules.budgets.maxSteps * rules.budgets.stepWarnAt),
      timeWarningDue: ({ context }) => !context.warned.time,
      budgetExhausted: ({ context }) => completionAllowance(context, budgetRules, priceFor(context)) < Math.min(MIN_COMPLETION_TOKENS, rules.model.maxCompletionTokens),
      contextOverflow: ({ event }) => (event as { output?: ContextOutput }).output?.action === 'overflow',
      needsSummary: ({ event }) => (event as { output?: ContextOutput }).output?.action === 'summarize',
      summaryShrank: ({ event }) => {
        const output = (event as { output?: SummaryOutput }).output;
        return output !== undefined && output.summaryChars < output.foldedChars;
      },
      hasToolCalls: ({ event }) => ((event as { output?: ModelReply }).output?.message.tool_calls?.length ?? 0) > 0,
      promptTooLong: ({ context, event }) => (event as { error?: unknown }).error instanceof ContextLengthError && context.promptRejections < MAX_PROMPT_REJECTIONS,
      finishPending: ({ context }) => context.calls[context.cursor]?.function.name === 'finish',
      callsRemaining: ({ context }) => context.cursor < context.calls.length,
      // A stall persists when a rule holds again after it has had its nudges.
      stallPersists: ({ context }, params: { checks: Array<{ guard: string; params: GuardParams }>; maxNudges: number }) =>
        params.checks.some(({ guard, params: ruleParams }) =>
          (context.stall.counters[guard]?.firings ?? 0) >= params.maxNudges && registry[guard]!(context, ruleParams)),
    },
    actions: {
      startClock: enqueueActions(({ enqueue }) => {
        enqueue(cancel('timeBudget'));
        enqueue(cancel('timeWarning'));
        enqueue(raise({ type: 'clock.warning' }, { id: 'timeWarning', delay: 'timeWarning' }));
        enqueue(raise({ type: 'clock.expired' }, { id: 'timeBudget', delay: 'timeBudget' }));
      }),
      openRecord: enqueueActions(({ context, enqueue }) => {
        apply(enqueue, context, { context: {}, append: openingMessages(context, rules) });
      }),
      enterPhase: enqueueActions(({ context, enqueue }, params: { phase: HarnessContext['phase'] }) => {
        enqueue.assign({ phase: params.phase, facts: { ...context.facts, phaseStartSeq: context.facts.seq } });
      }),
      deliverNotices: enqueueActions(({ context, enqueue }) => {
        if (context.notices.length > 0) apply(enqueue, context, deliveryUpdate(context));
      }),
      storeView: enqueueActions(({ context, event, enqueue }) => {
        const output = (event as unknown as { output: ContextOutput }).output;
        enqueue.assign({ view: new WorkingView(output.messages), viewTokens: output.tokens, contextState: output.contextState, forceCompaction: false });
        if (output.action !== 'none') {
          note(enqueue, 'context', { action: output.action, before: output.before, after: { chars: output.chars, tokens: output.tokens }, step: context.step });
        }
      }),
      applySummary: enqueueActions(({ context, event, enqueue }) => {
        const output = (event as unknown as { output: SummaryOutput }).output;
        const state = context.contextState;
        enqueue.assign({ contextState: { ...state, summary: output.summary, summaries: state.summaries + 1, version: state.version + 1 } });
        note(enqueue, 'context', { action: 'summarized', foldedChars: output.foldedChars, summaryChars: output.summaryChars, through: output.summary.through, step: context.step });
      }),
      countSummaryFailure: enqueueActions(({ context, event, enqueue }) => {
        const state = context.contextState;
        enqueue.assign({ contextState: { ...state, summaryFailures: state.summaryFailures + 1 } });
        const error = (event as { error?: unknown }).error;
        note(enqueue, 'context', { action: 'summary_failed', error: error instanceof Error ? error.message : 'the summary did not shrink the view', step: context.step });
      }),
      forceCompaction: enqueueActions(({ enqueue, context, event }) => {
        // The provider's window is smaller than we thought: the size it states, the first time; otherwise (or when
        // that did not help) a quarter below the smaller of the rejected prompt and the window learnt so far.
        const state = context.contextState;
        const learnt = state.windowCap ?? Number.POSITIVE_INFINITY;
        const stated = ((event as { error?: unknown }).error as ContextLengthError | undefined)?.windowTokens;
        const guess = stated !== undefined && context.promptRejections === 0 ? stated : Math.floor(Math.min(learnt, context.viewTokens) * REJECTED_PROMPT_SHARE);
        const windowCap = Math.max(1, Math.min(learnt, guess));
        enqueue.assign({ forceCompaction: true, promptRejections: context.promptRejections + 1, contextState: { ...state, windowCap, version: state.version + 1 } });
        note(enqueue, 'context', { action: 'provider_rejected_length', rejectedTokens: context.viewTokens, windowCap, attempt: context.promptRejections + 1, step: context.step });
      }),
      recordReply: enqueueActions(({ context, event, enqueue }) => {
        const reply = (event as unknown as { output: ModelReply }).output;
        apply(enqueue, context, replyUpdate(context, reply, priceFor(context)));
      }),
      remindToUseTools: enqueueActions(({ context, enqueue }) => {
        enqueue.assign({ notices: [...context.notices, rules.messages.noToolCall] });
      }),
      recordResults: enqueueActions(({ context, event, enqueue }) => {
        const output = (event as unknown as { output: ToolsOutput }).output;
        apply(enqueue, context, resultsUpdate(context, output, verificationFor(context)));
      }),
      refuseFinish: enqueueActions(({ context, enqueue }) => {
        const refusal = fillTemplate(rules.verification.refusal, { cmd: context.testCmd });
        apply(enqueue, context, refusalUpdate(context, refusal, verificationFor(context)));
        const why = context.facts.lastEditSeq >= 0 ? 'no passing test run after the last edit' : 'no passing test run yet';
        note(enqueue, 'finish', { allowed: false, step: context.step, refusals: context.facts.gateRefusals + 1, why });
      }),
      acceptFinish: enqueueActions(({ context, enqueue }) => {
        const update = acceptanceUpdate(context);
        apply(enqueue, context, update);
        note(enqueue, 'finish', { allowed: true, step: context.step, summary: update.context.summary, gate: rules.verification.gate });
      }),
      nudge: enqueueActions(({ context, enqueue }, params: { rule: string; limit: number; message: string }) => {
        const text = fillTemplate(params.message, { limit: params.limit, path: context.stall.busiestFile ?? 'the same file' });
        apply(enqueue, context, nudgeUpdate(context, params.rule, text, stallLimits));
        note(enqueue, 'stall', { rule: params.rule, limit: params.limit, message: text, step: context.step, firings: (context.stall.counters[params.rule]?.firings ?? 0) + 1 });
      }),
      warnSteps: enqueueActions(({ context, enqueue }) => {
        enqueue.assign({ warned: { ...context.warned, steps: true }, notices: [...context.notices, rules.messages.stepWarning] });
        note(enqueue, 'budget_warning', { budget: 'steps', step: context.step, limit: rules.budgets.maxSteps });
      }),
      warnTime: enqueueActions(({ context, enqueue }) => {
        enqueue.assign({ warned: { ...context.warned, time: true }, notices: [...context.notices, rules.messages.timeWarning] });
        note(enqueue, 'budget_warning', { budget: 'time', step: context.step, limitSeconds: rules.budgets.maxSeconds });
      }),
      recordFailure: enqueueActions(({ enqueue, event }) => {
        const error = (event as { error?: unknown }).error;
        enqueue.assign({ reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      }),
      // Actions named in the rules (phase entry, exits), looked up in the registry; their effects are only notices and trace lines.
      runRuleAction: enqueueActions(({ context, enqueue }, params: { action: string; params: ActionParams }) => {
        // A registered action is user code: what it returns is checked, and a throw is traced, not a crash of the run.
        let effect: ReturnType<typeof checkEffect>;
        try {
          effect = checkEffect(ruleActions[params.action]!(context, params.params));
        } catch (error) {
          effect = { notices: [], trace: {}, problem: `threw: ${error instanceof Error ? error.message : String(error)}` };
        }
        if (effect.notices.length > 0) enqueue.assign({ notices: [...context.notices, ...effect.notices] });
        note(enqueue, 'rule_action', {
          action: params.action, ...(effect.notices.length > 0 ? { notices: effect.notices } : {}), ...effect.trace,
          ...(effect.problem ? { problem: effect.problem } : {}), step: context.step,
        });
      }),
      explainEnd: enqueueActions(({ enqueue }, params: { reason: string }) => {
        enqueue.assign({ reason: params.reason });
      }),
      endRun: enqueueActions(({ context, enqueue }, params: { status: EndStatus; reason: string }) => {
        const reason = context.reason || params.reason;
        enqueue.assign({ status: params.status, reason, view: null });
        note(enqueue, 'end', { status: params.status, reason, steps: context.step, summary: context.summary, usage: context.usage });
      }),
    },
  }).createMachine(buildHarnessConfig(rules, (input) => initialContext(input, rules)));
}

export type HarnessMachine = ReturnType<typeof createHarnessMachine>;

/** Guards registered from code say who they are when they throw: the run's crash message then names the culprit. */
function namedFailures(guards: GuardRegistry): GuardRegistry {
  return Object.fromEntries(Object.entries(guards).map(([name, guard]) => [name, (context: HarnessContext, params: GuardParams) => {
    try {
      return guard(context, params);
    } catch (error) {
      throw new Error(`guard "${name}" threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }]));
}
