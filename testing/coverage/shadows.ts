import type { AnyTransitionDefinition } from 'xstate';
import { BUILT_IN_GUARDS, isBuiltInGuard } from '../../machines/guards/catalogue.js';
import type { TransitionInfo } from '../../machines/introspection.js';

interface GuardRef {
  type: string;
  params?: Record<string, unknown>;
}

const guardRef = (definition: AnyTransitionDefinition): GuardRef | null => {
  const guard = definition.guard as unknown;
  return typeof guard === 'object' && guard !== null && typeof (guard as GuardRef).type === 'string' ? (guard as GuardRef) : null;
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
    const theirs = guardRef(earlier);
    const label = all.find((entry) => entry.definition === earlier)?.key ?? 'an earlier transition';
    if (earlier.guard === undefined || theirs?.type === 'always') return `shadowed by ${label}: it has no condition and is tried first`;
    if (!mine || !theirs || mine.type !== theirs.type) continue;
    if (JSON.stringify(mine.params ?? {}) === JSON.stringify(theirs.params ?? {})) return `shadowed by ${label}: the same condition, tried first`;
    if (lowerThreshold(mine, theirs)) return `shadowed by ${label}: the same count with a threshold no higher, tried first`;
  }
  return null;
}

/** Whether `theirs` is `mine` with a threshold no higher (a counting guard): it holds whenever mine does. */
function lowerThreshold(mine: GuardRef, theirs: GuardRef): boolean {
  const name = mine.type;
  if (!isBuiltInGuard(name)) return false;
  const param = BUILT_IN_GUARDS[name].counts?.param;
  if (!param) return false;
  const mineRest = { ...mine.params, [param]: 0 };
  const theirsRest = { ...theirs.params, [param]: 0 };
  if (JSON.stringify(mineRest) !== JSON.stringify(theirsRest)) return false;
  return Number(theirs.params?.[param]) <= Number(mine.params?.[param]);
}
