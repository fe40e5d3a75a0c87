import { and, not, or } from 'xstate';
import { approvalPolicyOf } from '../rules/approvals/policy.js';
import { type ActionCall, type Condition, EXIT_FIELDS, isEndTarget, type Phase, type PhaseExitRule, phaseRule, type Rules } from '../rules/schema.js';
import type { ApproverInput, ContextInput, HooksInput, ModelInput, SummaryInput, ToolsInput } from './actor-contracts.js';
import { batchRulesOf, deniedCalls, toolBatch } from './approval-handling.js';
import { budgetCapsOf, capReason, completionAllowance, warningRulesOf } from './budgets.js';
import { GATE_GUARD, gateCondition, refusalParams } from './gate.js';
import { guardParams, isBuiltInGuard } from './guards/catalogue.js';
import { harnessSetup } from './harness-setup.js';
import { hookFailure, hookInputFor, hookMomentsOf, phaseChangeInput, postToolInput } from './hook-handling.js';
import { enteredAtObserve, liveExits, liveStallRules, phaseTools, settleExits, settles, stallCanEnd, stepCap, testsCanPassBy } from './phase-exits.js';
import { nudgeText } from './stall/review.js';
import type { ToolsOutput } from './types.js';
import { verificationOf } from './verification.js';

/** How the machine names a guard or action a rules file may have replaced: `<name> (overridden)` then. */
export interface Naming {
  guard(name: string): string;
  action(name: string): string;
}

const ROOT = 'harness';
const at = (state: string) => `#${ROOT}.${state}` as const;

/**
 * A guard or action that the rules name (an exit's condition, a stall rule,
 * a rule action): its name is checked when the rules load (`rules-check.ts`),
 * not by `tsc`, so these are the only places the typed state configs take
 * any name. Everything else in a phase is checked against `harnessSetup`.
 */
const named = (ref: unknown) => ref as never;

/**
 * One phase of the statechart: the turn cycle, with the states the rules
 * make possible (summarize, checkBudget, settle), the stall review built from
 * the live stall rules, and the route built from the phase's exits.
 */
