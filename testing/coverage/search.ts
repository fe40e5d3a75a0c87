import { type AnyTransitionDefinition, createActor, type StateValue } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { GATE_GUARD } from '../../machines/gate.js';
import { BUILT_IN_GUARDS, type BuiltInGuardName, guardParams, isBuiltInGuard } from '../../machines/guards/catalogue.js';
import { type GuardView, guardView } from '../../machines/guards/guard-view.js';
import type { HarnessMachine } from '../../machines/harness-machine.js';
import { initialContext } from '../../machines/initial-context.js';
import { microstepTransitions, stateLabel } from '../../machines/introspection.js';
import { phaseExits, stepCap } from '../../machines/phase-exits.js';
import type { HarnessContext } from '../../machines/types.js';
import { type Condition, enabledPhases, type Rules } from '../../rules/schema.js';
import { isStallRuleName } from '../../rules/stall-rules.js';
import type { Witness } from './report.js';
import { type Focus, stallLimits, witnessEvents, witnessIdKind } from './witnesses.js';

/**
 * The path search of model-based coverage: breadth-first shortest paths over
 * one focus of the witness alphabet, abstract states told apart by the facts
 * that decide that focus's guards, and firing an event from a state with real
 * XState actors to see which transitions it takes.
 */

export type Snapshot = { value: StateValue; context: HarnessContext; status: string };

export const FOCUSES: readonly Focus[] = ['phases', 'stall', 'runtime'];

/** Distinct abstract states reachable over one focus of the witness alphabet, from the start (and, for runtime, from budget seeds in every phase). */
export function reachableStates(
  machine: HarnessMachine,
  rules: Rules,
  focus: Focus,
  limit: number,
  phasesReached: ReadonlySet<string>,
): Array<{ state: Snapshot; seed: unknown; path: Witness['path'] }> {
  const seeds: Array<unknown> = [undefined, ...(focus === 'runtime' ? budgetSeeds(machine, rules, phasesReached) : [])];
  const found = new Map<string, { state: Snapshot; seed: unknown; path: Witness['path'] }>();
  for (const fromState of seeds) {
    for (const { state, path } of pathsFrom(machine, rules, focus, limit, fromState))
      found.set(signature(state, rules, focus), { state, seed: fromState, path });
  }
  return [...found.values()];
}

/** States just before the step warning and the step limit, in each of these phases (so the budget exits are taken there). */
export function budgetSeeds(machine: HarnessMachine, rules: Rules, phases: ReadonlySet<string>): unknown[] {
  const base = initialContext({ task: 'task', testCmd: 'npm test' }, rules);
  const max = rules.budgets.maxSteps;
  // A phase that can only take a few steps (maxSteps, entered once) never gets near the budget: no seed there.
  return enabledPhases(rules)
    .filter((name) => phases.has(name) && stepCap(name, rules) === Number.POSITIVE_INFINITY)
    .flatMap((phase) => {
      // As if the phase had just been entered that late in the run, so what counts steps in the phase starts at 0.
      const facts = { ...base.facts, phaseStartStep: 0 };
      const at = (step: number, steps: boolean) =>
        machine.resolveState({
          value: { [phase]: 'observe' },
          context: { ...base, phase, recordLength: 2, step, facts: { ...facts, phaseStartStep: step }, warned: steps ? { steps: true } : {} },
        });
      return [at(Math.ceil(max * (rules.budgets.stepWarnAt ?? rules.budgets.warnAt)) - 1, false), at(max - 1, true)];
    });
}

/** Breadth-first shortest paths over one focus of the witness alphabet, from the start or from a given state; active states only. */
export function pathsFrom(
  machine: HarnessMachine,
  rules: Rules,
  focus: Focus,
  limit: number,
  fromState?: unknown,
): Array<{ state: Snapshot; path: Witness['path'] }> {
  const paths = getShortestPaths(machine, {
    input: { task: 'task', testCmd: 'npm test' },
    limit,
    // xstate/graph types states and events by the machine's own unions; the search walks plain snapshots and witness events.
    ...(fromState ? { fromState: fromState as never } : {}),
    events: (snapshot) => witnessEvents(snapshot, rules, focus) as never,
    serializeState: (snapshot) => signature(snapshot as unknown as Snapshot, rules, focus),
  });
  return (
    paths
      // The traversal's states are the machine's snapshots; the search reads them as the plain Snapshot shape.
      .filter((path) => (path.state as unknown as Snapshot).status === 'active')
      .map((path) => ({ state: path.state as unknown as Snapshot, path: path.steps.map((step) => step.event as Witness['path'][number]) }))
  );
}

/** The facts that decide which guards of this focus can hold: what the search treats as one state. */
/** The built-in guards of the gate's condition besides the test guard, with their parameters. */
function gateLeaves(rules: Rules): Array<{ guard: BuiltInGuardName; params: Record<string, unknown> }> {
  const cached = gateLeafCache.get(rules);
  if (cached) return cached;
  const leaves: Array<{ guard: BuiltInGuardName; params: Record<string, unknown> }> = [];
  const visit = (condition: Condition) => {
    condition.all?.forEach(visit);
    condition.any?.forEach(visit);
    if (condition.not) visit(condition.not);
    const { guard, all: _all, any: _any, not: _not, ...raw } = condition;
    if (guard !== undefined && guard !== GATE_GUARD && isBuiltInGuard(guard)) leaves.push({ guard, params: guardParams(guard, raw) });
  };
  if (rules.verification.when) visit(rules.verification.when);
  gateLeafCache.set(rules, leaves);
  return leaves;
}

