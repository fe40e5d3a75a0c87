// No imports: the page bundles this file.

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
