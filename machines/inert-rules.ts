import { type Condition, defaultRules, enabledPhases, isEndTarget, type Phase, type PhaseExitRule, phaseRule, type Rules } from '../rules/schema.js';
import { STALL_RULES, type StallRuleName } from '../rules/stall-rules.js';
import { BUILT_IN_GUARDS, isBuiltInGuard } from './guards/catalogue.js';
import { conditionLabel } from './guards/explain.js';
import { type GuardCall, shadowingOf } from './guards/shadowing.js';
import { firstPhase } from './initial-context.js';
import { canHold, enteredFromElsewhere, phaseExits, phaseTools } from './phase-exits.js';

/**
 * Parts of a rules file that are valid but can never fire or change
 * nothing: an exit the phase's tools cannot make true, an exit an earlier
 * one always beats, a phase nothing enters, a limit the run's budget always
 * reaches first, a notice on an exit that ends the run. The machine leaves
 * such parts out of the chart; this says so, with the reason and the fix.
 *
 * `info` where the part does fire elsewhere (an exit of `phases["*"]`
 * that cannot fire in one phase) or is a default the rules inherit
 * unchanged (the default stall rules under a preset without file tools);
 * `warning` where something the rules wrote fires nowhere.
 */
export interface InertRule {
  level: 'warning' | 'info';
  /** Where in the rules: `phases.fix.exits`, `phases.plan`, `stall.rules`. */
  where: string;
  /** The part, as a short label: `editMade → verify`. */
  what: string;
  why: string;
  fix: string;
}

const OWN_EXIT_KEYS = new Set(['guard', 'all', 'any', 'not', 'to', 'actions', 'settle', 'reason']);
const exitLabel = (exit: PhaseExitRule) => `${conditionLabel(exit, OWN_EXIT_KEYS)} → ${exit.to}`;
/** An exit's condition and target, for "the same exit" across phases. */
const exitIdentity = (exit: PhaseExitRule) => JSON.stringify({ ...exit, actions: undefined, reason: undefined, settle: undefined });
const conditionOf = (exit: PhaseExitRule) => JSON.stringify({ ...exit, to: undefined, actions: undefined, reason: undefined, settle: undefined });

/** Every inert part of the rules, warnings first. */
export function inertRules(rules: Rules): InertRule[] {
  const found = [...exitProblems(rules), ...phaseProblems(rules)];
  return [...found.filter((entry) => entry.level === 'warning'), ...found.filter((entry) => entry.level === 'info')];
}

/** Exits that cannot fire in their phase, or never win there; `info` when the same exit fires in another phase. */
function exitProblems(rules: Rules): InertRule[] {
  const dead: Array<Omit<InertRule, 'level'> & { identity: string }> = [];
  const firing = new Set<string>();
  for (const phase of enabledPhases(rules)) {
    const exits = phaseExits(phase, rules);
    exits.forEach((exit, index) => {
      const where = `phases.${phase}.exits`;
      const cannot = isEndTarget(exit.to) || rules.phases[exit.to]?.enabled ? whyCannotHold(exit, phase, rules) : null;
      const winner = cannot ? null : exits.slice(0, index).find((earlier) => canHold(earlier, phase, rules) && alwaysBeats(earlier, exit));
      if (cannot) dead.push({ where, what: exitLabel(exit), why: cannot.why, fix: cannot.fix, identity: exitIdentity(exit) });
      else if (winner)
        dead.push({
          where,
          what: exitLabel(exit),
          why: `the earlier exit ${exitLabel(winner)} is tried first and holds whenever this one does`,
          fix: 'put this exit before it, give it a condition the earlier one lacks, or remove it',
          identity: exitIdentity(exit),
        });
      else {
        firing.add(exitIdentity(exit));
        if (isEndTarget(exit.to) && exit.actions?.some((action) => action.action === 'notify'))
          dead.push({
            where,
            what: `${exitLabel(exit)}: notify`,
            why: 'the exit ends the run, so the model never reads the notice',
            fix: 'use `reason` for why the run ended, or `mark` for a trace line',
            identity: '',
          });
      }
    });
  }
  const defaults = defaultRules();
  const inherited = (where: string, identity: string) => (defaults.phases[where.split('.')[1]!]?.exits ?? []).some((exit) => exitIdentity(exit) === identity);
  return dead.map(({ identity, ...entry }) => ({
    ...entry,
    level: identity !== '' && (firing.has(identity) || inherited(entry.where, identity)) ? 'info' : 'warning',
  }));
}