export function phaseState(phase: Phase, rules: Rules, naming: Naming) {
  const caps = budgetCapsOf(rules);
  const capped = caps.maxTokens !== undefined || caps.maxCostUsd !== undefined;
  const summarizes = rules.context.enabled && rules.context.summarize;
  const fold = { verification: verificationOf(rules) };
  const warnings = warningRulesOf(rules).perTurn;
  const policy = approvalPolicyOf(phase, rules);
  const hooks = hookMomentsOf(rules);
  const preHooks = hooks.preToolUse;
  const finishHooks = hooks.beforeFinish;
  const batch = batchRulesOf(phase, rules);
  const { approves } = batch;
  const runCalls = preHooks ? 'preToolHook' : approves ? 'screen' : 'act';
  const recordResults = { type: 'recordResults', params: ({ event }: { event: { output: ToolsOutput } }) => ({ output: event.output, fold }) } as const;
  const config = harnessSetup.createStateConfig({
    description: phaseRule(rules, phase).description,
    entry: [{ type: 'enterPhase', params: { phase } }, ...phaseRule(rules, phase).onEnter.map((call) => named(actionRef(call, naming)))],
    initial: 'observe',
    states: {
      observe: {
        description: 'Start of a turn: check the step budget and the budget warnings.',
        always: [
          { guard: { type: 'stepLimitReached', params: { max: rules.budgets.maxSteps } }, target: at('step_limit') },
          {
            guard: { type: 'budgetWarningDue', params: { warnings } },
            target: 'compact',
            actions: { type: 'warnBudgets', params: { warnings, message: rules.messages.budgetWarning } },
          },
          { target: 'compact' },
        ],
      },
      compact: {
        description: 'Deliver queued notices, then build the working view (stage 1 elision when over the soft limit).',
        entry: 'deliverNotices',
        invoke: {
          id: 'contextManager',
          src: 'contextManager',
          input: ({ context }): ContextInput => ({
            contextState: context.contextState,
            force: context.forceCompaction,
            overheadTokens: context.overheadTokens,
          }),
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
            {
              guard: { type: 'needsSummary', params: ({ event }) => ({ output: event.output }) },
              target: 'summarize',
              actions: { type: 'storeView', params: ({ event }) => ({ output: event.output }) },
            },
            { target: capped ? 'checkBudget' : 'think', actions: { type: 'storeView', params: ({ event }) => ({ output: event.output }) } },
          ],
          onError: { target: at('failed'), actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) } },
        },
      },
      summarize: {
        description: 'Stage 2: fold the middle of the view into a summary.',
        invoke: {
          id: 'summarizer',
          src: 'summarizer',
          input: ({ context }): SummaryInput => ({ contextState: context.contextState, todo: context.facts.todo }),
          onDone: [
            {
              guard: { type: 'summaryShrank', params: ({ event }) => ({ output: event.output }) },
              target: 'compact',
              actions: { type: 'applySummary', params: ({ event }) => ({ output: event.output }) },
            },
            { target: 'compact', actions: { type: 'countSummaryFailure', params: { error: 'the summary did not shrink the view' } } },
          ],
          onError: { target: 'compact', actions: { type: 'countSummaryFailure', params: ({ event }) => ({ error: event.error }) } },
        },
      },
      checkBudget: {
        description: 'Stop before the call that would exceed the token or cost budget.',
        always: [
          { guard: { type: 'budgetSpent', params: { caps } }, target: at('budget'), actions: { type: 'explainEnd', params: { reason: capReason(caps) } } },
          { target: 'think' },
        ],
      },
      think: {
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
              target: runCalls,
              actions: { type: 'recordReply', params: ({ event }) => ({ reply: event.output }) },
            },
            { target: 'review', actions: { type: 'recordReply', params: ({ event }) => ({ reply: event.output }) } },
          ],
          onError: [
            {
              guard: { type: 'promptTooLong', params: ({ event }) => ({ error: event.error, maxRejections: rules.context.maxPromptRejections }) },
              target: 'compact',
              actions: { type: 'forceCompaction', params: ({ event }) => ({ error: event.error, share: rules.context.rejectedPromptShare }) },
            },
            { target: at('failed'), actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) } },
          ],
        },
      },
      act: {
        description: 'Run the tool calls in order, up to a finish call.',
        // The model has replied and its calls are about to run: the run's state is saved here, once a step.
        tags: ['checkpoint'],
        invoke: {
          id: 'tools',
          src: 'tools',
          input: ({ context }): ToolsInput => ({
            // With approvals, only up to the next call that waits for an answer; with postToolUse hooks, one call.
            calls: toolBatch(context, batch),
            allowed: phaseRule(rules, phase).tools,
            phase,
            step: context.step,
            offset: context.cursor,
            ...(approves ? { denied: deniedCalls(context) } : {}),
          }),
          onDone: [
            {
              guard: { type: 'callsRan', params: ({ event }) => ({ output: event.output }) },
              target: 'postToolHook',
              actions: { type: 'holdResults', params: ({ event }) => ({ output: event.output }) },
            },
            { target: 'afterTools', actions: recordResults },
          ],
          onError: { target: at('failed'), actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) } },
        },
      },
      postToolHook: {
        description: 'Run the postToolUse hooks on the call that just ran: their notes are added to its result for the model; a failure is traced.',
        invoke: {
          id: 'postToolHook',
          src: 'hooks',
          input: ({ context }): HooksInput => postToolInput(context),
          onDone: { target: 'afterTools', actions: { type: 'recordHookedResults', params: ({ event }) => ({ output: event.output, fold }) } },
          onError: {
            target: 'afterTools',
            actions: [
              { type: 'reportHookFailure', params: ({ event }) => ({ moment: 'postToolUse' as const, error: event.error }) },
              { type: 'recordHookedResults', params: { output: { decision: null, notes: [] }, fold } },
            ],
          },
        },
      },
      phaseHook: phaseHookState(phase, 'observe'),
      settleHook: phaseHookState(phase, 'settle'),
      afterTools: {
        description: 'A finish call goes to the gate; other calls keep running.',
        always: [
          { guard: 'finishPending', target: finishHooks ? 'finishHook' : 'gate' },
          // Calls after a finish only run when the gate refused it (or, with approvals, after the call that waited).
          { guard: 'callsRemaining', target: runCalls },
          { target: 'review' },
        ],
      },
      screen: {
        description:
          'Judge the next calls by the approval rules (deny, remembered, ask, allow, default): denied ones are answered with the denial, the first that needs an answer waits.',
        entry: { type: 'screenCalls', params: { policy, oneAtATime: preHooks } },
        always: [{ guard: 'approvalPending', target: 'awaitingApproval' }, { target: 'act' }],
      },
      preToolHook: {
        description: 'Run the preToolUse hooks on the next call: they may allow, deny or ask; a hook that crashes or times out denies.',
        invoke: {
          id: 'preToolHook',
          src: 'hooks',
          input: ({ context }): HooksInput => hookInputFor(context, 'preToolUse'),
          onDone: { target: 'screen', actions: { type: 'recordHookVerdict', params: ({ event }) => ({ output: event.output }) } },
          onError: { target: 'screen', actions: { type: 'recordHookVerdict', params: ({ event }) => ({ output: hookFailure(event.error) }) } },
        },
      },
      finishHook: {
        description:
          'Run the beforeFinish hooks: a denial (or a hook that crashes or times out) refuses the finish with its reason; otherwise the gate judges.',
        invoke: {
          id: 'finishHook',
          src: 'hooks',
          input: ({ context }): HooksInput => hookInputFor(context, 'beforeFinish'),
          onDone: [
            {
              guard: { type: 'hookDeniedFinish', params: ({ event }) => ({ output: event.output }) },
              target: 'afterTools',
              actions: { type: 'refuseFinishByHook', params: ({ event }) => ({ ...refusalParams(rules), guard: 'beforeFinish hook', output: event.output }) },
            },
            { target: 'gate' },
          ],
          onError: {
            target: 'afterTools',
            actions: {
              type: 'refuseFinishByHook',
              params: ({ event }) => ({ ...refusalParams(rules), guard: 'beforeFinish hook', output: hookFailure(event.error) }),
            },
          },
        },
      },
      awaitingApproval: {
        description: `A call waits for an answer (terminal, page, rein approve, a hook or the headless policy); the request is saved first, so a killed run waits again on resume. No answer in ${rules.approvals.timeoutSeconds} s counts as deny.`,
        // The pending request is in the saved state before anyone is asked.
        tags: ['checkpoint'],
        invoke: {
          id: 'approver',
          src: 'approver',
          // Stryker disable next-line all: awaitingApproval is entered only when screen set a pending call (approvalPending)
          input: ({ context }): ApproverInput => ({ pending: context.approvals.pending!, timeoutMs: rules.approvals.timeoutSeconds * 1000 }),
          onDone: [
            {
              guard: { type: 'answerFitsPending', params: ({ event }) => ({ decision: event.output }) },
              target: 'screen',
              actions: { type: 'recordAnswer', params: ({ event }) => ({ decision: event.output }) },
            },
            { target: 'screen', actions: { type: 'refuseMismatchedAnswer', params: ({ event }) => ({ decision: event.output }) } },
          ],
          onError: { target: 'screen', actions: { type: 'denyWithoutAnswer', params: ({ event }) => ({ error: event.error }) } },
        },
      },
      gate: gateState(phase, rules, naming),
      review: reviewState(phase, rules, naming),
      route: {
        description: 'Phase exits, in rule order; otherwise another turn in this phase.',
        always: [...liveExits(phase, rules).map((exit) => named(exitTransition(exit, phase, rules, naming))), { target: 'observe' }],
      },
      settle: {
        description: 'Entered through an exit: this phase judges the same turn once more (a failing test run sends verify on to fix).',
        always: [
          // Stryker disable next-line StringLiteral: exitTransition only compares from with 'route' (a settle entry); any other value, '' too, enters the next phase at observe
          ...settleExits(phase, rules).map((exit) => named(exitTransition(exit, phase, rules, naming, 'observe'))),
          { target: 'observe' },
        ],
      },
    },
  });
  // States and transitions the rules make impossible are left out, so the chart shows only what can happen.
  const { states } = config;
  if (!summarizes) {
    delete (states as Partial<typeof states>).summarize;
    states.compact.invoke.onDone.splice(1, 1);
  }
  if (!capped) delete (states as Partial<typeof states>).checkBudget;
  if (!approves) {
    delete (states as Partial<typeof states>).screen;
    delete (states as Partial<typeof states>).awaitingApproval;
  }
  if (!preHooks) delete (states as Partial<typeof states>).preToolHook;
  if (!hooks.postToolUse) {
    delete (states as Partial<typeof states>).postToolHook;
    states.act.invoke.onDone.splice(0, 1);
  }
  if (!hooks.phaseChange || !enteredAtObserve(phase, rules)) delete (states as Partial<typeof states>).phaseHook;
  if (!hooks.phaseChange || !settles(phase, rules)) delete (states as Partial<typeof states>).settleHook;
  if (!finishHooks || !phaseTools(phase, rules).includes('finish')) delete (states as Partial<typeof states>).finishHook;
  if (!phaseTools(phase, rules).includes('finish')) {
    // finish is refused by the tool runner like any tool the phase leaves out: no gate here; calls left over are only those held for an approval.
    delete (states as Partial<typeof states>).gate;
    states.afterTools.always.splice(0, approves ? 1 : 2);
    states.afterTools.description = 'The tool calls ran (this phase does not allow finish).';
  } else if (!rules.verification.gate && !approves) states.afterTools.always.splice(1, 1);
  if (!settles(phase, rules)) delete (states as Partial<typeof states>).settle;
  // A phase that can only take a few steps (maxSteps, entered once) never reaches the step budget or its warning there.
  const cap = stepCap(phase, rules);
  const warnStep = Math.ceil(rules.budgets.maxSteps * (rules.budgets.stepWarnAt ?? rules.budgets.warnAt));
  if (cap <= warnStep && warnings.length === 1) states.observe.always.splice(1, 1);
  if (cap <= rules.budgets.maxSteps) states.observe.always.splice(0, 1);
  return config;
}

