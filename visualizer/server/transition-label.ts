import type { GuardRef } from './graph-types.js';

/**
 * An event type as the diagram shows it: invoke done and error events read
 * `model.done` and `tools.error`; other events keep their name.
 *
 * @example shortEvent('xstate.done.actor.model') // 'model.done'
 * @example shortEvent('xstate.done.actor.model', 'model') // 'done'
 */
export function shortEvent(event: string, ownInvoke?: string): string {
  const match = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event);
  if (!match) return event;
  // On the state that invokes the actor, `done` says it all: the node shows what it invokes.
  return match[2] === ownInvoke ? match[1]! : `${match[2]}.${match[1]}`;
}

/**
 * A guard with its parameters in one line; nested guards (of `and`, `or`,
 * `not` and the like) are spelled out, other arrays and objects are counted,
 * so a label stays short.
 *
 * @example guardText({ name: 'repeatedAction', params: { limit: 3 } }) // 'repeatedAction(limit: 3)'
 * @example guardText({ name: 'and', params: { guards: [{ name: 'testRun' }, { name: 'not', params: { guards: [{ name: 'editMade' }] } }] } }) // 'and(testRun, not(editMade))'
 */
export function guardText(guard: GuardRef): string {
  const nested = nestedGuards(guard);
  if (nested) return `${guard.name}(${nested.map(guardText).join(', ')})`;
  const params = Object.entries(guard.params ?? {}).map(([key, value]) => `${key}: ${paramText(value)}`);
  return params.length > 0 ? `${guard.name}(${params.join(', ')})` : guard.name;
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
export function isGuardRef(value: unknown): value is GuardRef {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { name, params, ...rest } = value as { name?: unknown; params?: unknown };
  return typeof name === 'string' && Object.keys(rest).length === 0 && (params === undefined || (params !== null && typeof params === 'object'));
}

function paramText(value: unknown): string {
  if (isGuardRef(value)) return guardText(value);
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value !== null && typeof value === 'object') return '{…}';
  if (typeof value === 'string') return JSON.stringify(value.length > 24 ? `${value.slice(0, 23)}…` : value);
  return String(value);
}

/**
 * The label of one transition: short event, then the guard in brackets. An
 * unguarded transition after guarded ones in the same ordered list reads
 * `[else]`: it is taken only when every guard before it refused. `say`
 * writes the guard (its name and parameters unless told otherwise).
 *
 * @example transitionLabel('xstate.done.actor.model', { name: 'hasToolCalls' }, false, 'model') // 'done [hasToolCalls]'
 */
export function transitionLabel(event: string | null, guard: GuardRef | null, isFallback: boolean, ownInvoke?: string, say: (guard: GuardRef) => string = guardText): string {
  const parts = [event === null ? '' : shortEvent(event, ownInvoke)];
  if (guard) parts.push(`[${say(guard)}]`);
  else if (isFallback) parts.push('[else]');
  return parts.filter(Boolean).join(' ');
}
