import { PHASES, type ActionCall, type Phase, type PhaseExitRule, type PhaseRule, type Rules } from '../rules/schema.js';
import { liveExits, liveStallRules, settleExits, settles, testsCanPassBy } from './rule-usability.js';
import { firstPhase } from './initial-context.js';
import type { ContextInput, ModelInput, SummaryInput, ToolsInput } from './actor-contracts.js';
import { budgetRulesOf, completionAllowance, priceOf } from './budget.js';
import type { EndStatus, HarnessContext, HarnessInput, HarnessOutput } from './types.js';
import type { ChatMessage } from '../context/messages.js';

const ROOT = 'harness';
const at = (state: string) => `#${ROOT}.${state}`;

type Args = { context: HarnessContext };

/**
 * The statechart as data, generated from the rules: one state per enabled
 * phase, each running the same turn cycle, and one final state per way a
 * run ends. Reading a phase's `route` state gives its exit rules in order.
 */
export function buildHarnessConfig(rules: Rules, contextFor: (input: HarnessInput) => HarnessContext) {
  const phases: Record<string, unknown> = {};
  for (const phase of PHASES) {
    if (rules.phases[phase].enabled) phases[phase] = phaseState(phase, rules.phases[phase], rules);
  }
  return {
    id: ROOT,
    description: 'A coding agent harness: phases plan → build → verify → fix, each a turn cycle of context manager, model, tools and review.',
    context: ({ input }: { input: HarnessInput }) => contextFor(input),
    initial: firstPhase(rules),
    entry: ['openRecord', 'startClock'],
    on: {
      // Timers are raised events, not `after`, so a resumed run can re-arm them with the time left.
      'clock.restart': { actions: 'startClock' },
      'clock.warning': { guard: 'timeWarningDue', actions: 'warnTime' },
      'clock.expired': { target: '.timeout' },
    },
    states: {
      ...phases,
      done: finalState('done', rules.verification.gate ? 'The verification gate accepted finish.' : 'The model called finish (the verification gate is off).'),
      step_limit: finalState('step_limit', 'The step budget ran out.'),
      timeout: finalState('timeout', 'The time budget ran out; the call in flight was aborted.'),
      budget: finalState('budget', 'The token or cost budget, or the context window, would be exceeded by the next call.'),
      ...(stallCanEnd(rules) ? { stalled: finalState('stalled', 'A stall persisted after the allowed nudges.') } : {}),
      failed: finalState('failed', 'The model endpoint (or the harness) failed after retries.'),
    },
    output: ({ context }: Args): HarnessOutput => ({
      status: context.status ?? 'failed', steps: context.step, summary: context.summary, usage: context.usage, reason: context.reason,
    }),
  } as const;
}

function stallCanEnd(rules: Rules): boolean {
  return PHASES.some((phase) => rules.phases[phase].enabled && liveStallRules(phase, rules).length > 0);
}

/** Which caps a budget end came from, in the rules' own words. */
function capReason(rules: Rules): string {
  const caps = [
    ...(rules.budgets.maxTokens !== undefined ? [`maxTokens ${rules.budgets.maxTokens}`] : []),
    ...(rules.budgets.maxCostUsd !== undefined ? [`maxCostUsd ${rules.budgets.maxCostUsd}`] : []),
  ];
  return `The next call could exceed the ${caps.length > 0 ? caps.join(' / ') : 'token or cost'} cap, counting its whole prompt as uncached; rein stopped before it.`;
}

function finalState(status: EndStatus, description: string) {
  return { type: 'final', description, entry: { type: 'endRun', params: { status, reason: description } } } as const;
}

