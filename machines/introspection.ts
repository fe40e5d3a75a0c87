import { type AnyStateMachine, type AnyStateNode, type AnyTransitionDefinition, and, not, or, type StateValue } from 'xstate';
import { namedGuardLabel } from '../lib/guard-labels.js';

/**
 * Reading a built machine: state labels, its transitions, how its guards
 * and actions are named and labelled. The one place that knows XState's
 * internals (transition definitions, higher-order guards, microstep
 * transitions); coverage, the visualizer and the trace all read machines
 * through it, so they name things the same way.
 */

/**
 * A state value as a dotted path: `{ build: 'act' }` → `build.act`.
 *
 * @example stateLabel({ verify: 'think' }) // 'verify.think'
 */
export function stateLabel(value: StateValue): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value)[0] ?? ['', undefined];
  // Stryker disable next-line ConditionalExpression: a child state value is a state name or an object; a name has keys (its characters), so only '' (no state is called that) could tell the typeof check apart
  if (child === undefined || (typeof child === 'object' && Object.keys(child).length === 0)) return key;
  return `${key}.${stateLabel(child as StateValue)}`;
}

/** The tag on the states after which a run's state is saved (the model has replied; its calls are about to run). */
const CHECKPOINT_TAG = 'checkpoint';

/** Whether a snapshot is at a checkpoint. */
export function isCheckpoint(snapshot: { hasTag(tag: string): boolean }): boolean {
  return snapshot.hasTag(CHECKPOINT_TAG);
}

// XState's higher-order guards are functions carrying their parts; their `check` functions say which kind they are.
const COMBINATORS = new Map<unknown, 'all' | 'any' | 'not'>([
  // XState keeps a combinator's check function and its parts on the guard object without a public type.
  [(and([]) as unknown as { check: unknown }).check, 'all'],
  [(or([]) as unknown as { check: unknown }).check, 'any'],
  [(not('x') as unknown as { check: unknown }).check, 'not'],
]);

/** A guard as the machine holds it, read: a named guard with parameters, or a combinator of guards. */
type GuardShape = { name: string; params?: Record<string, unknown> } | { combinator: 'all' | 'any' | 'not'; parts: GuardShape[] };

/** Reads a transition's guard: `'name'`, `{ type, params }`, or XState's `and`/`or`/`not`. Null for no guard. */
export function guardShape(guard: unknown): GuardShape | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return { name: guard };
  if (typeof guard === 'function') {
    // The same untyped fields, read from a guard in a machine definition.
    const { check, guards } = guard as unknown as { check?: unknown; guards?: unknown[] };
    const combinator = COMBINATORS.get(check);
    // Stryker disable next-line ArrayDeclaration: XState always gives a combinator its parts array; the fallback only keeps a malformed one from throwing
    if (combinator) return { combinator, parts: (guards ?? []).map(guardShape).filter((part): part is GuardShape => part !== null) };
    return { name: guard.name || 'inline guard' };
  }
  const { type, params } = guard as { type?: unknown; params?: unknown };
  const name = typeof type === 'string' ? type : 'inline guard';
  // Parameters computed from the event (a function) are not part of the guard's description.
  const plain = params !== null && typeof params === 'object' && Object.keys(params).length > 0 ? (params as Record<string, unknown>) : undefined;
  return plain ? { name, params: plain } : { name };
}

/**
 * A guard's name as the trace and the chart match it: the guard's own name,
 * or `all(a, b)` / `any(a, b)` / `not(a)` for combinators.
 *
 * @example guardName(and([{ type: 'testRun' }, { type: 'phaseSteps', params: { min: 2 } }])) // 'all(testRun, phaseSteps)'
 */
export function guardName(guard: unknown): string | null {
  const shape = guardShape(guard);
  return shape ? nameOf(shape) : null;
}

function nameOf(shape: GuardShape): string {
  return 'name' in shape ? shape.name : `${shape.combinator}(${shape.parts.map(nameOf).join(', ')})`;
}

/**
 * A guard as people read it, with the numbers it compares: `phaseSteps(min=3)`,
 * `stallPersists(maxNudges=3)`, `all(testRun, phaseSteps(min=2))`.
 */
export function guardLabel(guard: unknown): string | null {
  const shape = guardShape(guard);
  return shape ? labelOf(shape) : null;
}

function labelOf(shape: GuardShape): string {
  if (!('name' in shape)) return `${shape.combinator}(${shape.parts.map(labelOf).join(', ')})`;
  return namedGuardLabel(shape.name, shape.params);
}

/** An action by name: `'deliverNotices'`, `{ type: 'nudge', params }`, or an inline function's name. */
export function actionName(action: unknown): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'function') return action.name || 'inline action';
  const type = (action as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : '';
}

/** One transition of a machine, named as `rein rules graph` and coverage name it. */
export interface TransitionInfo {
  key: string;
  source: string;
  event: string;
  /** The guard's label (with parameters), or null. */
  guard: string | null;
  targets: string[];
  definition: AnyTransitionDefinition;
}

const shortId = (id: string, rootId: string) => (id.startsWith(`${rootId}.`) ? id.slice(rootId.length + 1) : id);

/**
 * Every transition in a machine: one entry per guarded alternative of each
 * event, eventless (`always`) and invoke done/error transition, in document
 * order; keys are unique (a repeat gets ` #2`).
 */
export function listTransitions(machine: AnyStateMachine): TransitionInfo[] {
  const rootId = machine.root.id;
  const list: TransitionInfo[] = [];
  const visit = (node: AnyStateNode) => {
    for (const [event, definitions] of node.transitions) for (const definition of definitions) list.push(describe(node, event, definition, rootId));
    for (const definition of node.always ?? []) list.push(describe(node, 'always', definition, rootId));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  const seen = new Map<string, number>();
  return list.map((info) => {
    const count = seen.get(info.key) ?? 0;
    seen.set(info.key, count + 1);
    return count === 0 ? info : { ...info, key: `${info.key} #${count + 1}` };
  });
}

function describe(node: AnyStateNode, event: string, definition: AnyTransitionDefinition, rootId: string): TransitionInfo {
  const guard = guardLabel(definition.guard);
  const targets = (definition.target ?? []).map((target: AnyStateNode) => shortId(target.id, rootId));
  const source = shortId(node.id, rootId);
  return { key: `${source} --${event}${guard ? ` [${guard}]` : ''}--> ${targets.join(',') || '(self)'}`, source, event, guard, targets, definition };
}

/** Every state of a machine below the root, as dotted ids (`build.think`). */
export function stateIds(machine: AnyStateMachine): string[] {
  const rootId = machine.root.id;
  const ids: string[] = [];
  const visit = (node: AnyStateNode) => {
    if (node !== machine.root) ids.push(shortId(node.id, rootId));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return ids;
}

/** The transitions XState took in one microstep (from the inspection stream), which its public types do not expose. */
export function microstepTransitions(event: { type: string }): readonly AnyTransitionDefinition[] {
  return (event as { _transitions?: readonly AnyTransitionDefinition[] })._transitions ?? [];
}
