import { type AnyActorScope, createActor, type ExecutableActionsFrom } from 'xstate';
import type { HarnessMachine } from '../machines/harness-machine.js';

type Snapshot = ReturnType<HarnessMachine['resolveState']>;
type Actions = ExecutableActionsFrom<HarnessMachine>;

const scopes = new WeakMap<HarnessMachine, { scope: AnyActorScope; sink: Actions[] }>();

/**
 * XState's pure `transition(machine, snapshot, event)`, with one inert actor
 * scope per machine instead of a new one per call. `transition()` builds its
 * scope by constructing an actor of the machine, which computes the machine's
 * initial snapshot (its context factory, without input) on every event; a
 * replay of 12,844 recorded actions spent most of its time there. Nothing is
 * executed: the actions are returned, as transition() returns them.
 */
export function pureTransition(machine: HarnessMachine, snapshot: Snapshot, event: unknown): [Snapshot, Actions[]] {
  let entry = scopes.get(machine);
  if (!entry) {
    const sink: Actions[] = [];
    const self = createActor(machine, { input: { task: '', testCmd: '' } });
    const scope = {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      defer: () => {},
      logger: () => {},
      stopChild: () => {},
      emit: () => {},
      actionExecutor: (action: Actions) => {
        sink.push(action);
      },
    } as unknown as AnyActorScope;
    entry = { scope, sink };
    scopes.set(machine, entry);
  }
  entry.sink.length = 0;
  // Probes send any event a test builds; XState types transition() by the machine's own event union.
  const next = machine.transition(snapshot, event as never, entry.scope);
  return [next, [...entry.sink]];
}
