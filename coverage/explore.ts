import { createActor, fromPromise, type AnyTransitionDefinition } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { HarnessMachine } from '../machines/harness-machine.js';
import { initialContext } from '../machines/initial-context.js';
import { listTransitions, microstepTransitions, stateIds, stateLabel, type TransitionInfo } from '../machines/introspection.js';
import type { HarnessContext } from '../machines/types.js';
import type { Rules } from '../rules/schema.js';
import { repeatableKinds, stallLimits, walkEvent, witnessEvents, type Focus } from './witnesses.js';
import { PHASES, type Condition } from '../rules/schema.js';
import { isStallRuleName } from '../rules/stall-rules.js';
import { BUILT_IN_GUARDS, isBuiltInGuard } from '../machines/guards/catalogue.js';
import { guardView, type GuardView } from '../machines/guards/guard-view.js';
import { phaseExits, stepCap } from '../machines/phase-exits.js';

export { listTransitions, type TransitionInfo };

export interface CoverageReport {
  transitions: TransitionInfo[];
  /** Key → how it was taken: the state it was taken from and the event. */
  covered: Map<string, string>;
  missing: TransitionInfo[];
  /** State nodes no generated path ever entered. */
  unreachableStates: string[];
  /** Abstract states the path search reached. */
  statesExplored: number;
  /** Key → the path that took it: a start (the initial state, or a budget seed), the events to its source state, and the event that fired it. */
  witnesses: Map<string, Witness>;
  /** Key → why a missing transition is not covered, when more is known than "no path takes it" (its witness did not replay). */
  reasons?: Map<string, string>;
}

/** How a transition was first taken: replayable with scripted actors (see `replay.ts`). */
export interface Witness {
  seed: unknown;
  path: Array<{ type: string; [key: string]: unknown }>;
  event: { type: string; [key: string]: unknown };
  definition: AnyTransitionDefinition;
}

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
  const driven = machine.provide({ actors: { model: never, tools: never, contextManager: never, summarizer: never } as never });
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
      phasesReached.add(stateLabel(state.value as never).split('.')[0]!);
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
    for (const event of witnessEvents(state as never, rules, focus)) fire(driven, state, event, (definition, from) => record(definition, from, { seed, path, event }));
  }
  if (transitions.some((info) => !covered.has(info.key))) {
    // What breadth-first search over abstract states cannot reach: guards that count (a custom
    // `facts.testRuns >= 8`, say). Walks that repeat one turn kind many times reach them.
    // Which think states each focus's search reached: a walk that finds one a focus missed starts that focus again there.
    const known = new Map(FOCUSES.map((focus) => [focus, new Set(explored.filter((entry) => entry.focus === focus).map((entry) => stateLabel(entry.state.value as never)))]));
    const continuations = walkRepeats(driven, rules, explored.filter((entry) => entry.focus === 'phases'), record, (label) => FOCUSES.some((focus) => !known.get(focus)!.has(label)));
    const searchFrom = (starts: Continuation[], foci: readonly Focus[]) => {
      for (const start of starts) {
        const label = stateLabel(start.state.value as never);
        for (const focus of foci.filter((candidate) => !known.get(candidate)!.has(label))) {
          const searched: Focus = focus === 'stall' ? 'stallFrom' : focus;
          for (const { state, path } of pathsFrom(driven, rules, searched, options.limit ?? 1_000_000, start.state)) {
            states.push(state);
            const prefix = [...start.path, ...path.filter((event) => event.type !== 'xstate.init')];
            for (const event of witnessEvents(state as never, rules, searched)) {
              fire(driven, state, event, (definition, from) => record(definition, from, { seed: start.seed, path: prefix, event }));
            }
          }
        }
      }
    };
    searchFrom(continuations, FOCUSES);
    // Budget seeds for the phases only walks reached, as the search has for the others.
    const newPhases = new Set(continuations.map((start) => stateLabel(start.state.value as never).split('.')[0]!).filter((phase) => !phasesReached.has(phase)));
    for (const seed of budgetSeeds(driven, rules, newPhases)) {
      for (const { state, path } of pathsFrom(driven, rules, 'runtime', options.limit ?? 1_000_000, seed)) {
        states.push(state);
        for (const event of witnessEvents(state as never, rules, 'runtime')) fire(driven, state, event, (definition, from) => record(definition, from, { seed, path, event }));
      }
    }
  }
  for (const state of states) entered.add(stateLabel(state.value as never));
  const allStates = stateIds(driven);
  return {
    transitions, covered,
    missing: transitions.filter((info) => !covered.has(info.key)),
    unreachableStates: allStates.filter((id) => ![...entered].some((label) => label === id || label.startsWith(`${id}.`))),
    statesExplored: states.length,
    witnesses,
  };
}