function phaseState(phase: Phase, rule: PhaseRule, rules: Rules) {
  // States the rules make unreachable are left out, so the chart shows only what can happen.
  const capped = rules.budgets.maxTokens !== undefined || rules.budgets.maxCostUsd !== undefined;
  const summarizes = rules.context.enabled && rules.context.summarize;
  return {
    description: rule.description,
    entry: [{ type: 'enterPhase', params: { phase } }, ...rule.onEnter.map(ruleAction)],
    initial: 'observe',
    states: {
      observe: {
        description: 'Start of a turn: check the step budget.',
        always: [
          { guard: 'stepLimitReached', target: at('step_limit') },
          { guard: 'stepWarningDue', target: 'compact', actions: 'warnSteps' },
          { target: 'compact' },
        ],
      },
      compact: {
        description: 'Deliver queued notices, then build the working view (stage 1 elision when over the soft limit).',
        entry: 'deliverNotices',
        invoke: {
          id: 'contextManager',
          src: 'contextManager',
          input: ({ context }: Args): ContextInput => ({ contextState: context.contextState, force: context.forceCompaction, overheadTokens: context.overheadTokens }),
          onDone: [
            { guard: 'contextOverflow', target: at('budget'), actions: ['storeView', { type: 'explainEnd', params: { reason: `The context window (${rules.context.windowTokens} tokens) is full and nothing more can be elided or summarized.` } }] },
            ...(summarizes ? [{ guard: 'needsSummary', target: 'summarize', actions: 'storeView' }] : []),
            { target: capped ? 'checkBudget' : 'think', actions: 'storeView' },
          ],
          onError: { target: at('failed'), actions: 'recordFailure' },
        },
      },
      ...(summarizes ? { summarize: {
        description: 'Stage 2: fold the middle of the view into a summary.',
        invoke: {
          id: 'summarizer',
          src: 'summarizer',
          input: ({ context }: Args): SummaryInput => ({ contextState: context.contextState, todo: context.facts.todo }),
          onDone: [
            { guard: 'summaryShrank', target: 'compact', actions: 'applySummary' },
            { target: 'compact', actions: 'countSummaryFailure' },
          ],
          onError: { target: 'compact', actions: 'countSummaryFailure' },
        },
      } } : {}),
      ...(capped ? { checkBudget: {
        description: 'Stop before the call that would exceed the token or cost budget.',
        always: [{ guard: 'budgetExhausted', target: at('budget'), actions: { type: 'explainEnd', params: { reason: capReason(rules) } } }, { target: 'think' }],
      } } : {}),
      think: {
        description: 'Call the model on the working view.',
        invoke: {
          id: 'model',
          src: 'model',
          input: ({ context }: Args): ModelInput => ({
            messages: (context.view?.messages ?? []) as ChatMessage[],
            maxCompletionTokens: completionAllowance(context, budgetRulesOf(rules), priceOf(rules.model.prices, context.model)),
            step: context.step,
          }),
          onDone: [
            { guard: 'hasToolCalls', target: 'act', actions: 'recordReply' },
            { target: 'review', actions: ['recordReply', 'remindToUseTools'] },
          ],
          onError: [
            { guard: 'promptTooLong', target: 'compact', actions: 'forceCompaction' },
            { target: at('failed'), actions: 'recordFailure' },
          ],
        },
      },
      act: {
        description: 'Run the tool calls in order, up to a finish call.',
        invoke: {
          id: 'tools',
          src: 'tools',
          input: ({ context }: Args): ToolsInput => ({
            calls: context.calls.slice(context.cursor), allowed: rule.tools, phase, step: context.step, offset: context.cursor,
          }),
          onDone: { target: 'afterTools', actions: 'recordResults' },
          onError: { target: at('failed'), actions: 'recordFailure' },
        },
      },
      afterTools: {
        description: 'A finish call goes to the gate; other calls keep running.',
        always: [
          { guard: 'finishPending', target: 'gate' },
          // Calls after a finish only run when the gate refused it.
          ...(rules.verification.gate ? [{ guard: 'callsRemaining', target: 'act' }] : []),
          { target: 'review' },
        ],
      },
      gate: gateState(phase, rules),
      review: reviewState(phase, rules),
      route: {
        description: 'Phase exits, in rule order; otherwise another turn in this phase.',
        always: [...routeTransitions(phase, rules), { target: 'observe' }],
      },
      ...(settles(phase, rules) ? { settle: {
        description: 'Entered through an exit: this phase judges the same turn once more (a failing test run sends verify on to fix).',
        always: [...settleExits(phase, rules).map((exit) => exitTransition(exit, 'observe')), { target: 'observe' }],
      } } : {}),
    },
  };
}

function exitTransition({ guard, to, settle: _settle, actions, ...params }: PhaseExitRule, entry: 'settle' | 'observe') {
  return { guard: { type: guard, params }, target: at(`${to}.${entry}`), reenter: true, ...(actions && actions.length > 0 ? { actions: actions.map(ruleAction) } : {}) };
}

/** A rule's action call as a machine action: one named action that looks the rule's action up in the registry. */
function ruleAction({ action, ...params }: ActionCall) {
  return { type: 'runRuleAction', params: { action, params } } as const;
}

/** The route's exits: into the next phase's settle step when the exit asks for it, else its next turn. */
function routeTransitions(phase: Phase, rules: Rules) {
  return liveExits(phase, rules).map((exit) => exitTransition(exit, exit.settle && settles(exit.to, rules) ? 'settle' : 'observe'));
}

function gateState(phase: Phase, rules: Rules) {
  if (!rules.verification.gate) {
    return { description: 'Verification gate off: finish is accepted at once.', always: { target: at('done'), actions: 'acceptFinish' } };
  }
  if (!testsCanPassBy(phase, rules)) {
    return {
      description: 'The verification gate: no test can have run by the time this phase is active, so finish is refused.',
      always: { target: 'afterTools', actions: 'refuseFinish' },
    };
  }
  return {
    description: 'The verification gate: finish only after a passing test run that follows the last edit.',
    always: [
      { guard: 'testsPassedSinceLastEdit', target: at('done'), actions: 'acceptFinish' },
      { target: 'afterTools', actions: 'refuseFinish' },
    ],
  };
}

function reviewState(phase: Phase, rules: Rules) {
  const stall = rules.stall;
  const live = liveStallRules(phase, rules);
  if (live.length === 0) {
    return { description: stall.enabled ? 'No stall rule can fire with this phase\'s tools.' : 'Stall detector off.', always: { target: 'route' } };
  }
  const checks = live.map(({ guard, message: _message, ...params }) => ({ guard, params }));
  return {
    description: 'The stall detector: nudge after all tool results; end the run if a stall persists.',
    always: [
      { guard: { type: 'stallPersists', params: { checks, maxNudges: stall.maxNudges } }, target: at('stalled') },
      ...live.map(({ guard, message, ...params }) => ({
        guard: { type: guard, params },
        target: 'route',
        actions: { type: 'nudge', params: { rule: guard, limit: params.limit, message: rules.phases[phase].nudges[guard] ?? message ?? rules.messages.stall[guard] ?? `Stall detected (${guard}). Do something different.` } },
      })),
      { target: 'route' },
    ],
  };
}
