import { COMBINATOR_NAMES, namedGuardLabel } from 'rein/formats';
import { shortEvent } from './event-label.js';
import type { GuardRef } from './graph-types.js';

export { shortEvent };

/**
 * A guard with its parameters in one line; nested guards (of `and`, `or`,
 * `not` and the like) are spelled out, other arrays and objects are counted,
 * so a label stays short.
 *
 * @example guardText({ name: 'repeatedAction', params: { limit: 3 } }) // 'repeatedAction(limit=3)'
 * @example guardText({ name: 'and', params: { guards: [{ name: 'testRun' }, { name: 'not', params: { guards: [{ name: 'editMade' }] } }] } }) // 'all(testRun, not(editMade))'
 */
export function guardText(guard: GuardRef): string {
  const nested = nestedGuards(guard);
  // Labels are the ones the trace, coverage and `rein rules graph` use (machines/introspection.ts).
  if (nested) return `${COMBINATOR_NAMES[guard.name] ?? guard.name}(${nested.map(guardText).join(', ')})`;
  return namedGuardLabel(guard.name, guard.params);
}

/** The guards a combinator guard combines: its only parameter is one guard or a list of them. */
export function nestedGuards(guard: GuardRef): GuardRef[] | null {
  const values = Object.values(guard.params ?? {});
  if (values.length !== 1) return null;
  const value = values[0];
  const list = Array.isArray(value) ? value : [value];
  return list.length > 0 && list.every(isGuardRef) ? list : null;
}

/** A value that names a guard: `{ name }` as this graph writes it (with optional params). */
function isGuardRef(value: unknown): value is GuardRef {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { name, params, key, ...rest } = value as { name?: unknown; params?: unknown; key?: unknown };
  return (
    typeof name === 'string' &&
    (key === undefined || typeof key === 'string') &&
    Object.keys(rest).length === 0 &&
    (params === undefined || (params !== null && typeof params === 'object'))
  );
}

/**
 * The label of one transition: short event, then the guard in brackets. An
 * unguarded transition after guarded ones in the same ordered list reads
 * `[else]`: it is taken only when every guard before it refused. `say`
 * writes the guard (its name and parameters unless told otherwise).
 *
 * @example transitionLabel('xstate.done.actor.model', { name: 'hasToolCalls' }, false, 'model') // 'done [hasToolCalls]'
 */
export function transitionLabel(
  event: string | null,
  guard: GuardRef | null,
  isFallback: boolean,
  ownInvoke?: string,
  say: (guard: GuardRef) => string = guardText,
): string {
  const parts = [event === null ? '' : shortEvent(event, ownInvoke)];
  if (guard) parts.push(`[${say(guard)}]`);
  else if (isFallback) parts.push('[else]');
  return parts.filter(Boolean).join(' ');
}
