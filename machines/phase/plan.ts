import { approvalPolicyOf } from '../../rules/approvals/policy.js';
import { type Phase, phaseRule, type Rules } from '../../rules/schema.js';
import { placedElsewhere } from '../../rules/tool-placement.js';
import { batchRulesOf } from '../approval-handling.js';
import { budgetCapsOf, warningRulesOf } from '../budgets.js';
import { hookMomentsOf } from '../hook-handling.js';
import { enteredAtObserve, phaseTools, settles, stepCap } from '../phase-exits.js';
import { verificationOf } from '../verification.js';

/** How the machine names a guard or action a rules file may have replaced: `<name> (overridden)` then. */
export interface Naming {
  guard(name: string): string;
  action(name: string): string;
}

/**
 * What the rules make possible in one phase, decided once: each piece of the phase's chart reads it to decide
 * whether it is there at all, and which of its neighbours its transitions lead to. Nothing is built and then
 * taken away: a piece the rules make impossible is never added.
 */
export interface PhasePlan {
  phase: Phase;
  rules: Rules;
  naming: Naming;
  caps: ReturnType<typeof budgetCapsOf>;
  /** A token or cost cap: the turn stops before a call that would pass it (checkBudget). */
  capped: boolean;
  /** Stage 2 of the context manager (summarize). */
  summarizes: boolean;
  /** What the results of a turn are folded with. */
  fold: { verification: ReturnType<typeof verificationOf> };
  warnings: ReturnType<typeof warningRulesOf>['perTurn'];
  /** The step budget can end the run here, and the budget warning can come here (a short phase reaches neither). */
  reachesStepLimit: boolean;
  reachesStepWarning: boolean;
  policy: ReturnType<typeof approvalPolicyOf>;
  batch: ReturnType<typeof batchRulesOf>;
  /** Approval rules or preToolUse hooks judge calls here (screen). */
  approves: boolean;
  /** A call can wait here for an answer (awaitingApproval): an ask rule, a default of ask, or a preToolUse hook that may ask. */
  asks: boolean;
  hooks: ReturnType<typeof hookMomentsOf>;
  /** Where a turn's calls go first: the preToolUse hooks, the approval screen, or straight to the tools. */
  runCalls: 'preToolHook' | 'screen' | 'act';
  /** The phase allows finish: its calls go to the gate. */
  finishes: boolean;
  /** Calls can be left over after a tool batch: after a finish the gate refused, or after a call that waited. */
  callsCanRemain: boolean;
  /** Entered through a settle exit: the phase judges the entering turn once more. */
  settles: boolean;
  /** Entered from another phase at the start of a turn (its phaseChange hooks run then). */
  enteredAtObserve: boolean;
  /** Tools the phase's list allows that are placed in other phases only: the tool actor refuses them here. */
  placedElsewhere: string[];
}

/** @example const plan = planPhase('build', rules, naming); plan.approves // false with the default rules */
export function planPhase(phase: Phase, rules: Rules, naming: Naming): PhasePlan {
  const caps = budgetCapsOf(rules);
  const warnings = warningRulesOf(rules).perTurn;
  const batch = batchRulesOf(phase, rules);
  const hooks = hookMomentsOf(rules);
  const finishes = phaseTools(phase, rules).includes('finish');
  const cap = stepCap(phase, rules);
  const warnStep = Math.ceil(rules.budgets.maxSteps * (rules.budgets.stepWarnAt ?? rules.budgets.warnAt));
  return {
    phase,
    rules,
    naming,
    caps,
    capped: caps.maxTokens !== undefined || caps.maxCostUsd !== undefined,
    summarizes: rules.context.enabled && rules.context.summarize,
    fold: { verification: verificationOf(rules) },
    warnings,
    reachesStepLimit: cap > rules.budgets.maxSteps,
    // Only the step warning depends on the phase's length; a token, cost or time warning can come in any phase.
    reachesStepWarning: !(cap <= warnStep && warnings.length === 1),
    policy: approvalPolicyOf(phase, rules),
    batch,
    approves: batch.approves,
    asks: batch.asks,
    hooks,
    runCalls: hooks.preToolUse ? 'preToolHook' : batch.approves ? 'screen' : 'act',
    finishes,
    callsCanRemain: batch.approves || (finishes && rules.verification.gate),
    settles: settles(phase, rules),
    enteredAtObserve: enteredAtObserve(phase, rules),
    placedElsewhere: placedElsewhere(rules, phase),
  };
}

/** Phase descriptions and entry actions come from the rules. */
export const phaseRuleOf = (plan: PhasePlan) => phaseRule(plan.rules, plan.phase);

const ROOT = 'harness';
/** A state of the root: the end states, another phase. */
export const at = (state: string) => `#${ROOT}.${state}` as const;

/**
 * A guard or action that the rules name (an exit's condition, a stall rule, a rule action): its name is checked when
 * the rules load (`rules-check.ts`), not by `tsc`, so these are the only places the typed state configs take any name.
 */
export const named = (ref: unknown) => ref as never;
