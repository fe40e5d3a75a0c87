import type { Phase, Rules } from '../../rules/schema.js';
import { describeStall, isStallRuleName, STALL_RULES } from '../../rules/stall-rules.js';
import type { HarnessContext } from '../types.js';
import { fillTemplate, type Update } from '../update.js';
import { noteFiring } from './counters.js';

/**
 * The stall detector's review of a turn (seed component 5): after all tool
 * results, the first live rule that holds nudges the model (one message per
 * stall); a rule that holds again after `maxNudges` nudges, with nothing new
 * in between, ends the run as `stalled` (or, with `stall.onPersist: nudge`,
 * is nudged again). A reply without a tool call that no rule nudges gets the
 * plain reminder, so the model always hears exactly one thing.
 */

/** One live stall rule, as the review state's transitions carry it. */
interface LiveStallRule {
  rule: string;
  limit: number;
  message: string;
}

/** The parameters every nudge shares: the stall budget and all live limits (one stall, one message). */
export interface NudgeParams extends LiveStallRule {
  maxNudges: number;
  limits: Record<string, number>;
}

/** The nudge texts of a phase: its own, then the rule's, then `messages.stall`, then the table's default. */
export function nudgeText(phase: Phase, rule: { guard: string; message?: string | undefined }, rules: Rules): string {
  const fallback = isStallRuleName(rule.guard) ? STALL_RULES[rule.guard].message : `Stall detected (${rule.guard}). Do something different.`;
  return rules.phases[phase]?.nudges[rule.guard] ?? rule.message ?? rules.messages.stall[rule.guard] ?? fallback;
}

/** The count a rule reached this turn (its counter's peak). */
function stallCount(context: HarnessContext, rule: string): number {
  return context.stall.counters[rule]?.peak ?? 0;
}

/** A rule fired: queue its nudge for after this turn's tool results, and trace what it saw. */
export function nudgeUpdate(context: HarnessContext, params: NudgeParams): Update {
  const count = Math.max(stallCount(context, params.rule), params.limit);
  const text = fillTemplate(params.message, { limit: params.limit, count, path: context.stall.thrashFile ?? 'the same file' });
  const firings = (context.stall.counters[params.rule]?.firings ?? 0) + 1;
  return {
    context: { stall: noteFiring(context.stall, params.rule, params.limits), notices: [...context.notices, text] },
    notes: [
      {
        kind: 'stall',
        step: context.step,
        rule: params.rule,
        limit: params.limit,
        count,
        firings,
        maxNudges: params.maxNudges,
        message: text,
        reason: describeStall(params.rule, count),
      },
    ],
  };
}

/** Whether a rule has had its nudges and holds again: nothing new happened since its first nudge (any progress resets the nudges). */
export function nudgedOut(context: HarnessContext, rule: string, maxNudges: number): boolean {
  return (context.stall.counters[rule]?.firings ?? 0) >= maxNudges;
}

/** The built-in rule that persists, if any: nudged out and at its limit again. */
export function persistingRule(
  context: HarnessContext,
  params: { maxNudges: number; rules: ReadonlyArray<{ rule: string; limit: number }> },
): { rule: string; limit: number } | null {
  return params.rules.find(({ rule, limit }) => nudgedOut(context, rule, params.maxNudges) && stallCount(context, rule) >= limit) ?? null;
}

/** The run ends stalled: the reason names the rule, what it saw and the nudges it had. */
export function stallEndUpdate(context: HarnessContext, params: { maxNudges: number; rules: ReadonlyArray<{ rule: string; limit: number }> }): Update {
  const found = persistingRule(context, params) ?? params.rules.find(({ rule }) => nudgedOut(context, rule, params.maxNudges)) ?? null;
  if (!found) return {};
  const seen = describeStall(found.rule, Math.max(stallCount(context, found.rule), found.limit));
  return {
    context: {
      reason: `${found.rule}: ${seen}, still after ${params.maxNudges} nudge${params.maxNudges === 1 ? '' : 's'} with nothing new in between.`,
      stall: { ...context.stall, fired: found.rule },
    },
  };
}

/** A reply without a tool call that no stall rule nudged: the plain reminder. */
export function reminderUpdate(context: HarnessContext, params: { message: string }): Update {
  return { context: { notices: [...context.notices, params.message] } };
}