/** Each transition definition of a machine with its key, as `listTransitions` names it. */
export function transitionKeys(machine: HarnessMachine): Map<AnyTransitionDefinition, string> {
  return new Map(listTransitions(machine).map((info) => [info.definition, info.key]));
}

type Snapshot = { value: unknown; context: HarnessContext; status: string };

const FOCUSES: readonly Focus[] = ['phases', 'stall', 'runtime'];

/** Distinct abstract states reachable over one focus of the witness alphabet, from the start (and, for runtime, from budget seeds in every phase). */
function reachableStates(machine: HarnessMachine, rules: Rules, focus: Focus, limit: number, phasesReached: ReadonlySet<string>): Array<{ state: Snapshot; seed: unknown; path: Witness['path'] }> {
  const seeds: Array<unknown> = [undefined, ...(focus === 'runtime' ? budgetSeeds(machine, rules, phasesReached) : [])];
  const found = new Map<string, { state: Snapshot; seed: unknown; path: Witness['path'] }>();
  for (const fromState of seeds) {
    for (const { state, path } of pathsFrom(machine, rules, focus, limit, fromState)) found.set(signature(state, rules, focus), { state, seed: fromState, path });
  }
  return [...found.values()];
}

/** States just before the step warning and the step limit, in each of these phases (so the budget exits are taken there). */
function budgetSeeds(machine: HarnessMachine, rules: Rules, phases: ReadonlySet<string>): unknown[] {
  const base = initialContext({ task: 'task', testCmd: 'npm test' }, rules);
  const max = rules.budgets.maxSteps;
  // A phase that can only take a few steps (maxSteps, entered once) never gets near the budget: no seed there.
  return PHASES.filter((name) => rules.phases[name].enabled && phases.has(name) && stepCap(name, rules) === Number.POSITIVE_INFINITY).flatMap((phase) => {
    // As if the phase had just been entered that late in the run, so what counts steps in the phase starts at 0.
    const facts = { ...base.facts, phaseStartStep: 0 };
    const at = (step: number, steps: boolean) => machine.resolveState({ value: { [phase]: 'observe' }, context: { ...base, phase, recordLength: 2, step, facts: { ...facts, phaseStartStep: step }, warned: steps ? { steps: true } : {} } });
    return [at(Math.ceil(max * (rules.budgets.stepWarnAt ?? rules.budgets.warnAt)) - 1, false), at(max - 1, true)];
  });
}

/** Breadth-first shortest paths over one focus of the witness alphabet, from the start or from a given state; active states only. */
function pathsFrom(machine: HarnessMachine, rules: Rules, focus: Focus, limit: number, fromState?: unknown): Array<{ state: Snapshot; path: Witness['path'] }> {
  const paths = getShortestPaths(machine, {
    input: { task: 'task', testCmd: 'npm test' }, limit,
    ...(fromState ? { fromState: fromState as never } : {}),
    events: (snapshot) => witnessEvents(snapshot as never, rules, focus) as never,
    serializeState: (snapshot) => signature(snapshot as unknown as Snapshot, rules, focus),
  });
  return paths
    .filter((path) => (path.state as unknown as Snapshot).status === 'active')
    .map((path) => ({ state: path.state as unknown as Snapshot, path: path.steps.map((step) => step.event as Witness['path'][number]) }));
}

