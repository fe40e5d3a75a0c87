import { cancel, enqueueActions, raise, setup } from 'xstate';
import type { EndStatus, MachineNote } from '../lib/trace/trace-events.js';
import type { ApprovalPolicy } from '../rules/approvals/evaluate.js';
import { type ApprovalDecision, decisionFits } from '../rules/approvals/pending.js';
import type { CallIdFormat } from '../rules/call-ids.js';
import type { HookMoment } from '../rules/hooks/schema.js';
import type { Phase } from '../rules/schema.js';
import { actorPlaceholders, type ContextOutput, type HooksOutput, type SummaryOutput } from './actor-contracts.js';
import { approverFailureUpdate, decisionUpdate, hookVerdictUpdate, screenUpdate } from './approval-handling.js';
import { type BudgetCaps, budgetSpent, dueWarnings, type WarningRule, warningUpdate } from './budgets.js';
import { isPromptTooLong, rejectionUpdate, storeViewUpdate, summaryFailureUpdate, summaryUpdate } from './context-handling.js';
import { type ChargeEvent, chargeUpdate, usageByAgent } from './delegation/charge.js';
import type { FoldRules } from './facts.js';
import { acceptanceUpdate, type RefusalParams, refusalUpdate } from './gate.js';
import { BUILT_IN_GUARDS, type BuiltInGuardName } from './guards/catalogue.js';
import { guardView } from './guards/guard-view.js';
import { holdResultsUpdate, hookActorFailureNote, withHookNotes } from './hook-handling.js';
import { type ActionParams, builtInActions, checkEffect, type RuleAction } from './rule-actions.js';
import { type NudgeParams, nudgedOut, nudgeUpdate, persistingRule, reminderUpdate, stallEndUpdate } from './stall/review.js';
import { deliveryUpdate, enterPhaseUpdate, openingUpdate, replyUpdate, resultsUpdate } from './turn-cycle.js';
import type { HarnessContext, HarnessEmitted, HarnessEvent, HarnessInput, HarnessOutput, ModelReply, ToolsOutput } from './types.js';
import type { Update } from './update.js';

type Enqueue = { assign(update: Partial<HarnessContext>): void; emit(event: HarnessEmitted): void };

/** Applies an action's update: the context change (with the record's new length), the appended messages, the trace notes. */
export function applyUpdate(enqueue: Enqueue, context: HarnessContext, update: Update): void {
  const append = update.append ?? [];
  enqueue.assign({ ...update.context, recordLength: context.recordLength + append.length });
  if (append.length > 0) enqueue.emit({ type: 'record.append', messages: append });
  for (const note of update.notes ?? []) enqueue.emit({ type: 'harness.note', note });
}

type GuardArgs = { context: HarnessContext };
type Params = Record<string, unknown>;

/** The built-in guards a rules file may name, each reading the guard view and its parameters. */
const catalogueGuards = Object.fromEntries(
  // Each guard's params are parsed by its catalogue entry's zod schema; setup() types params per guard only for literal guards.
  Object.entries(BUILT_IN_GUARDS).map(([name, spec]) => [name, ({ context }: GuardArgs, params: Params) => spec.test(guardView(context), params as never)]),
) as Record<BuiltInGuardName, (args: GuardArgs, params: Params) => boolean>;

/** A rule action (built-in or registered) as a machine action: its notices queued, its trace line written, its failures traced. */
export function ruleActionUpdate(name: string, run: RuleAction, context: HarnessContext, params: ActionParams): Update {
  let effect: ReturnType<typeof checkEffect>;
  try {
    // A registered action is user code: what it returns is checked, and a throw is traced, not a crash of the run.
    effect = checkEffect(run(guardView(context), params));
  } catch (error) {
    effect = { notices: [], trace: {}, problem: `threw: ${error instanceof Error ? error.message : String(error)}` };
  }
  return {
    context: { notices: [...context.notices, ...effect.notices] },
    notes: [
      {
        kind: 'rule_action',
        action: name,
        step: context.step,
        ...effect.trace,
        ...(effect.notices.length > 0 ? { notices: effect.notices } : {}),
        ...(effect.problem ? { problem: effect.problem } : {}),
      },
    ],
  };
}

