import { stateLabel } from 'rein/machines';
import type { InspectionEvent } from 'xstate';
import type { InspectMessage } from './page-data.js';

interface RefLike {
  sessionId: string;
  id?: string;
  src?: unknown;
}

/**
 * Turns XState inspection events into small messages for the page: the
 * harness's state as a dotted label with its step and status, the events it
 * receives and who sent them, and the actors it starts (model, tools,
 * context manager) with their status changes. Never the context. Returns
 * null for what the page does not need (repeats, microsteps, actions).
 *
 * @example const toMessage = createInspectionFilter(); actor = createActor(machine, { inspect: (event) => { const message = toMessage(event); if (message) send(message); } });
 */
export function createInspectionFilter(now: () => number = Date.now): (event: InspectionEvent) => InspectMessage | null {
  const childStatus = new Map<string, string>();
  let rootKey = '';
  return (event) => {
    const ref = event.actorRef as RefLike;
    const root = ref.sessionId === event.rootId;
    const base = { actor: ref.sessionId, name: ref.id ?? ref.sessionId, root, t: now() / 1000 };
    if (event.type === '@xstate.snapshot') {
      const snapshot = event.snapshot as { status?: string; value?: unknown; context?: { step?: unknown } };
      const status = snapshot.status ?? 'active';
      if (!root) {
        if (childStatus.get(ref.sessionId) === status) return null;
        childStatus.set(ref.sessionId, status);
        return { kind: 'snapshot', ...base, status };
      }
      const state = isStateValue(snapshot.value) ? stateLabel(snapshot.value) : undefined;
      const step = typeof snapshot.context?.step === 'number' ? snapshot.context.step : undefined;
      const key = `${state}|${status}|${step}`;
      if (key === rootKey) return null;
      rootKey = key;
      return { kind: 'snapshot', ...base, status, ...(state !== undefined ? { state } : {}), ...(step !== undefined ? { step } : {}) };
    }
    if (event.type === '@xstate.event' && root) {
      const source = (event.sourceRef as RefLike | undefined)?.id;
      return { kind: 'event', ...base, type: event.event.type, ...(source ? { source } : {}) };
    }
    if (event.type === '@xstate.actor') {
      return { kind: 'actor', ...base, ...(typeof ref.src === 'string' ? { src: ref.src } : {}) };
    }
    return null;
  };
}

function isStateValue(value: unknown): value is Parameters<typeof stateLabel>[0] {
  return typeof value === 'string' || (value !== null && typeof value === 'object');
}