const gateLeafCache = new WeakMap<Rules, Array<{ guard: BuiltInGuardName; params: Record<string, unknown> }>>();

function signature(snapshot: Snapshot, rules: Rules, focus: Focus): string {
  const { facts, turn, stall, warned, step, cursor, calls, forceCompaction, contextState } = snapshot.context;
  const label = stateLabel(snapshot.value);
  const acting = label.endsWith('.act');
  // The calls still to run decide what the approval and hook states do next, as they decide the act state's results.
  const deciding = acting || /\.(screen|preToolHook|postToolHook|finishHook|awaitingApproval|afterTools)$/.test(label);
  const pending = deciding ? calls.slice(cursor).map((call) => `${call.function.name}:${witnessIdKind(call.id)}`) : [];
  const gateFacts = [
    facts.lastPassSeq > facts.lastEditSeq,
    facts.lastPassSeq >= 0,
    facts.lastEditSeq > facts.lastTestSeq,
    facts.lastEditSeq > facts.phaseStartSeq,
    facts.lastTestSeq > facts.phaseStartSeq,
  ];
  // The call waiting for an answer, and what the tool actor may run now: the answer and the results are built from them.
  const { approvals } = snapshot.context;
  const waiting = label.endsWith('.awaitingApproval') && approvals.pending ? `${witnessIdKind(approvals.pending.callId)}:${approvals.pending.argsHash}` : null;
  // Verdicts, not only which calls were decided: an approved call and a denied one lead to different results.
  const batch = acting ? [approvals.runUntil, Object.entries(approvals.decided).map(([id, decided]) => `${witnessIdKind(id)}:${decided.verdict}`)] : null;
  // A result held for the postToolUse hooks is recorded when they answer: which one (its id carries it) decides the facts.
  const held = label.endsWith('.postToolHook')
    ? snapshot.context.heldResults?.results.map((result) => `${witnessIdKind(result.id)}:${result.outcome.ok}`)
    : null;
  // A settleHook waits between a turn and its settle state, whose exits read that turn's facts.
  const judgesTurn = acting || label.endsWith('.settleHook');
  const common = [label, snapshot.status, judgesTurn ? turn : null, pending, waiting, batch, held];
  if (focus === 'phases') {
    // Guards that count (phaseSteps, gateRefusals, …): each count up to the largest threshold a rule compares it with.
    const view = guardView(snapshot.context);
    const counts = countingThresholds(rules).map(({ read, max }) => Math.min(read(view), max));
    // The gate's other guards (todoComplete, filesChanged, …) read facts the counts above do not: whether each holds.
    const gate = gateLeaves(rules).map(({ guard, params }) => BUILT_IN_GUARDS[guard].test(view, params as never));
    return JSON.stringify([...common, gateFacts, counts, gate]);
  }
  if (focus === 'runtime') {
    const stepBucket =
      step >= rules.budgets.maxSteps ? 2 : step >= Math.ceil(rules.budgets.maxSteps * (rules.budgets.stepWarnAt ?? rules.budgets.warnAt)) ? 1 : 0;
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
  const exitLimits = [...stallLimits(rules, snapshot.context.phase)].flatMap(([guard, limits]) =>
    limits.map((limit) => Number((stall.counters[guard]?.peak ?? 0) >= limit)),
  );
  const firings = rules.stall.rules.map((rule) => Math.min(rules.stall.maxNudges, stall.counters[rule.guard]?.firings ?? 0));
  // Once nudged, the search repeats that rule's pattern; whether the last action already belongs to it
  // decides whether the next turn continues the stall or starts over, so it is part of the state.
  const lastAction = firings.some((count) => count > 0) ? stall.lastActions[0] : null;
  return JSON.stringify([...common, stallFacts, exitLimits, firings, lastAction]);
}

export function fire(
  machine: HarnessMachine,
  state: Snapshot,
  event: { type: string },
  onTransition: (definition: AnyTransitionDefinition, from: string) => void,
): void {
  // A snapshot rebuilt from a plain state: resolveState, input and send are typed by the machine's unions, which witnesses match only at run time.
  const start = machine.resolveState({ value: state.value as never, context: state.context });
  const from = stateLabel(state.value);
  const actor = createActor(machine, {
    input: undefined as never,
    snapshot: start as never,
    inspect: (inspection) => {
      if (inspection.type === '@xstate.microstep' && inspection.actorRef === actor)
        for (const definition of microstepTransitions(inspection)) onTransition(definition, from);
    },
  });
  actor.subscribe({ error: () => undefined });
  actor.start();
  actor.send(event as never);
  actor.stop();
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
  for (const phase of enabledPhases(rules)) phaseExits(phase, rules).forEach(visit);
  if (rules.verification.gate && rules.verification.runs > 1) note('testsPassedSinceLastEdit', { runs: rules.verification.runs });
  // Stall guards count within a turn: their own witness patterns reach their limits (see witnesses.ts).
  const list = [...found].sort(([a], [b]) => a.localeCompare(b)).map(([guard, entry]) => ({ guard, ...entry }));
  thresholdCache.set(rules, list);
  return list;
}

const thresholdCache = new WeakMap<Rules, Array<{ guard: string; read(view: GuardView): number; max: number }>>();