/** The facts that decide which guards of this focus can hold: what the search treats as one state. */
function signature(snapshot: Snapshot, rules: Rules, focus: Focus): string {
  const { facts, turn, stall, warned, step, cursor, calls, forceCompaction, contextState } = snapshot.context;
  const label = stateLabel(snapshot.value as never);
  const acting = label.endsWith('.act');
  const pending = acting ? calls.slice(cursor).map((call) => `${call.function.name}:${call.id}`) : [];
  const gateFacts = [facts.lastPassSeq > facts.lastEditSeq, facts.lastPassSeq >= 0, facts.lastEditSeq > facts.lastTestSeq, facts.lastEditSeq > facts.phaseStartSeq, facts.lastTestSeq > facts.phaseStartSeq];
  const common = [label, snapshot.status, acting ? turn : null, pending];
  if (focus === 'phases') {
    // Guards that count (phaseSteps, gateRefusals, …): each count up to the largest threshold a rule compares it with.
    const view = guardView(snapshot.context);
    const counts = countingThresholds(rules).map(({ read, max }) => Math.min(read(view), max));
    return JSON.stringify([...common, gateFacts, counts]);
  }
  if (focus === 'runtime') {
    const stepBucket = step >= rules.budgets.maxSteps ? 2 : step >= Math.ceil(rules.budgets.maxSteps * (rules.budgets.stepWarnAt ?? rules.budgets.warnAt)) ? 1 : 0;
    return JSON.stringify([...common, warned, stepBucket, forceCompaction, Math.min(contextState.summaryFailures, 2)]);
  }
  // Witness turns reach a stall limit within one turn, so a rule is "at its limit or not";
  // only the no-tool-call streak and the firing counts build up across turns.
  const stallFacts = rules.stall.rules.map((rule) => {
    const counter = stall.counters[rule.guard];
    if (!counter) return 0;
    return rule.guard === 'noToolCalls' ? Math.min(counter.peak, rule.limit) : Number(counter.peak >= rule.limit);
  });
  // Exits may compare a stall counter with limits of their own: each side of each limit is a different state.
  const exitLimits = [...stallLimits(rules)].flatMap(([guard, limits]) => limits.map((limit) => Number((stall.counters[guard]?.peak ?? 0) >= limit)));
  const firings = rules.stall.rules.map((rule) => Math.min(rules.stall.maxNudges, stall.counters[rule.guard]?.firings ?? 0));
  // Once nudged, the search repeats that rule's pattern; whether the last action already belongs to it
  // decides whether the next turn continues the stall or starts over, so it is part of the state.
  const lastAction = firings.some((count) => count > 0) ? stall.lastActions[0] : null;
  return JSON.stringify([...common, stallFacts, exitLimits, firings, lastAction]);
}

function fire(machine: HarnessMachine, state: Snapshot, event: { type: string }, onTransition: (definition: AnyTransitionDefinition, from: string) => void): void {
  const start = machine.resolveState({ value: state.value as never, context: state.context });
  const from = stateLabel(state.value as never);
  const actor = createActor(machine, {
    input: undefined as never,
    snapshot: start as never,
    inspect: (inspection) => {
      if (inspection.type === '@xstate.microstep' && inspection.actorRef === actor) for (const definition of microstepTransitions(inspection)) onTransition(definition, from);
    },
  });
  actor.subscribe({ error: () => undefined });
  actor.start();
  actor.send(event as never);
  actor.stop();
}

/** Walks of one repeated turn kind start from the first few think states found in each phase. */
const WALK_STARTS_PER_PHASE = 3;
const MAX_WALK_TURNS = 40;

