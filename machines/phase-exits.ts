import { type Condition, enabledPhases, isEnabledPhase, isEndTarget, type Phase, type PhaseExitRule, phaseRule, type Rules } from '../rules/schema.js';
import { phaseAllowsTool } from '../rules/tool-placement.js';
import { BUILT_IN_GUARDS, isBuiltInGuard } from './guards/catalogue.js';
import { firstPhase } from './initial-context.js';

/**
 * Which exits and stall rules can ever fire in a phase under the rules. The
 * machine builder leaves out the ones that cannot (a tool the phase cannot
 * call, a gate that is off, a phase that is disabled), so the chart shows
 * only what can happen and model-based coverage can demand every edge.
 */

/** Tools the model can actually call in a phase: the run's tool surface narrowed by the phase rule. */
export function phaseTools(phase: Phase, rules: Rules): string[] {
  return rules.tools.enabled.filter((name) => phaseAllowsTool(rules, phase, name));
}

/** Whether a guard can ever hold in this phase. Guards registered from code declare no needs and always count. */
export function guardCanHold(guard: string, phase: Phase, rules: Rules): boolean {
  if (!isBuiltInGuard(guard)) return true;
  const needs = BUILT_IN_GUARDS[guard].needs;
  if (!needs) return true;
  const tools = phaseTools(phase, rules);
  if (needs.gate && !rules.verification.gate) return false;
  if (needs.tools && !needs.tools.some((tool) => tools.includes(tool))) return false;
  if (needs.edits && !tools.includes('edit_file') && !(rules.verification.commandsCountAsEdits && tools.includes('run'))) return false;
  return true;
}

/** Whether a condition can ever hold in this phase. */
export function canHold(condition: Condition, phase: Phase, rules: Rules): boolean {
  if (condition.guard !== undefined) return guardCanHold(condition.guard, phase, rules);
  if (condition.all) return condition.all.every((part) => canHold(part, phase, rules));
  if (condition.any) return condition.any.some((part) => canHold(part, phase, rules));
  // A negation (the one form left): it holds whenever what it negates fails.
  return true;
}

/** Whether a condition looks only at what happened since the phase began (so it cannot hold on the turn that entered it). */
export function isPhaseRelative(condition: Condition): boolean {
  const { guard } = condition;
  if (guard !== undefined) return isBuiltInGuard(guard) && BUILT_IN_GUARDS[guard].needs?.phaseRelative === true;
  if (condition.all) return condition.all.some(isPhaseRelative);
  if (condition.any) return condition.any.every(isPhaseRelative);
  // A negation (the one form left) holds when its part does not, which a phase's start does not decide.
  return false;
}

/** A phase's exits in order, its step limit first (`maxSteps` is an exit on `phaseSteps`). */
export function phaseExits(phase: Phase, rules: Rules): PhaseExitRule[] {
  const rule = phaseRule(rules, phase);
  if (rule.maxSteps === undefined) return rule.exits;
  const to = rule.onMaxSteps ?? 'step_limit';
  const limit: PhaseExitRule = {
    guard: 'phaseSteps',
    min: rule.maxSteps,
    to,
    ...(!isEndTarget(to) ? {} : { reason: `The ${phase} phase took its ${rule.maxSteps} steps (phases.${phase}.maxSteps).` }),
  };
  return [limit, ...rule.exits];
}

/** A phase's exits that can be taken: to an enabled phase or a final state, with a condition that can hold. */
export function liveExits(phase: Phase, rules: Rules): PhaseExitRule[] {
  return phaseExits(phase, rules).filter((exit) => (isEndTarget(exit.to) || isEnabledPhase(rules, exit.to)) && canHold(exit, phase, rules));
}

/** Exits that can hold on the very turn that entered the phase (not tied to the phase's own start). */
export function settleExits(phase: Phase, rules: Rules): PhaseExitRule[] {
  return liveExits(phase, rules).filter((exit) => !isPhaseRelative(exit));
}

/**
 * A phase re-judges its entering turn when some exit from another phase into it asks to settle and it has exits that
 * could hold then (an exit into its own phase enters it afresh, at the start of a turn).
 */