/** The trace's `end` line: how the run ended (the stall rule that ended it, if one did). */
function endNote(context: HarnessContext): MachineNote {
  // Stryker disable next-line StringLiteral: endNote is only called with the status just set
  const status = context.status ?? 'failed';
  const rule = status === 'stalled' && context.stall.fired ? { rule: context.stall.fired } : {};
  const by = context.endedBy ? { by: context.endedBy } : {};
  const agents = context.delegated ? { agents: usageByAgent(context) } : {};
  return { kind: 'end', status, reason: context.reason, steps: context.step, summary: context.summary, usage: context.usage, ...rule, ...by, ...agents };
}

/** The machine's guards: the catalogue's (rules name them) and its own (the turn cycle, budgets, context, stall). */
const harnessGuards = {
  ...catalogueGuards,
  // The run's own steps and every step its children took: the step budget is the whole tree's.
  stepLimitReached: ({ context }: GuardArgs, params: { max: number }) => context.step + (context.delegated?.steps ?? 0) >= params.max,
  budgetWarningDue: ({ context }: GuardArgs, params: { warnings: WarningRule[] }) => dueWarnings(context, params.warnings).length > 0,
  timeWarningDue: ({ context }: GuardArgs) => !context.warned.time,
  budgetSpent: ({ context }: GuardArgs, params: { caps: BudgetCaps }) => budgetSpent(context, params.caps),
  contextOverflow: (_: GuardArgs, params: { output: ContextOutput }) => params.output.action === 'overflow',
  needsSummary: (_: GuardArgs, params: { output: ContextOutput }) => params.output.action === 'summarize',
  summaryShrank: (_: GuardArgs, params: { output: SummaryOutput }) => params.output.summaryChars < params.output.foldedChars,
  hasToolCalls: (_: GuardArgs, params: { reply: ModelReply }) => (params.reply.message.tool_calls?.length ?? 0) > 0,
  promptTooLong: ({ context }: GuardArgs, params: { error: unknown; maxRejections: number }) => isPromptTooLong(context, params.error, params.maxRejections),
  finishPending: ({ context }: GuardArgs) => context.calls[context.cursor]?.function.name === 'finish',
  callsRemaining: ({ context }: GuardArgs) => context.cursor < context.calls.length,
  stallPersists: ({ context }: GuardArgs, params: { maxNudges: number; rules: Array<{ rule: string; limit: number }> }) =>
    persistingRule(context, params) !== null,
  nudgedOut: ({ context }: GuardArgs, params: { rule: string; maxNudges: number }) => nudgedOut(context, params.rule, params.maxNudges),
  repliedWithoutTools: ({ context }: GuardArgs) => context.calls.length === 0,
  approvalPending: ({ context }: GuardArgs) => context.approvals.pending !== null,
  answerFitsPending: ({ context }: GuardArgs, params: { decision: ApprovalDecision }) => decisionFits(context.approvals.pending, params.decision),
  hookDeniedFinish: (_: GuardArgs, params: { output: HooksOutput }) => params.output.decision === 'deny',
  callsRan: (_: GuardArgs, params: { output: ToolsOutput }) => params.output.results.length > 0,
};

/**
 * The harness's one `setup()`: every guard, action, actor and delay the
 * statechart names, each reading its numbers from parameters (so the chart
 * shows them) rather than from the rules. `createHarnessMachine` builds the
 * states from the rules and adds the guards and actions a rules file
 * registers.
 */