function walkRepeats(
  machine: HarnessMachine, rules: Rules, explored: Array<{ state: Snapshot; seed: unknown; path: Witness['path'] }>,
  onTransition: (definition: AnyTransitionDefinition, from: string, witness: Omit<Witness, 'definition'>) => void,
  unexplored: (label: string) => boolean,
): Continuation[] {
  const continuations = new Map<string, Continuation>();
  const starts = new Map<string, typeof explored>();
  for (const entry of explored) {
    const label = stateLabel(entry.state.value as never);
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
        input: undefined as never,
        snapshot: machine.resolveState({ value: entry.state.value as never, context: entry.state.context }) as never,
        inspect: (inspection) => {
          if (inspection.type !== '@xstate.microstep' || inspection.actorRef !== actor || !current) return;
          for (const definition of microstepTransitions(inspection)) onTransition(definition, current.from, { seed: entry.seed, path: [...entry.path, ...sent], event: current.event });
        },
      });
      actor.subscribe({ error: () => undefined });
      actor.start();
      for (let replies = 0; replies < turns;) {
        const snapshot = actor.getSnapshot() as unknown as Snapshot;
        const event = snapshot.status === 'active' ? walkEvent(snapshot as never, kind, rules) : null;
        if (!event) break;
        // A think state the search never reached (a phase only a counting guard leads into): explore on from here.
        const label = stateLabel(snapshot.value as never);
        if (label.endsWith('.think') && unexplored(label) && !continuations.has(label)) continuations.set(label, { state: snapshot, seed: entry.seed, path: [...entry.path, ...sent] });
        current = { from: stateLabel(snapshot.value as never), event };
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
interface Continuation { state: Snapshot; seed: unknown; path: Witness['path'] }

/** A readable coverage table: every transition, covered or not, and unreachable states. */
export function formatCoverage(report: CoverageReport, title: string): string {
  const lines = [`${title}: ${report.covered.size}/${report.transitions.length} transitions covered (${report.statesExplored} abstract states explored)`];
  for (const info of report.transitions) {
    const reason = report.reasons?.get(info.key);
    lines.push(`  ${report.covered.has(info.key) ? '✓' : '✗'} ${info.key}${!report.covered.has(info.key) && reason ? `  (${reason})` : ''}`);
  }
  if (report.unreachableStates.length > 0) lines.push(`  unreachable states: ${report.unreachableStates.join(', ')}`);
  return lines.join('\n');
}

/**
 * The counts the rules' counting guards compare (`phaseSteps(min=3)`, the
 * gate's `runs`, …), each with the largest threshold used: the path search
 * tells states apart by them, so it walks a count up to every threshold.
 */
function countingThresholds(rules: Rules): Array<{ guard: string; read(view: GuardView): number; max: number }> {
  const cached = thresholdCache.get(rules);
  if (cached) return cached;
  const found = new Map<string, { read(view: GuardView): number; max: number }>();
  const note = (guard: string, params: Record<string, unknown>) => {
    if (!isBuiltInGuard(guard)) return;
    const counts = BUILT_IN_GUARDS[guard].counts;
    const threshold = counts ? params[counts.param] : undefined;
    if (!counts || typeof threshold !== 'number' || isStallRuleName(guard)) return;
    const old = found.get(guard);
    found.set(guard, { read: counts.read, max: Math.max(old?.max ?? 0, threshold) });
  };
  const visit = (condition: Condition) => {
    condition.all?.forEach(visit);
    condition.any?.forEach(visit);
    if (condition.not) visit(condition.not);
    if (condition.guard) note(condition.guard, condition as Record<string, unknown>);
  };
  for (const phase of PHASES) if (rules.phases[phase].enabled) phaseExits(phase, rules).forEach(visit);
  if (rules.verification.gate && rules.verification.runs > 1) note('testsPassedSinceLastEdit', { runs: rules.verification.runs });
  // Stall guards count within a turn: their own witness patterns reach their limits (see witnesses.ts).
  const list = [...found].sort(([a], [b]) => a.localeCompare(b)).map(([guard, entry]) => ({ guard, ...entry }));
  thresholdCache.set(rules, list);
  return list;
}

const thresholdCache = new WeakMap<Rules, Array<{ guard: string; read(view: GuardView): number; max: number }>>();

/** A state node's id as `stateIds` gives it: its dotted path below the root. */
function stateIdOf(id: string, rootId: string): string {
  return id.startsWith(`${rootId}.`) ? id.slice(rootId.length + 1) : id;
}