export function settles(phase: Phase, rules: Rules): boolean {
  const entered = enabledPhases(rules).some((other) => other !== phase && liveExits(other, rules).some((exit) => exit.to === phase && exit.settle));
  return entered && settleExits(phase, rules).length > 0;
}

/**
 * Whether a passing test run can exist while this phase is active: the phase
 * may run commands, or some other phase (which could have) leads into it.
 * Otherwise the gate can only refuse there (a strict plan phase).
 */
export function testsCanPassBy(phase: Phase, rules: Rules): boolean {
  return phaseTools(phase, rules).includes('run') || enteredFromElsewhere(phase, rules);
}

/** Whether another enabled phase has an exit that can be taken into this one. */
export function enteredFromElsewhere(phase: Phase, rules: Rules): boolean {
  return enabledPhases(rules).some((other) => other !== phase && liveExits(other, rules).some((exit) => exit.to === phase));
}

/** The stall rules that can fire in a phase, with the phase's own limits (`phases.<phase>.stallLimits`; `off` or 0 leaves a rule out there). */
export function liveStallRules(phase: Phase, rules: Rules): Rules['stall']['rules'] {
  if (!rules.stall.enabled) return [];
  const limits = phaseRule(rules, phase).stallLimits;
  const isOff = (limit: number | 'off' | undefined) => limit === 'off' || limit === 0;
  return rules.stall.rules
    .filter((rule) => guardCanHold(rule.guard, phase, rules) && !isOff(limits[rule.guard]))
    .map((rule) => {
      const limit = limits[rule.guard];
      return typeof limit === 'number' ? { ...rule, limit } : rule;
    });
}

/** The final states some exit of an enabled phase leads to. */
export function endTargets(rules: Rules): Set<string> {
  const targets = new Set<string>();
  for (const phase of enabledPhases(rules)) for (const exit of liveExits(phase, rules)) if (isEndTarget(exit.to)) targets.add(exit.to);
  return targets;
}

/**
 * The most steps a run can have taken while in this phase: its `maxSteps`
 * (or an exit on `phaseSteps` alone) when it is only ever the phase a run
 * starts in (no exit leads back into it), unbounded otherwise. The builder leaves out what needs more steps
 * there (the step budget's end, its warning, a stall outlasting its nudges).
 */
export function stepCap(phase: Phase, rules: Rules): number {
  // Any exit that holds leaves the phase, so an exit on phaseSteps alone (maxSteps is one) bounds its steps.
  if (phase !== firstPhase(rules) || enteredFromElsewhere(phase, rules)) return Number.POSITIVE_INFINITY;
  const bounds = liveExits(phase, rules)
    .filter(
      (exit) =>
        exit.guard === 'phaseSteps' &&
        exit.to !== phase &&
        // Stryker disable next-line ConditionalExpression: the rules check rejects a phaseSteps exit without a numeric min before a machine is built
        typeof exit.min === 'number',
    )
    .map((exit) => exit.min as number);
  // No bound: Math.min() of nothing is Infinity.
  return Math.min(...bounds);
}

/** Whether a stall can end the run in this phase: stall.onPersist is `end`, a rule can fire, and the phase lasts long enough to outlast the nudges. */
export function stallCanEnd(phase: Phase, rules: Rules): boolean {
  return rules.stall.onPersist === 'end' && liveStallRules(phase, rules).length > 0 && stepCap(phase, rules) > rules.stall.maxNudges;
}

/**
 * Whether another phase's exit enters this phase at the start of a turn (not through its settle state): from a
 * route, an exit that does not settle here; from a settle state, any exit. Such a phase has a phaseHook state.
 */
export function enteredAtObserve(phase: Phase, rules: Rules): boolean {
  return enabledPhases(rules).some((other) => {
    if (other === phase) return false;
    const fromRoute = liveExits(other, rules).some((exit) => exit.to === phase && !(exit.settle && settles(phase, rules)));
    const fromSettle = settles(other, rules) && settleExits(other, rules).some((exit) => exit.to === phase);
    return fromRoute || fromSettle;
  });
}
