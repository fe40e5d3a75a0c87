import { and, not, or } from 'xstate';
import { type ActionCall, type Condition, EXIT_FIELDS, isEndTarget, type Phase, type PhaseExitRule, type Rules } from '../../rules/schema.js';
import { guardParams } from '../guards/catalogue.js';
import { harnessSetup } from '../harness-setup.js';
import { liveExits, settleExits, settles } from '../phase-exits.js';
import { at, type Naming, named, type PhasePlan } from './plan.js';

/** `route`: the phase's exits, in rule order; otherwise another turn in this phase. */
export function routeState(plan: PhasePlan) {
  const { phase, rules, naming } = plan;
  return harnessSetup.createStateConfig({
    description: 'Phase exits, in rule order; otherwise another turn in this phase.',
    always: [...liveExits(phase, rules).map((exit) => named(exitTransition(exit, { phase, rules, naming }))), { target: 'observe' }],
  });
}

/** `settle`: entered through an exit marked settle, the phase judges the entering turn once more. */
export function settleState(plan: PhasePlan) {
  const { phase, rules, naming } = plan;
  return harnessSetup.createStateConfig({
    description: 'Entered through an exit: this phase judges the same turn once more (a failing test run sends verify on to fix).',
    always: [...settleExits(phase, rules).map((exit) => named(exitTransition(exit, { phase, rules, naming }, 'observe'))), { target: 'observe' }],
  });
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

function exitTransition(exit: PhaseExitRule, where: { phase: Phase; rules: Rules; naming: Naming }, from: 'route' | 'observe' = 'route') {
  const { phase, rules, naming } = where;
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
export function actionRef({ action, ...params }: ActionCall, naming: Naming) {
  return { type: naming.action(action), params };
}
