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
 * A guard with its parameters in one line; arrays and objects are counted,
 * not spelled out, so a label stays short.
 *
 * @example guardText({ name: 'repeatedAction', params: { limit: 3 } }) // 'repeatedAction(limit: 3)'
 */
export function guardText(guard: GuardRef): string {
  const params = Object.entries(guard.params ?? {}).map(([key, value]) => `${key}: ${paramText(value)}`);
  return params.length > 0 ? `${guard.name}(${params.join(', ')})` : guard.name;
}

function paramText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value !== null && typeof value === 'object') return '{…}';
  if (typeof value === 'string') return JSON.stringify(value.length > 24 ? `${value.slice(0, 23)}…` : value);
  return String(value);
}

/**
 * The label of one transition: short event, then the guard in brackets. An
 * unguarded transition after guarded ones in the same ordered list reads
 * `[else]`: it is taken only when every guard before it refused.
 *
 * @example transitionLabel('xstate.done.actor.model', { name: 'hasToolCalls' }, false, 'model') // 'done [hasToolCalls]'
 */
export function transitionLabel(event: string | null, guard: GuardRef | null, isFallback: boolean, ownInvoke?: string): string {
  const parts = [event === null ? '' : shortEvent(event, ownInvoke)];
  if (guard) parts.push(`[${guardText(guard)}]`);
  else if (isFallback) parts.push('[else]');
  return parts.filter(Boolean).join(' ');
}
