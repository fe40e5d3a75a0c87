import { type AnyTransitionDefinition, createActor } from 'xstate';
import type { HarnessMachine } from '../../machines/harness-machine.js';
import { microstepTransitions, stateLabel } from '../../machines/introspection.js';
import type { Rules } from '../../rules/schema.js';
import type { Witness } from './report.js';
import type { Snapshot } from './search.js';
import { repeatableKinds, walkEvent } from './witnesses.js';

/**
 * Walks for what breadth-first search over abstract states cannot reach:
 * guards that count (a custom `facts.testRuns >= 8`, say). Each walk answers
 * every model call with the same turn kind, many turns in a row.
 */

/** Walks of one repeated turn kind start from the first few think states found in each phase. */
const WALK_STARTS_PER_PHASE = 3;
const MAX_WALK_TURNS = 40;

export function walkRepeats(
  machine: HarnessMachine,
  rules: Rules,
  explored: Array<{ state: Snapshot; seed: unknown; path: Witness['path'] }>,
  onTransition: (definition: AnyTransitionDefinition, from: string, witness: Omit<Witness, 'definition'>) => void,
  unexplored: (label: string) => boolean,
): Continuation[] {
  const continuations = new Map<string, Continuation>();
  const starts = new Map<string, typeof explored>();
  for (const entry of explored) {
    const label = stateLabel(entry.state.value);
    if (!label.endsWith('.think')) continue;
    const list = starts.get(label) ?? [];
    if (list.length < WALK_STARTS_PER_PHASE) starts.set(label, [...list, entry]);
  }
  const turns = Math.min(rules.budgets.maxSteps, MAX_WALK_TURNS);
  for (const entry of [...starts.values()].flat()) {
    for (const kind of repeatableKinds(rules)) {
      const sent: Witness['path'] = [];
      let current: { from: string; event: Witness['event'] } | null = null;
      const actor = createActor(machine, {
        // A snapshot rebuilt from a plain state, as in search.ts: XState types input, snapshot and send by the machine's unions.
        input: undefined as never,
        snapshot: machine.resolveState({ value: entry.state.value as never, context: entry.state.context }) as never,
        inspect: (inspection) => {
          if (inspection.type !== '@xstate.microstep' || inspection.actorRef !== actor || !current) return;
          for (const definition of microstepTransitions(inspection))
            onTransition(definition, current.from, { seed: entry.seed, path: [...entry.path, ...sent], event: current.event });
        },
      });
      actor.subscribe({ error: () => undefined });
      actor.start();
      for (let replies = 0; replies < turns; ) {
        const snapshot = actor.getSnapshot() as unknown as Snapshot;
        const event = snapshot.status === 'active' ? walkEvent(snapshot as never, kind, rules) : null;
        if (!event) break;
        // A think state the search never reached (a phase only a counting guard leads into): explore on from here.
        const label = stateLabel(snapshot.value);
        if (label.endsWith('.think') && unexplored(label) && !continuations.has(label))
          continuations.set(label, { state: snapshot, seed: entry.seed, path: [...entry.path, ...sent] });
        current = { from: stateLabel(snapshot.value), event };
        actor.send(event as never);
        sent.push(event);
        if (event.type === 'xstate.done.actor.model') replies += 1;
      }
      actor.stop();
    }
  }
  return [...continuations.values()];
}

/** Where a walk reached a state the search had not: the search goes on from it, its witnesses prefixed by the walk. */
export interface Continuation {
  state: Snapshot;
  seed: unknown;
  path: Witness['path'];
}
