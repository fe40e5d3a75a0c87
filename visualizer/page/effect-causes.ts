import { type Entry, text } from './entries.js';

/**
 * The machine action that writes each kind of effect line: a `stall` line
 * is the `nudge` action's, a refused `finish` the `refuseFinish` action's.
 * A line is shown with the transition that ran its action, whichever of the
 * two the trace wrote first.
 */
const ACTIONS: Record<string, (entry: Entry) => string> = {
  stall: () => 'nudge',
  progress: () => 'recordResults',
  finish: (entry) => (entry.data.allowed === false ? 'refuseFinish' : 'acceptFinish'),
  budget_warning: (entry) => (text(entry.data, 'budget') === 'time' ? 'warnTime' : 'warnSteps'),
  context: (entry) =>
    ({ summarized: 'applySummary', summary_failed: 'countSummaryFailure', provider_rejected_length: 'forceCompaction' })[text(entry.data, 'action')] ??
    'storeView',
  rule_action: () => 'runRuleAction',
};

// A cause and its effect are written in the same machine step: a few lines apart at most.
const REACH = 64;

/** The action whose run wrote `entry`, or null for lines that are not an action's effect. */
function actionBehind(entry: Entry): string | null {
  return ACTIONS[entry.kind]?.(entry) ?? null;
}

/**
 * Pairs effect lines with the transitions whose actions wrote them. Each
 * action a transition ran explains one line; pairing is by identity, so it
 * survives the timeline moving lines about.
 *
 * @example const causes = new CausePairs(); causes.pairBack(entries, entries.length - 1)
 */
export class CausePairs {
  private readonly causeOf = new WeakMap<Entry, Entry>();
  private readonly claimed = new WeakMap<Entry, Map<string, number>>();

  cause(entry: Entry): Entry | null {
    return this.causeOf.get(entry) ?? null;
  }

  /** Pairs the effect at `at` with the closest transition before it that ran its action and has not explained a line of it yet. */
  pairBack(entries: readonly Entry[], at: number): Entry | null {
    const effect = entries[at]!;
    const action = actionBehind(effect);
    if (!action) return null;
    for (let index = at - 1; index >= Math.max(0, at - REACH); index--) {
      const candidate = entries[index]!;
      if (candidate.kind === 'transition' && this.claim(candidate, action)) {
        this.causeOf.set(effect, candidate);
        return candidate;
      }
    }
    return null;
  }

  /** The transition at `at` explains effect lines written before it that are still unpaired (a trace that writes effects first); returns them, oldest first. */
  pairForward(entries: readonly Entry[], at: number): Entry[] {
    const transition = entries[at]!;
    const paired: Entry[] = [];
    for (let index = Math.max(0, at - REACH); index < at; index++) {
      const effect = entries[index]!;
      const action = actionBehind(effect);
      if (action && !this.causeOf.has(effect) && this.claim(transition, action)) {
        this.causeOf.set(effect, transition);
        paired.push(effect);
      }
    }
    return paired;
  }

  private claim(transition: Entry, action: string): boolean {
    const actions = Array.isArray(transition.data.actions) ? transition.data.actions : [];
    const ran = actions.filter((name) => name === action).length;
    const claims = this.claimed.get(transition) ?? new Map<string, number>();
    const used = claims.get(action) ?? 0;
    if (used >= ran) return false;
    claims.set(action, used + 1);
    this.claimed.set(transition, claims);
    return true;
  }
}