export const harnessSetup = setup({
  // Stryker disable next-line ObjectLiteral: types only informs TypeScript's inference; XState never reads it at run time
  types: {
    context: {} as HarnessContext,
    input: {} as HarnessInput,
    output: {} as HarnessOutput,
    emitted: {} as HarnessEmitted,
    events: {} as HarnessEvent,
  },
  actors: actorPlaceholders,
  delays: {
    timeBudget: ({ context }) => Math.max(0, context.timeLimitMs - context.elapsedMs),
    timeWarning: ({ context }) => Math.max(0, context.timeWarningMs - context.elapsedMs),
  },
  guards: harnessGuards,
  actions: {
    startClock: enqueueActions(({ enqueue }) => {
      // Timers are raised events, not `after`, so a resumed run can re-arm them with the time left.
      enqueue(cancel('timeBudget'));
      enqueue(cancel('timeWarning'));
      enqueue(raise({ type: 'clock.warning' }, { id: 'timeWarning', delay: 'timeWarning' }));
      enqueue(raise({ type: 'clock.expired' }, { id: 'timeBudget', delay: 'timeBudget' }));
    }),
    stopClock: enqueueActions(({ enqueue }) => {
      enqueue(cancel('timeBudget'));
      enqueue(cancel('timeWarning'));
    }),
    openRecord: enqueueActions(({ context, enqueue }, params: { systemPrompt: string }) => applyUpdate(enqueue, context, openingUpdate(context, params))),
    enterPhase: enqueueActions(({ context, enqueue }, params: { phase: Phase }) => applyUpdate(enqueue, context, enterPhaseUpdate(context, params))),
    deliverNotices: enqueueActions(({ context, enqueue }) => applyUpdate(enqueue, context, deliveryUpdate(context))),
    storeView: enqueueActions(({ context, enqueue }, params: { output: ContextOutput }) =>
      applyUpdate(enqueue, context, storeViewUpdate(context, params.output)),
    ),
    applySummary: enqueueActions(({ context, enqueue }, params: { output: SummaryOutput }) =>
      applyUpdate(enqueue, context, summaryUpdate(context, params.output)),
    ),
    countSummaryFailure: enqueueActions(({ context, enqueue }, params: { error: unknown }) =>
      applyUpdate(enqueue, context, summaryFailureUpdate(context, params.error)),
    ),
    forceCompaction: enqueueActions(({ context, enqueue }, params: { error: unknown; share: number }) =>
      applyUpdate(enqueue, context, rejectionUpdate(context, params)),
    ),
    recordReply: enqueueActions(({ context, enqueue }, params: { reply: ModelReply; callIds?: CallIdFormat }) =>
      applyUpdate(enqueue, context, replyUpdate(context, params.reply, params)),
    ),
    recordResults: enqueueActions(({ context, enqueue }, params: { output: ToolsOutput; fold: Omit<FoldRules, 'testCmd'> }) =>
      applyUpdate(enqueue, context, resultsUpdate(context, params.output, params.fold)),
    ),
    refuseFinish: enqueueActions(({ context, enqueue }, params: RefusalParams) => applyUpdate(enqueue, context, refusalUpdate(context, params))),
    acceptFinish: enqueueActions(({ context, enqueue }, params: { gate: boolean }) => applyUpdate(enqueue, context, acceptanceUpdate(context, params))),
    nudge: enqueueActions(({ context, enqueue }, params: NudgeParams) => applyUpdate(enqueue, context, nudgeUpdate(context, params))),
    explainStall: enqueueActions(({ context, enqueue }, params: { maxNudges: number; rules: Array<{ rule: string; limit: number }> }) =>
      applyUpdate(enqueue, context, stallEndUpdate(context, params)),
    ),
    remindToUseTools: enqueueActions(({ context, enqueue }, params: { message: string }) => applyUpdate(enqueue, context, reminderUpdate(context, params))),
    warnBudgets: enqueueActions(({ context, enqueue }, params: { warnings: WarningRule[]; message: string }) => {
      applyUpdate(enqueue, context, warningUpdate(context, dueWarnings(context, params.warnings), params.message));
    }),
    warnTime: enqueueActions(({ context, enqueue }, params: { warning: WarningRule; message: string }) =>
      applyUpdate(enqueue, context, warningUpdate(context, [params.warning], params.message)),
    ),
    // The model actor fails when the endpoint does (after its retries); the tools or context actor only through a bug.
    recordFailure: enqueueActions(({ enqueue }, params: { error: unknown; actor: 'model' | 'tools' | 'contextManager' }) => {
      enqueue.assign({
        reason: params.error instanceof Error ? `${params.error.name}: ${params.error.message}` : String(params.error),
        endedBy: params.actor === 'model' ? 'endpoint' : 'harness',
      });
    }),
    chargeChild: enqueueActions(({ context, enqueue, event }) => applyUpdate(enqueue, context, chargeUpdate(context, event as ChargeEvent))),
    explainEnd: enqueueActions(({ enqueue }, params: { reason: string }) => enqueue.assign({ reason: params.reason, endedBy: 'rule' })),
    endRun: enqueueActions(({ context, enqueue }, params: { status: EndStatus; reason: string; announce?: boolean }) => {
      const reason = context.reason || params.reason;
      enqueue.assign({ status: params.status, reason, view: null });
      // With runEnd hooks the end line waits for them (announceEnd in `ended`), so it stays the trace's last line.
      if (params.announce !== false) enqueue.emit({ type: 'harness.note', note: endNote({ ...context, status: params.status, reason }) });
    }),
    announceEnd: enqueueActions(({ context, enqueue }) => {
      enqueue.emit({ type: 'harness.note', note: endNote(context) });
    }),
    screenCalls: enqueueActions(
      ({ context, enqueue }, params: { policy: ApprovalPolicy; oneAtATime?: boolean; asks?: boolean; verification?: readonly string[] }) =>
        applyUpdate(enqueue, context, screenUpdate(context, params)),
    ),
    recordHookVerdict: enqueueActions(({ context, enqueue }, params: { output: HooksOutput }) =>
      applyUpdate(enqueue, context, hookVerdictUpdate(context, params.output)),
    ),
    holdResults: enqueueActions(({ context, enqueue }, params: { output: ToolsOutput }) => applyUpdate(enqueue, context, holdResultsUpdate(params.output))),
    // The held result, with the postToolUse hooks' notes for the model, is recorded like any other (and no longer held).
    recordHookedResults: enqueueActions(({ context, enqueue }, params: { output: HooksOutput; fold: Omit<FoldRules, 'testCmd'> }) => {
      const update = resultsUpdate(context, withHookNotes(context.heldResults, params.output), params.fold);
      applyUpdate(enqueue, context, { ...update, context: { ...update.context, heldResults: null } });
    }),
    // The hooks actor itself failed (a harness bug, not a hook's failure, which the actor traces): it is traced, never ignored.
    reportHookFailure: enqueueActions(({ context, enqueue }, params: { moment: HookMoment; error: unknown }) =>
      applyUpdate(enqueue, context, { notes: [hookActorFailureNote(context, params)] }),
    ),
    refuseFinishByHook: enqueueActions(({ context, enqueue }, params: RefusalParams & { output: HooksOutput }) =>
      applyUpdate(
        enqueue,
        context,
        refusalUpdate(context, { ...params, refusal: `Finish refused by a beforeFinish hook: ${params.output.message ?? 'no reason given'}` }),
      ),
    ),
    recordAnswer: enqueueActions(({ context, enqueue }, params: { decision: ApprovalDecision }) =>
      applyUpdate(enqueue, context, decisionUpdate(context, params.decision)),
    ),
    // The same update: an answer that does not fit the pending call is recorded as a denial (fail closed).
    refuseMismatchedAnswer: enqueueActions(({ context, enqueue }, params: { decision: ApprovalDecision }) =>
      applyUpdate(enqueue, context, decisionUpdate(context, params.decision)),
    ),
    denyWithoutAnswer: enqueueActions(({ context, enqueue }, params: { error: unknown }) =>
      applyUpdate(enqueue, context, approverFailureUpdate(context, params.error)),
    ),
    // Rule actions a rules file may name on phase entry and exits; rules modules register more.
    notify: enqueueActions(({ context, enqueue }, params: ActionParams) =>
      applyUpdate(enqueue, context, ruleActionUpdate('notify', builtInActions.notify, context, params)),
    ),
    mark: enqueueActions(({ context, enqueue }, params: ActionParams) =>
      applyUpdate(enqueue, context, ruleActionUpdate('mark', builtInActions.mark, context, params)),
    ),
  },
});