/** Why a condition can never hold in a phase, and the fix; null when it can. */
function whyCannotHold(condition: Condition, phase: Phase, rules: Rules): { why: string; fix: string } | null {
  if (canHold(condition, phase, rules)) return null;
  if (condition.all) return condition.all.map((part) => whyCannotHold(part, phase, rules)).find((reason) => reason !== null) ?? null;
  if (condition.any) {
    const reasons = condition.any.map((part) => whyCannotHold(part, phase, rules)!);
    return { why: reasons.map((reason) => reason.why).join('; and '), fix: reasons[0]!.fix };
  }
  const name = condition.guard!;
  const needs = isBuiltInGuard(name) ? BUILT_IN_GUARDS[name].needs : undefined;
  const has = phaseTools(phase, rules);
  if (needs?.gate && !rules.verification.gate)
    return { why: `${name} reacts to a refusal of the verification gate, which is off`, fix: 'turn verification.gate on, or remove the exit' };
  if (needs?.tools && !needs.tools.some((tool) => has.includes(tool)))
    return {
      why: `${name} needs the ${needs.tools.join(' or ')} tool, which phase ${phase} does not offer`,
      fix: `add ${needs.tools[0]} to phases.${phase}.tools, or remove the exit`,
    };
  return {
    why: `${name} needs edits, and phase ${phase} offers neither edit_file nor run with verification.commandsCountAsEdits`,
    fix: `add edit_file to phases.${phase}.tools, or remove the exit`,
  };
}

/** Whether `earlier` holds whenever `later` does (machines/guards/shadowing.ts). */
function alwaysBeats(earlier: PhaseExitRule, later: PhaseExitRule): boolean {
  return shadowingOf(guardCallOf(earlier), guardCallOf(later)) !== null;
}

/** An exit's condition as the shadowing rule compares it: a guard with its parameters, or a compound by its whole text. */
function guardCallOf(exit: PhaseExitRule): GuardCall {
  if (exit.guard === undefined) return { type: conditionOf(exit) };
  const { guard, all: _all, any: _any, not: _not, to: _to, actions: _actions, settle: _settle, reason: _reason, ...params } = exit;
  return { type: guard, params };
}

/** Phases nothing enters, step limits the run's budget reaches first, stall limits that change nothing. */
function phaseProblems(rules: Rules): InertRule[] {
  const found: InertRule[] = [];
  const first = firstPhase(rules);
  for (const phase of enabledPhases(rules)) {
    const rule = phaseRule(rules, phase);
    if (phase !== first && !enteredFromElsewhere(phase, rules))
      found.push({
        level: 'warning',
        where: `phases.${phase}`,
        what: `phase ${phase}`,
        why: 'no exit of another phase that can fire leads to it, and the run starts in ' + first,
        fix: `add an exit to ${phase} in the phase before it, or set phases.${phase}.enabled to false`,
      });
    if (rule.maxSteps !== undefined && rule.maxSteps >= rules.budgets.maxSteps)
      found.push({
        level: 'warning',
        where: `phases.${phase}.maxSteps`,
        what: `maxSteps ${rule.maxSteps}`,
        why: `the run's own step budget (budgets.maxSteps ${rules.budgets.maxSteps}) ends the run first`,
        fix: `lower phases.${phase}.maxSteps below ${rules.budgets.maxSteps}, or raise budgets.maxSteps`,
      });
    for (const stall of Object.keys(rule.stallLimits)) {
      const listed = rules.stall.rules.some((entry) => entry.guard === stall);
      if (rules.stall.enabled && listed) continue;
      found.push({
        level: 'warning',
        where: `phases.${phase}.stallLimits.${stall}`,
        what: `stall limit ${stall}`,
        why: rules.stall.enabled ? `${stall} is not one of stall.rules, so no limit of it is ever compared` : 'stall.enabled is false',
        fix: rules.stall.enabled ? `add { "guard": "${stall}" } to stall.rules, or remove the limit` : 'turn stall.enabled on, or remove the limit',
      });
    }
  }
  if (rules.stall.enabled)
    for (const stall of rules.stall.rules)
      if (!enabledPhases(rules).some((phase) => canHold({ guard: stall.guard }, phase, rules)))
        found.push({
          level: defaultRules().stall.rules.some((entry) => entry.guard === stall.guard && entry.limit === stall.limit) ? 'info' : 'warning',
          where: 'stall.rules',
          what: stall.guard,
          why: `${stall.guard} counts calls of ${((STALL_RULES[stall.guard as StallRuleName] as { needsTools?: readonly string[] } | undefined)?.needsTools ?? []).join(' or ')}, which no phase offers`,
          fix: 'offer one of those tools in a phase, or remove the stall rule',
        });
  return found;
}

/** Inert rules as lines for a terminal: `warning: phases.fix.exits: editMade → verify never fires: … (fix: …)`. */
export function formatInertRules(found: readonly InertRule[]): string[] {
  return found.map(
    (entry) =>
      `${entry.level}: ${entry.where}: ${entry.what} ${entry.level === 'info' ? 'does not fire here' : 'never fires or changes nothing'}: ${entry.why} (fix: ${entry.fix})`,
  );
}
