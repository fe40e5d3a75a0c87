/**
 * The statechart as plain JSON: what `buildStatechartGraph` returns, what the
 * page draws and what `rein rules graph --format json` prints. Node ids are
 * dotted state paths as the trace writes them (`build.act`, `done`); the root
 * is the machine id.
 */

/** A named guard, with its parameters when the config gives some: `repeatedAction` with `{ limit: 3 }`. */
export interface GuardRef {
  name: string;
  params?: Record<string, unknown>;
  /** The guard as trace lines name it (machines/introspection `guardName`), where that differs from `name`: `all(testRun, phaseSteps)`. */
  key?: string;
}

/** `root` is drawn as the "any state" source of the machine's own transitions. */
export type NodeKind = 'root' | 'compound' | 'state' | 'final';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GraphNode extends Box {
  id: string;
  /** The state's own key (`act`); the root's is the machine id. */
  key: string;
  parent: string | null;
  kind: NodeKind;
  description?: string;
  /** Id of the initial child, for compound states. */
  initial?: string;
  /** Sources of the actors the state invokes (`model`, `tools`). */
  invokes: string[];
  /** Names of the entry actions. */
  entry: string[];
}

export interface GraphTransition {
  id: string;
  /** The state node the transition belongs to (for a root transition, the machine id). */
  source: string;
  /** Null for a targetless transition (it only runs actions). */
  target: string | null;
  /** Null for an eventless (`always`) transition. */
  event: string | null;
  guard: GuardRef | null;
  actions: string[];
  /** Index in the source's ordered list for this event: XState takes the first whose guard holds. */
  order: number;
  reenter: boolean;
  /** Short label: `model.done [hasToolCalls]`, `[repeatedAction(limit: 3)]`, `[else]`. */
  label: string;
  /** The label as the page draws it: the same, but the gate's and "stall persists" guards in words. */
  text: string;
  /** The drawn edge that carries it; null for targetless transitions. */
  edge: string | null;
}

interface EdgeLabel extends Box {
  text: string;
}

/**
 * One drawn arrow. A transition that crosses a compound state's border is
 * drawn between the outermost states that differ (`plan.route → build.settle`
 * is the arrow `plan → build`), and every transition between the same two
 * drawn states shares one arrow.
 */
export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  transitions: string[];
  /** The label's lines: one per distinct transition label (as drawn: `text`). */
  lines: string[];
  /** True for arrows into final states: drawn quietly, labelled only when taken. */
  toFinal: boolean;
  /** The routed polyline, start to end. */
  points: Array<{ x: number; y: number }>;
  /** Where the label was laid out; null when the arrow is unlabelled or labelled only when taken. */
  label: EdgeLabel | null;
}

/**
 * The statechart as a whole (`nodes`, `edges`: every phase open) and at the
 * level of phases (`levels`): the same states and arrows, but with phases
 * drawn closed, as one box each, except the one a level opens.
 */
export interface StatechartGraph {
  machineId: string;
  width: number;
  height: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
  transitions: GraphTransition[];
  levels: PhaseLevels;
}

export interface PhaseLevels {
  /** Every phase closed: the phases, the other top-level states and the ways a run ends. */
  overview: ChartLevel;
  /** One level per phase, with that phase open (its turn cycle inside) and the others closed. */
  open: Record<string, ChartLevel>;
}

/** Where a level draws its states and arrows; a state or arrow it does not list is not drawn at that level. */
export interface ChartLevel {
  width: number;
  height: number;
  /** By node id: the drawn states (a closed phase is a box without children). */
  boxes: Record<string, Box>;
  /** By edge id (the ids of `StatechartGraph.edges`): the routed arrows. */
  routes: Record<string, LevelRoute>;
}

export interface LevelRoute {
  points: Array<{ x: number; y: number }>;
  /** The laid-out label; at the phase level it names the guards that can take the arrow. */
  label: EdgeLabel | null;
}
