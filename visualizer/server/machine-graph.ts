import { guardName } from 'rein/machines';
import type { AnyStateMachine, AnyTransitionDefinition } from 'xstate';
import { toDirectedGraph } from 'xstate/graph';
import type { GraphNode, GraphTransition, GuardRef, NodeKind } from './graph-types.js';
import { chartGuard } from './guard-phrases.js';
import { transitionLabel } from './transition-label.js';

type StateNodeLike = AnyStateMachine['root'];
type DirectedNode = ReturnType<typeof toDirectedGraph>;

/** A node before layout: every field of `GraphNode` but the box. */
export type NodeShape = Omit<GraphNode, 'x' | 'y' | 'width' | 'height'>;

/** The machine's states and transitions, in document order, without positions. */
export interface MachineShape {
  machineId: string;
  nodes: NodeShape[];
  transitions: GraphTransition[];
}

/**
 * Reads the states and transitions out of a machine definition: the
 * hierarchy and event transitions from `toDirectedGraph`, eventless
 * (`always`) transitions from each state node, guards and actions by name.
 * Nothing is hand-kept: a rule change shows up here at once.
 *
 * @example const shape = describeMachine(createHarnessMachine(defaultRules()));
 */
export function describeMachine(machine: AnyStateMachine): MachineShape {
  const machineId = machine.root.id;
  const nodes: NodeShape[] = [];
  const transitions: GraphTransition[] = [];
  const visit = (graphNode: DirectedNode) => {
    const stateNode = graphNode.stateNode;
    nodes.push(nodeShape(stateNode, machineId));
    transitions.push(...transitionsOf(stateNode, graphNode, machineId));
    graphNode.children.forEach(visit);
  };
  visit(toDirectedGraph(machine));
  const nodesById = new Map(nodes.map((node) => [node.id, node]));
  for (const transition of transitions) transition.edge = arrowEnds(transition, nodesById, machineId)?.id ?? null;
  return { machineId, nodes, transitions };
}

/** A state node's id in the trace's terms: its dotted path, or the machine id for the root. */
function nodeId(stateNode: Pick<StateNodeLike, 'path'>, machineId: string): string {
  return stateNode.path.length === 0 ? machineId : stateNode.path.join('.');
}

function nodeShape(stateNode: StateNodeLike, machineId: string): NodeShape {
  const id = nodeId(stateNode, machineId);
  const parent = stateNode.parent ? nodeId(stateNode.parent, machineId) : null;
  const initialTarget = stateNode.type === 'compound' || stateNode.type === 'parallel' ? stateNode.initial?.target[0] : undefined;
  return {
    id,
    key: stateNode.path.at(-1) ?? machineId,
    parent,
    kind: kindOf(stateNode),
    ...(stateNode.description ? { description: stateNode.description } : {}),
    ...(initialTarget ? { initial: nodeId(initialTarget, machineId) } : {}),
    invokes: stateNode.invoke.map((invoke) => (typeof invoke.src === 'string' ? invoke.src : invoke.id)),
    entry: stateNode.entry.map(actionName).filter(Boolean),
  };
}

function kindOf(stateNode: StateNodeLike): NodeKind {
  if (stateNode.path.length === 0) return 'root';
  if (stateNode.type === 'final') return 'final';
  return stateNode.type === 'compound' || stateNode.type === 'parallel' ? 'compound' : 'state';
}

function transitionsOf(stateNode: StateNodeLike, graphNode: DirectedNode, machineId: string): GraphTransition[] {
  const source = nodeId(stateNode, machineId);
  // toDirectedGraph gives one edge per target; a transition is listed once.
  const withEvents = [...new Set(graphNode.edges.map((edge) => edge.transition))];
  const lists: Array<[string | null, readonly AnyTransitionDefinition[]]> = [
    ...[...new Set(withEvents.map((transition) => transition.eventType))].map((event): [string, AnyTransitionDefinition[]] => [
      event,
      stateNode.transitions.get(event) ?? [],
    ]),
    [null, stateNode.always ?? []],
  ];
  const ownInvoke = stateNode.invoke.length === 1 ? stateNode.invoke[0]!.id : undefined;
  return lists.flatMap(([event, list]) =>
    list.map((transition, order) => describeTransition(transition, { source, event, order, list, machineId, ownInvoke })),
  );
}

interface Place {
  source: string;
  event: string | null;
  order: number;
  list: readonly AnyTransitionDefinition[];
  machineId: string;
  /** The id of the one actor the source invokes, if it invokes exactly one. */
  ownInvoke: string | undefined;
}