/** A phase entered from another: its phaseChange hooks are told, then the phase starts a turn (observe) or judges the entering one (settle). */
function phaseHookState(phase: Phase, next: 'observe' | 'settle') {
  return harnessSetup.createStateConfig({
    description:
      next === 'settle'
        ? 'Entered through a settle exit: run the phaseChange hooks (their answer changes nothing; a failure is traced), then settle.'
        : 'Entered from another phase: run the phaseChange hooks (their answer changes nothing; a failure is traced).',
    invoke: {
      id: 'phaseHook',
      src: 'hooks',
      input: ({ context }): HooksInput => phaseChangeInput(context, { to: phase }),
      onDone: { target: next },
      onError: { target: next, actions: { type: 'reportHookFailure', params: ({ event }) => ({ moment: 'phaseChange' as const, error: event.error }) } },
    },
  });
}

function gateState(phase: Phase, rules: Rules, naming: Naming) {
  if (!rules.verification.gate) {
    return harnessSetup.createStateConfig({
      description: 'Verification gate off: finish is accepted at once.',
      always: { target: at('done'), actions: { type: 'acceptFinish', params: { gate: false } } },
    });
  }
  const refusal = refusalParams(rules, naming.guard);
  if (!gateCanAccept(phase, rules)) {
    return harnessSetup.createStateConfig({
      description: 'The verification gate: no test can have run by the time this phase is active, so finish is refused.',
      always: { target: 'afterTools', actions: { type: 'refuseFinish', params: refusal } },
    });
  }
  return harnessSetup.createStateConfig({
    description: rules.verification.when
      ? "The verification gate: finish only when the gate's condition (verification.when) holds."
      : 'The verification gate: finish only after the test command (and any other check) has passed since the last edit.',
    always: [
      { guard: named(conditionGuard(gateCondition(rules), naming)), target: at('done'), actions: { type: 'acceptFinish', params: { gate: true } } },
      { target: 'afterTools', actions: { type: 'refuseFinish', params: refusal } },
    ],
  });
}

