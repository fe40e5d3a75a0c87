import type { AnyActorRef, InspectionEvent } from 'xstate';
import { stateLabel } from '../machines/state-label.js';
import type { ModelReply, ToolCallResult } from '../machines/types.js';
import { headTail } from '../tools/shape.js';
import type { Tracer } from './trace.js';

/**
 * Turns XState's inspection stream of the run's root actor into trace lines:
 * one `transition` line per microstep (with the guard that held and the
 * actions taken) and one `model` line per reply.
 */
export function createInspectionTracer(trace: Tracer, stepOf: () => number, forward?: (event: InspectionEvent) => void) {
  let root: AnyActorRef | null = null;
  let label = '';
  let lastEvent: unknown = null;
  const inspect = (event: InspectionEvent) => {
    forward?.(event);
    // The root is attached right after createActor; its first events (registration) come before that.
    if (root === null || event.actorRef !== root) return;
    if (event.type === '@xstate.microstep') {
      const to = stateLabel((event.snapshot as unknown as { value: never }).value);
      const taken = event._transitions[0];
      const guard = nameOf(taken?.guard);
      const actions = (taken?.actions ?? []).map(nameOf).filter(Boolean);
      // An actor's failure says what failed, once (the macrostep's later microsteps carry the same event).
      const error = event.event !== lastEvent && event.event.type.startsWith('xstate.error.actor.') ? describeError((event.event as { error?: unknown }).error) : undefined;
      lastEvent = event.event;
      trace.log('transition', { from: label, to, event: event.event.type, ...(guard ? { guard } : {}), ...(actions.length > 0 ? { actions } : {}), ...(error ? { error } : {}) });
      label = to;
    } else if (event.type === '@xstate.event' && event.event.type === 'xstate.done.actor.model') {
      const { message, usage, ms } = (event.event as unknown as { output: ModelReply }).output;
      trace.log('model', { step: stepOf() + 1, content: message.content, tool_calls: message.tool_calls ?? [], usage, ms: ms ?? null });
    }
  };
  return {
    inspect,
    attach(actor: AnyActorRef, startLabel: string) { root = actor; label = startLabel; },
    /** The state the root is in, as a dotted label. */
    label: () => label,
  };
}

/** A trace line for one executed tool call; the result is cut to 2,000 characters, head and tail. */
export function traceTool(trace: Tracer, result: ToolCallResult, step: number): void {
  trace.log('tool', { step, id: result.id, name: result.name, args: result.args, ok: result.outcome.ok, ms: result.ms, effect: result.outcome.effect, result: headTail(result.outcome.content, 2000) });
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function nameOf(item: unknown): string {
  if (typeof item === 'string') return item;
  return typeof item === 'object' && item !== null && typeof (item as { type?: unknown }).type === 'string' ? (item as { type: string }).type : '';
}
