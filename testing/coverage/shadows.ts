import type { AnyTransitionDefinition } from 'xstate';
import { type GuardCall, shadowingOf } from '../../machines/guards/shadowing.js';
import type { TransitionInfo } from '../../machines/introspection.js';

const guardRef = (definition: AnyTransitionDefinition): GuardCall | null => {
  const guard = definition.guard as unknown;
  return typeof guard === 'object' && guard !== null && typeof (guard as GuardCall).type === 'string' ? (guard as GuardCall) : null;
};

/**
 * Why an uncovered transition can never be taken, when the rules say so:
 * an earlier transition of the same list always wins first (it has no
 * guard, or the same condition, or the same counting guard with a threshold
 * no higher). Null when no earlier rule explains it.
 *
 * @example shadowReason(info, transitions) // 'shadowed by build.route --always [phaseSteps(min=2)]--> … (tried first; it holds whenever this one does)'
 */
export function shadowReason(info: TransitionInfo, all: readonly TransitionInfo[]): string | null {
  const siblings = info.definition.source.always ?? [];
  const index = siblings.indexOf(info.definition);
  if (index <= 0) return null;
  const mine = guardRef(info.definition);
  for (const earlier of siblings.slice(0, index)) {
    const label = all.find((entry) => entry.definition === earlier)?.key ?? 'an earlier transition';
    if (earlier.guard === undefined) return `shadowed by ${label}: ${REASONS.unconditional}`;
    const theirs = guardRef(earlier);
    const why = theirs ? shadowingOf(theirs, mine) : null;
    if (why) return `shadowed by ${label}: ${REASONS[why]}`;
  }
  return null;
}

const REASONS = {
  unconditional: 'it has no condition and is tried first',
  same: 'the same condition, tried first',
  'lower-threshold': 'the same count with a threshold no higher, tried first',
} as const;