function describeTransition(transition: AnyTransitionDefinition, place: Place): GraphTransition {
  const targetNode = transition.target?.[0];
  const target = targetNode ? nodeId(targetNode, place.machineId) : null;
  const guard = guardRef(transition.guard);
  const isFallback = guard === null && place.list.slice(0, place.order).some((earlier) => earlier.guard !== undefined);
  return {
    id: `${place.source}|${place.event ?? 'always'}|${place.order}`,
    source: place.source,
    target,
    event: place.event,
    guard,
    actions: transition.actions.map(actionName).filter(Boolean),
    order: place.order,
    reenter: transition.reenter,
    label: transitionLabel(place.event, guard, isFallback, place.ownInvoke),
    text: transitionLabel(place.event, guard, isFallback, place.ownInvoke, chartGuard),
    edge: null,
  };
}

/**
 * A guard by name, with its parameters; the guards a combinator combines
 * (XState's `and`/`or`/`not`, or a `{ type, params }` nested in params) become
 * nested refs. Inline functions (which the style guide rules out) show their
 * function name.
 */
export function guardRef(guard: unknown): GuardRef | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return { name: guard };
  if (typeof guard === 'function') {
    const combined = (guard as { guards?: unknown }).guards;
    const nested = Array.isArray(combined) ? combined.map(guardRef).filter((ref): ref is GuardRef => ref !== null) : [];
    // The trace names a combinator by its parts (introspection's guardName); the page matches lines by that key.
    const key = guardName(guard) ?? undefined;
    const name = guard.name || 'inline guard';
    return { name, ...(nested.length > 0 ? { params: { guards: nested } } : {}), ...(key && key !== name ? { key } : {}) };
  }
  const { type, params } = guard as { type?: unknown; params?: unknown };
  const name = typeof type === 'string' ? type : 'inline guard';
  const plainParams =
    params !== null && typeof params === 'object' && Object.keys(params).length > 0 ? nestedRefs(params as Record<string, unknown>) : undefined;
  return plainParams ? { name, params: plainParams } : { name };
}

/** Params with every nested `{ type, params }` guard (alone or in a list) read as a guard ref. */
function nestedRefs(params: Record<string, unknown>): Record<string, unknown> {
  const asGuard = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const { type, params: inner, ...rest } = value as { type?: unknown; params?: unknown };
    return typeof type === 'string' && Object.keys(rest).length === 0 && (inner === undefined || typeof inner === 'object') ? guardRef(value) : value;
  };
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, Array.isArray(value) ? value.map(asGuard) : asGuard(value)]));
}

/** An action by name: `'warnSteps'`, `{ type: 'nudge', params }` or an inline function. */
function actionName(action: unknown): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'function') return action.name || 'inline action';
  const type = (action as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : '';
}

/**
 * Where a transition is drawn: between the outermost ancestors of its source
 * and target below their common ancestor, inside that ancestor's box
 * (`container`). The machine's own transitions start at the root's "any
 * state" node. Null for targetless transitions.
 */
export function arrowEnds(transition: Pick<GraphTransition, 'source' | 'target'>, nodesById: Map<string, NodeShape>, machineId: string) {
  if (transition.target === null) return null;
  const sourceChain = ancestry(transition.source, nodesById);
  const targetChain = ancestry(transition.target, nodesById);
  let depth = 0;
  while (depth < sourceChain.length && depth < targetChain.length && sourceChain[depth] === targetChain[depth]) depth++;
  const fromRoot = transition.source === machineId;
  // A self-transition (or one into the source's own child) keeps its deepest ends.
  const source = fromRoot ? machineId : sourceChain[Math.min(depth, sourceChain.length - 1)]!;
  const target = targetChain[Math.min(depth, targetChain.length - 1)]!;
  const container =
    fromRoot || depth === 0
      ? machineId
      : depth >= sourceChain.length || depth >= targetChain.length
        ? (sourceChain[depth - 2] ?? machineId)
        : sourceChain[depth - 1]!;
  return { id: `${source}->${target}`, source, target, container };
}

/** Ancestors below the root, outermost first, ending with the node itself. */
function ancestry(id: string, nodesById: Map<string, NodeShape>): string[] {
  const ids: string[] = [];
  for (let node = nodesById.get(id); node && node.kind !== 'root'; node = node.parent ? nodesById.get(node.parent) : undefined) ids.unshift(node.id);
  return ids;
}