/** Whether the gate's condition can hold in this phase: the test guard only once a test can have passed by then (other facts are the run's). */
function gateCanAccept(phase: Phase, rules: Rules): boolean {
  const canHold = (condition: Condition): boolean => {
    if (condition.all) return condition.all.every(canHold);
    if (condition.any) return condition.any.some(canHold);
    if (condition.not) return true;
    return condition.guard !== GATE_GUARD || testsCanPassBy(phase, rules);
  };
  return canHold(gateCondition(rules));
}

function reviewState(phase: Phase, rules: Rules, naming: Naming) {
  const live = liveStallRules(phase, rules);
  const reminder = {
    guard: 'repliedWithoutTools',
    target: 'route',
    actions: { type: 'remindToUseTools', params: { message: rules.messages.noToolCall } },
  } as const;
  if (live.length === 0) {
    return harnessSetup.createStateConfig({
      description: rules.stall.enabled
        ? "No stall rule can fire with this phase's tools; a reply without a tool call gets a reminder."
        : 'Stall detector off; a reply without a tool call gets a reminder.',
      always: [reminder, { target: 'route' }],
    });
  }
  const { maxNudges } = rules.stall;
  const builtIn = live.filter((rule) => isBuiltInGuard(rule.guard) && naming.guard(rule.guard) === rule.guard);
  const custom = live.filter((rule) => !builtIn.includes(rule));
  const explain = { type: 'explainStall', params: { maxNudges, rules: live.map((rule) => ({ rule: rule.guard, limit: rule.limit })) } } as const;
  // A stall ends the run only after maxNudges nudges, one a turn: a phase with fewer steps than that never sees it.
  const ends = stallCanEnd(phase, rules);
  const limits = Object.fromEntries(live.map((rule) => [rule.guard, rule.limit]));
  return harnessSetup.createStateConfig({
    description: ends
      ? `The stall detector: nudge after all tool results; a stall that holds again after ${maxNudges} nudges with nothing new ends the run.`
      : 'The stall detector: nudge after all tool results (stall.onPersist is nudge: a stall never ends the run).',
    always: [
      ...(ends && builtIn.length > 0
        ? [
            {
              guard: { type: 'stallPersists', params: { maxNudges, rules: builtIn.map((rule) => ({ rule: rule.guard, limit: rule.limit })) } },
              target: at('stalled'),
              actions: explain,
            } as const,
          ]
        : []),
      ...(ends
        ? custom.map((rule) => ({
            guard: named(
              and([
                { type: 'nudgedOut', params: { rule: rule.guard, maxNudges } },
                { type: naming.guard(rule.guard), params: stallParams(rule) },
                // and()/or() are typed by one setup()'s guards; rule-built references are checked by rules-check before the machine is built.
              ] as never),
            ),
            target: at('stalled'),
            actions: explain,
          }))
        : []),
      ...live.map(
        (rule) =>
          ({
            guard: named({ type: naming.guard(rule.guard), params: stallParams(rule) }),
            target: 'route',
            actions: { type: 'nudge', params: { rule: rule.guard, limit: rule.limit, message: nudgeText(phase, rule, rules), maxNudges, limits } },
          }) as const,
      ),
      reminder,
      { target: 'route' },
    ],
  });
}

