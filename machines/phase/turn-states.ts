import type { ContextInput, ContextOutput, ModelInput, ToolsInput } from '../actor-contracts.js';
import { deniedCalls, personApprovedCalls, toolBatch } from '../approval-handling.js';
import { completionAllowance } from '../budgets.js';
import { harnessSetup } from '../harness-setup.js';
import type { ToolsOutput } from '../types.js';
import { at, type PhasePlan, phaseRuleOf } from './plan.js';

/**
 * The turn cycle every phase runs, in the states every phase has: `observe` (the budgets), `compact` (notices, then
 * the working view), `think` (the model), `act` (the tools) and `afterTools`. Where a transition leads depends on the
 * pieces the plan says are there: a summary, a budget check, hooks, the approval screen, the gate.
 */
export function turnStates(plan: PhasePlan) {
  return {
    observe: observeState(plan),
    compact: compactState(plan),
    think: thinkState(plan),
    act: actState(plan),
    afterTools: afterToolsState(plan),
  };
}

/** Folding a tool batch's results into the facts. */
const recordResults = (plan: PhasePlan) =>
  ({ type: 'recordResults', params: ({ event }: { event: { output: ToolsOutput } }) => ({ output: event.output, fold: plan.fold }) }) as const;

function observeState(plan: PhasePlan) {
  const { rules, warnings } = plan;
  return harnessSetup.createStateConfig({
    description: 'Start of a turn: check the step budget and the budget warnings.',
    always: [
      ...(plan.reachesStepLimit ? [{ guard: { type: 'stepLimitReached', params: { max: rules.budgets.maxSteps } }, target: at('step_limit') } as const] : []),
      ...(plan.reachesStepWarning
        ? [
            {
              guard: { type: 'budgetWarningDue', params: { warnings } },
              target: 'compact',
              actions: { type: 'warnBudgets', params: { warnings, message: rules.messages.budgetWarning } },
            } as const,
          ]
        : []),
      { target: 'compact' },
    ],
  });
}

function compactState(plan: PhasePlan) {
  const { rules } = plan;
  return harnessSetup.createStateConfig({
    description: 'Deliver queued notices, then build the working view (stage 1 elision when over the soft limit).',
    entry: 'deliverNotices',
    invoke: {
      id: 'contextManager',
      src: 'contextManager',
      input: ({ context }): ContextInput => ({ contextState: context.contextState, force: context.forceCompaction, overheadTokens: context.overheadTokens }),
      onDone: [
        {
          guard: { type: 'contextOverflow', params: ({ event }) => ({ output: event.output }) },
          target: at('budget'),
          actions: [
            { type: 'storeView', params: ({ event }) => ({ output: event.output }) },
            {
              type: 'explainEnd',
              params: { reason: `The context window (${rules.context.windowTokens} tokens) is full and nothing more can be elided or summarized.` },
            },
          ],
        },
        ...(plan.summarizes
          ? [
              {
                guard: { type: 'needsSummary', params: ({ event }: { event: { output: ContextOutput } }) => ({ output: event.output }) },
                target: 'summarize',
                actions: { type: 'storeView', params: ({ event }: { event: { output: ContextOutput } }) => ({ output: event.output }) },
              } as const,
            ]
          : []),
        { target: plan.capped ? 'checkBudget' : 'think', actions: { type: 'storeView', params: ({ event }) => ({ output: event.output }) } },
      ],
      onError: { target: at('failed'), actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error, actor: 'contextManager' as const }) } },
    },
  });
}

function thinkState(plan: PhasePlan) {
  const { rules, caps } = plan;
  return harnessSetup.createStateConfig({
    description: 'Call the model on the working view.',
    invoke: {
      id: 'model',
      src: 'model',
      input: ({ context }): ModelInput => ({
        // Stryker disable next-line OptionalChaining,ArrayDeclaration: think is entered only through compact's storeView (directly or by checkBudget), and a resumed run restarts at act, so the view is never null here
        messages: context.view?.messages ?? [],
        maxCompletionTokens: completionAllowance(context, caps, context.price),
        step: context.step,
      }),
      onDone: [
        {
          guard: { type: 'hasToolCalls', params: ({ event }) => ({ reply: event.output }) },
          target: plan.runCalls,
          actions: { type: 'recordReply', params: ({ event }) => ({ reply: event.output, callIds: rules.model.toolCallIds }) },
        },
        { target: 'review', actions: { type: 'recordReply', params: ({ event }) => ({ reply: event.output, callIds: rules.model.toolCallIds }) } },
      ],
      onError: [
        {
          guard: { type: 'promptTooLong', params: ({ event }) => ({ error: event.error, maxRejections: rules.context.maxPromptRejections }) },
          target: 'compact',
          actions: { type: 'forceCompaction', params: ({ event }) => ({ error: event.error, share: rules.context.rejectedPromptShare }) },
        },
        { target: at('failed'), actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error, actor: 'model' as const }) } },
      ],
    },
  });
}

function actState(plan: PhasePlan) {
  const { phase, batch, approves } = plan;
  return harnessSetup.createStateConfig({
    description: 'Run the tool calls in order, up to a finish call.',
    // The model has replied and its calls are about to run: the run's state is saved here, once a step.
    tags: ['checkpoint'],
    invoke: {
      id: 'tools',
      src: 'tools',
      input: ({ context }): ToolsInput => ({
        // With approvals, only up to the next call that waits for an answer; with postToolUse hooks, one call.
        calls: toolBatch(context, batch),
        allowed: phaseRuleOf(plan).tools,
        ...(plan.placedElsewhere.length > 0 ? { placedElsewhere: plan.placedElsewhere } : {}),
        phase,
        step: context.step,
        offset: context.cursor,
        ...(approves ? { denied: deniedCalls(context), approvals: plan.policy, approvedByPerson: personApprovedCalls(context) } : {}),
      }),
      onDone: [
        ...(plan.hooks.postToolUse
          ? [
              {
                guard: { type: 'callsRan', params: ({ event }: { event: { output: ToolsOutput } }) => ({ output: event.output }) },
                target: 'postToolHook',
                actions: { type: 'holdResults', params: ({ event }: { event: { output: ToolsOutput } }) => ({ output: event.output }) },
              } as const,
            ]
          : []),
        { target: 'afterTools', actions: recordResults(plan) },
      ],
      onError: { target: at('failed'), actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error, actor: 'tools' as const }) } },
    },
  });
}

function afterToolsState(plan: PhasePlan) {
  return harnessSetup.createStateConfig({
    description: plan.finishes ? 'A finish call goes to the gate; other calls keep running.' : 'The tool calls ran (this phase does not allow finish).',
    always: [
      ...(plan.finishes ? [{ guard: 'finishPending', target: plan.hooks.beforeFinish ? 'finishHook' : 'gate' } as const] : []),
      // Calls after a finish only run when the gate refused it (or, with approvals, after the call that waited).
      ...(plan.callsCanRemain ? [{ guard: 'callsRemaining', target: plan.runCalls } as const] : []),
      { target: 'review' },
    ],
  });
}
