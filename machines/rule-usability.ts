import type { Phase, PhaseExitRule, PhaseRule, Rules } from '../rules/schema.js';
import { PHASES } from '../rules/schema.js';
import { GUARD_NEEDS } from './guards.js';

/** Tools the model can actually call in a phase: the run's tool surface narrowed by the phase rule. */
export function phaseTools(phase: Phase, rules: Rules): string[] {
  const allowed = rules.phases[phase].tools;
  return rules.tools.enabled.filter((name) => allowed === 'all' || allowed.includes(name));
}

/**
 * Whether a guard can ever hold in this phase under these rules. Guards
 * registered from TypeScript have no declared needs and always count.
 */
export function canHold(guard: string, phase: Phase, rules: Rules): boolean {
  const needs = GUARD_NEEDS[guard];
  if (!needs) return true;
  const tools = phaseTools(phase, rules);
  if (needs.gate && !rules.verification.gate) return false;
  if (needs.tools && !needs.tools.some((tool) => tools.includes(tool))) return false;
  if (needs.edits && !tools.includes('edit_file') && !(rules.verification.commandsCountAsEdits && tools.includes('run'))) return false;
  return true;
}

/** A phase's exits that can be taken: to an enabled phase, with a guard that can hold. */
export function liveExits(phase: Phase, rules: Rules): PhaseExitRule[] {
  return rules.phases[phase].exits.filter((exit) => rules.phases[exit.to].enabled && canHold(exit.guard, phase, rules));
}

/** Exits that can hold on the very turn that entered the phase (not tied to the phase's own start). */
export function settleExits(phase: Phase, rules: Rules): PhaseExitRule[] {
  return liveExits(phase, rules).filter((exit) => !GUARD_NEEDS[exit.guard]?.phaseRelative);
}

/** A phase re-judges its entering turn when some exit into it asks to settle and it has exits that could hold then. */
export function settles(phase: Phase, rules: Rules): boolean {
  const entered = PHASES.some((other) => rules.phases[other].enabled && liveExits(other, rules).some((exit) => exit.to === phase && exit.settle));
  return entered && settleExits(phase, rules).length > 0;
}

/**
 * Whether a passing test run can exist while this phase is active: the phase
 * may run commands, or some other phase (which could have) leads into it.
 * Otherwise the gate can only refuse there (a strict plan phase).
 */
export function testsCanPassBy(phase: Phase, rules: Rules): boolean {
  if (phaseTools(phase, rules).includes('run')) return true;
  return PHASES.some((other) => other !== phase && rules.phases[other].enabled && liveExits(other, rules).some((exit) => exit.to === phase));
}

/** The stall rules that can fire in a phase. */
export function liveStallRules(phase: Phase, rules: Rules): Rules['stall']['rules'] {
  return rules.stall.enabled ? rules.stall.rules.filter((rule) => canHold(rule.guard, phase, rules)) : [];
}

export type { PhaseRule };