function stallParams({ guard: _guard, message: _message, ...params }: Rules['stall']['rules'][number]): Record<string, unknown> {
  return params;
}

const EXIT_KEYS = new Set(EXIT_FIELDS);

/** A condition as an XState guard: a named guard with its parameters, or `and`/`or`/`not` of conditions. */
export function conditionGuard(condition: Condition, naming: Naming): unknown {
  // The same: combinator parts built from rules, checked by rules-check.
  if (condition.all) return and(condition.all.map((part) => conditionGuard(part, naming)) as never);
  if (condition.any) return or(condition.any.map((part) => conditionGuard(part, naming)) as never);
  if (condition.not) return not(conditionGuard(condition.not, naming) as never);
  const name = condition.guard!;
  const raw = Object.fromEntries(Object.entries(condition).filter(([key]) => !EXIT_KEYS.has(key)));
  return { type: naming.guard(name), params: naming.guard(name) === name ? guardParams(name, raw) : raw };
}

function exitTransition(exit: PhaseExitRule, phase: Phase, rules: Rules, naming: Naming, from: 'route' | 'observe' = 'route') {
  // Stryker disable next-line ArrayDeclaration: a stray entry becomes an action without a type, which XState skips and the trace and the chart drop as unnamed
  const actions: unknown[] = (exit.actions ?? []).map((call) => actionRef(call, naming));
  if (isEndTarget(exit.to)) {
    actions.push({ type: 'explainEnd', params: { reason: exit.reason ?? `An exit rule of the ${phase} phase ended the run (to ${exit.to}).` } });
    return { guard: conditionGuard(exit, naming), target: at(exit.to), actions };
  }
  // An exit into its own phase targets the phase itself, so XState leaves and enters it again (entry actions, phase
  // counters); a target inside the phase would only move between its children. It starts at observe, never settles.
  const settling = from === 'route' && exit.settle && settles(exit.to, rules);
  const hooked = rules.hooks.phaseChange.length > 0;
  const entry = settling ? (hooked ? 'settleHook' : 'settle') : hooked ? 'phaseHook' : 'observe';
  const target = exit.to === phase ? at(exit.to) : at(`${exit.to}.${entry}`);
  return { guard: conditionGuard(exit, naming), target, actions };
}

/** A rule's action call as a machine action: named after the action, with its parameters. */
function actionRef({ action, ...params }: ActionCall, naming: Naming) {
  return { type: naming.action(action), params };
}
