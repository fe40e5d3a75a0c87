import type { InspectionEvent } from 'xstate';
import type { MachineNote } from '../../lib/trace/trace-events.js';
import { actionName, guardName, microstepTransitions, stateLabel } from '../../machines/introspection.js';
import type { HarnessEmitted, ModelReply, ToolCallResult } from '../../machines/types.js';
import { headTail } from '../../tools/shaping/shape.js';
import type { Tracer } from './trace.js';

/**
 * Turns XState's inspection stream of the run's root actor into trace lines,
 * in cause-then-effect order: each microstep's `transition` line (with the
 * guard that held and the actions taken), then the notes its actions emitted
 * (a gate refusal, a stall nudge, the end), before the next microstep; and
 * one `model` line per reply. XState delivers emitted events only after the
 * whole macrostep (a gate refusal would follow the phase change it caused),
 * so notes are read from the `@xstate.action` events of each microstep.
 */
export function createInspectionTracer(trace: Tracer, start: { label: string; step: number; forward?: (event: InspectionEvent) => void }) {
  const { forward } = start;
  let label = start.label;
  // The step the root's snapshots last showed: a reply's line names the step it starts.
  let step = start.step;
  // What the actor computes as it is created (its initial state) is not the run: lines begin when it starts.
  let started = false;
  let pending: MachineNote[] = [];
  let lastEvent: unknown = null;
  const flush = () => {
    for (const note of pending) logNote(trace, note);
    pending = [];
  };
  const inspect = (event: InspectionEvent) => {
    forward?.(event);
    // Only the run's root actor, once it runs: its children (the model, the tools) report their own events.
    if (!started || event.actorRef.sessionId !== event.rootId) return;
    if ('snapshot' in event) step = (event.snapshot as unknown as { context?: { step?: number } }).context?.step ?? step;
    if (event.type === '@xstate.action') {
      const note = noteOf(event.action);
      if (note) pending.push(note);
    } else if (event.type === '@xstate.microstep') {
      // Inspection events carry the snapshot and event untyped (AnyActorRef); the harness machine's shapes are known here.
      const to = stateLabel((event.snapshot as unknown as { value: never }).value);
      const taken = microstepTransitions(event)[0];
      const guard = taken ? guardName(taken.guard) : null;
      const actions = (taken?.actions ?? []).map(actionName).filter(Boolean);
      // An actor's failure says what failed, once (the macrostep's later microsteps carry the same event).
      const error =
        event.event !== lastEvent && event.event.type.startsWith('xstate.error.actor.') ? describeError((event.event as { error?: unknown }).error) : undefined;
      lastEvent = event.event;
      trace.log('transition', {
        from: label,
        to,
        event: event.event.type,
        // XState gives every microstep the macrostep's event; an eventless transition is marked as such.
        ...(taken?.eventType === '' ? { eventless: true as const } : {}),
        ...(guard ? { guard } : {}),
        ...(actions.length > 0 ? { actions } : {}),
        ...(error ? { error } : {}),
      });
      label = to;
      flush();
    } else if (event.type === '@xstate.snapshot') {
      // Notes from actions that took no transition (a time warning) are written at the end of the macrostep.
      flush();
    } else if (event.type === '@xstate.event' && event.event.type === 'xstate.done.actor.model') {
      const { message, usage, ms, finishReason, responseId, responseModel, recovered } = (event.event as unknown as { output: ModelReply }).output;
      trace.log('model', {
        step: step + 1,
        content: message.content,
        tool_calls: message.tool_calls ?? [],
        usage,
        ms: ms ?? null,
        ...(finishReason ? { finishReason } : {}),
        ...(responseId ? { responseId } : {}),
        ...(responseModel ? { responseModel } : {}),
        ...(recovered ? { recovered } : {}),
      });
    }
  };
  return {
    inspect,
    /** The actor is about to start: from here its transitions are the run's. */
    begin() {
      started = true;
    },
    /** The state the root is in, as a dotted label. */
    label: () => label,
  };
}

/** A trace note the machine emitted, from the emit action's inspection event. */
function noteOf(action: { type: string; params?: unknown }): MachineNote | null {
  if (action.type !== 'xstate.emit') return null;
  const emitted = (action.params as { event?: HarnessEmitted } | undefined)?.event;
  return emitted?.type === 'harness.note' ? emitted.note : null;
}

function logNote(trace: Tracer, note: MachineNote): void {
  const { kind, ...data } = note;
  // A note's kind and fields come from the machine's emitted events, typed loosely there.
  trace.log(kind, data as never);
}

/** A trace line for one executed tool call; the result is cut to 2,000 characters, head and tail. */
export function traceTool(trace: Tracer, result: ToolCallResult, step: number): void {
  trace.log('tool', {
    step,
    id: result.id,
    name: result.name,
    args: result.args,
    ok: result.outcome.ok,
    ms: result.ms,
    effect: result.outcome.effect,
    result: headTail(result.outcome.content, 2000),
  });
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
