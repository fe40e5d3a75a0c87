import { type AnyTransitionDefinition, fromPromise } from 'xstate';
import type { HarnessMachine } from '../../machines/harness-machine.js';
import { listTransitions, stateIds, stateLabel, type TransitionInfo } from '../../machines/introspection.js';
import type { Rules } from '../../rules/schema.js';
import { type CoverageReport, formatCoverage, transitionKeys, type Witness } from './report.js';
import { budgetSeeds, FOCUSES, fire, pathsFrom, reachableStates, type Snapshot } from './search.js';
import { type Continuation, walkRepeats } from './walks.js';
import { type Focus, witnessEvents } from './witnesses.js';

export { type CoverageReport, formatCoverage, listTransitions, type TransitionInfo, transitionKeys, type Witness };

const never = fromPromise(() => new Promise<never>(() => undefined));

/**
 * Model-based coverage: breadth-first paths through the machine (xstate/graph
 * `getShortestPaths`) over the witness alphabet, from the initial state and
 * from seeds near the step budget; then every witness event is fired from
 * every reachable state with real XState actors (actors that never resolve,
 * so only the machine moves) and the transitions taken are recorded from
 * XState's inspection stream.
 *
 * @example const report = coverTransitions(createHarnessMachine(rules), rules); expect(report.missing).toEqual([]);
 */
export function coverTransitions(machine: HarnessMachine, rules: Rules, options: { limit?: number } = {}): CoverageReport {
  // No actor starts while the graph is traversed; provide() wants each slot's exact actor logic type.
  const driven = machine.provide({ actors: { model: never, tools: never, contextManager: never, summarizer: never, approver: never, hooks: never } as never });
  const transitions = listTransitions(driven);
  const byDefinition = new Map<AnyTransitionDefinition, TransitionInfo>(transitions.map((info) => [info.definition, info]));
  const covered = new Map<string, string>();
  const witnesses = new Map<string, Witness>();
  const entered = new Set<string>();
  const explored: Array<{ state: Snapshot; focus: Focus; seed: unknown; path: Witness['path'] }> = [];
  const phasesReached = new Set<string>();
  for (const focus of FOCUSES) {
    // Budget seeds go only into phases a run can actually reach, so they never hide an unreachable phase.
    for (const { state, seed, path } of reachableStates(driven, rules, focus, options.limit ?? 1_000_000, phasesReached)) {
      explored.push({ state, focus, seed, path });
      phasesReached.add(stateLabel(state.value).split('.')[0]!);
    }
  }
  const states = explored.map((entry) => entry.state);
  // The first path that takes a transition is its witness.
  const record = (definition: AnyTransitionDefinition, from: string, witness: Omit<Witness, 'definition'>) => {
    const info = byDefinition.get(definition);
    if (info && !covered.has(info.key)) {
      covered.set(info.key, `from ${from} on ${witness.event.type}, after ${witness.path.length} events`);
      witnesses.set(info.key, { ...witness, definition });
    }
    for (const target of definition.target ?? []) entered.add(stateIdOf(target.id, driven.root.id));
  };
  for (const { state, focus, seed, path } of explored) {
    for (const event of witnessEvents(state, rules, focus)) fire(driven, state, event, (definition, from) => record(definition, from, { seed, path, event }));
  }
  if (transitions.some((info) => !covered.has(info.key))) {
    // What breadth-first search over abstract states cannot reach: guards that count (a custom
    // `facts.testRuns >= 8`, say). Walks that repeat one turn kind many times reach them.
    // Which think states each focus's search reached: a walk that finds one a focus missed starts that focus again there.
    const known = new Map(
      FOCUSES.map((focus) => [focus, new Set(explored.filter((entry) => entry.focus === focus).map((entry) => stateLabel(entry.state.value)))]),
    );
    const continuations = walkRepeats(
      driven,
      rules,
      explored.filter((entry) => entry.focus === 'phases'),
      record,
      (label) => FOCUSES.some((focus) => !known.get(focus)!.has(label)),
    );
    const searchFrom = (starts: Continuation[], foci: readonly Focus[]) => {
      for (const start of starts) {
        const label = stateLabel(start.state.value);
        for (const focus of foci.filter((candidate) => !known.get(candidate)!.has(label))) {
          const searched: Focus = focus === 'stall' ? 'stallFrom' : focus;
          for (const { state, path } of pathsFrom(driven, rules, searched, options.limit ?? 1_000_000, start.state)) {
            states.push(state);
            const prefix = [...start.path, ...path.filter((event) => event.type !== 'xstate.init')];
            for (const event of witnessEvents(state, rules, searched)) {
              fire(driven, state, event, (definition, from) => record(definition, from, { seed: start.seed, path: prefix, event }));
            }
          }
        }
      }
    };
    searchFrom(continuations, FOCUSES);
    // Budget seeds for the phases only walks reached, as the search has for the others.
    const newPhases = new Set(continuations.map((start) => stateLabel(start.state.value).split('.')[0]!).filter((phase) => !phasesReached.has(phase)));
    for (const seed of budgetSeeds(driven, rules, newPhases)) {
      for (const { state, path } of pathsFrom(driven, rules, 'runtime', options.limit ?? 1_000_000, seed)) {
        states.push(state);
        for (const event of witnessEvents(state, rules, 'runtime'))
          fire(driven, state, event, (definition, from) => record(definition, from, { seed, path, event }));
      }
    }
  }
  for (const state of states) entered.add(stateLabel(state.value));
  const allStates = stateIds(driven);
  return {
    transitions,
    covered,
    missing: transitions.filter((info) => !covered.has(info.key)),
    unreachableStates: allStates.filter((id) => ![...entered].some((label) => label === id || label.startsWith(`${id}.`))),
    statesExplored: states.length,
    witnesses,
  };
}

/** A state node's id as `stateIds` gives it: its dotted path below the root. */
function stateIdOf(id: string, rootId: string): string {
  return id.startsWith(`${rootId}.`) ? id.slice(rootId.length + 1) : id;
}
