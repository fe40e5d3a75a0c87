import type { Phase, Rules } from '../rules/schema.js';
import { harnessSetup } from './harness-setup.js';
import { awaitingApprovalStates, screenStates } from './phase/approval-states.js';
import { budgetCheckStates, summarizeStates } from './phase/context-states.js';
import { actionRef, routeState, settleState } from './phase/exits.js';
import { gateStates } from './phase/gate-state.js';
import { finishHookStates, phaseHookStates, postToolHookStates, preToolHookStates, settleHookStates } from './phase/hook-states.js';
import { type Naming, named, type PhasePlan, phaseRuleOf, planPhase } from './phase/plan.js';
import { reviewState } from './phase/review-state.js';
import { turnStates } from './phase/turn-states.js';

export type { Naming };

/**
 * The pieces a phase is composed of, each with the condition under which the rules make it possible. The turn
 * cycle's own states are always there; each piece adds its states and is never built when it cannot happen, so the
 * chart shows only what can.
 */
const PIECES: ReadonlyArray<{ when: (plan: PhasePlan) => boolean; states: (plan: PhasePlan) => Record<string, unknown> }> = [
  { when: () => true, states: turnStates },
  { when: (plan) => plan.summarizes, states: summarizeStates },
  { when: (plan) => plan.capped, states: budgetCheckStates },
  { when: (plan) => plan.approves, states: screenStates },
  { when: (plan) => plan.approves && plan.asks, states: awaitingApprovalStates },
  { when: (plan) => plan.hooks.preToolUse, states: preToolHookStates },
  { when: (plan) => plan.hooks.postToolUse, states: postToolHookStates },
  { when: (plan) => plan.hooks.phaseChange && plan.enteredAtObserve, states: phaseHookStates },
  { when: (plan) => plan.hooks.phaseChange && plan.settles, states: settleHookStates },
  { when: (plan) => plan.finishes && plan.hooks.beforeFinish, states: finishHookStates },
  { when: (plan) => plan.finishes, states: gateStates },
  { when: () => true, states: (plan) => ({ review: reviewState(plan), route: routeState(plan) }) },
  { when: (plan) => plan.settles, states: (plan) => ({ settle: settleState(plan) }) },
];

/** The order a phase's states are drawn and listed in: the turn as it happens. */
const STATE_ORDER = [
  'observe',
  'compact',
  'summarize',
  'checkBudget',
  'think',
  'act',
  'postToolHook',
  'phaseHook',
  'settleHook',
  'afterTools',
  'screen',
  'preToolHook',
  'finishHook',
  'awaitingApproval',
  'gate',
  'review',
  'route',
  'settle',
];

/**
 * One phase of the statechart: the turn cycle composed from the pieces the rules make possible (a summary, a budget
 * check, approvals, hooks, the gate, settling), the stall review built from the live stall rules, and the route built
 * from the phase's exits.
 *
 * @example const build = phaseState('build', rules, { guard: (name) => name, action: (name) => name });
 */
export function phaseState(phase: Phase, rules: Rules, naming: Naming) {
  const plan = planPhase(phase, rules, naming);
  const rule = phaseRuleOf(plan);
  const built: Record<string, unknown> = Object.assign({}, ...PIECES.filter((piece) => piece.when(plan)).map((piece) => piece.states(plan)));
  const unplaced = Object.keys(built).filter((name) => !STATE_ORDER.includes(name));
  if (unplaced.length > 0) throw new Error(`phase states with no place in STATE_ORDER: ${unplaced.join(', ')}`);
  const states = Object.fromEntries(STATE_ORDER.filter((name) => name in built).map((name) => [name, built[name]]));
  return harnessSetup.createStateConfig({
    description: rule.description,
    entry: [{ type: 'enterPhase', params: { phase } }, ...rule.onEnter.map((call) => named(actionRef(call, naming)))],
    initial: 'observe',
    // Each piece's states are typed by harnessSetup.createStateConfig where they are built; the union of the present ones is assembled here.
    states: states as never,
  });
}
