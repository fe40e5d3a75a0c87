import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { layoutRail } from './finals-rail.js';
import type { Box, GraphEdge, GraphNode, StatechartGraph } from './graph-types.js';
import { arrowEnds, type MachineShape, type NodeShape } from './machine-graph.js';
import { METRICS } from './metrics.js';

type ElkClass = typeof import('elkjs/lib/elk-api.js').default;

/** elkjs is 1.5 MB of JavaScript: it loads with the first layout, not with every `rein` command. */
async function loadElk(): Promise<ElkClass> {
  // CommonJS with an ES-style default: the namespace's `default` is `module.exports`, whose `default` is the class.
  const loaded = await import('elkjs/lib/elk.bundled.js') as unknown as { default: { default: ElkClass } };
  return loaded.default.default;
}

const ROOT_OPTIONS = {
  'elk.algorithm': 'layered',
  'elk.direction': 'RIGHT',
  'elk.hierarchyHandling': 'SEPARATE_CHILDREN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.nodePlacement.strategy': 'SIMPLE',
  'elk.layered.spacing.nodeNodeBetweenLayers': '48',
  'elk.layered.spacing.edgeNodeBetweenLayers': '16',
  'elk.spacing.nodeNode': '28',
  'elk.spacing.edgeNode': '14',
  'elk.spacing.edgeEdge': '8',
  'elk.spacing.edgeLabel': '3',
  'elk.edgeLabels.placement': 'CENTER',
  'elk.json.edgeCoords': 'ROOT',
  'elk.json.shapeCoords': 'ROOT',
  'elk.padding': '[top=12,left=12,bottom=12,right=12]',
};

const COMPOUND_OPTIONS = {
  'elk.algorithm': 'layered',
  'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
  'elk.direction': 'DOWN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.layered.spacing.nodeNodeBetweenLayers': '26',
  'elk.layered.spacing.edgeNodeBetweenLayers': '10',
  'elk.spacing.nodeNode': '18',
  'elk.spacing.edgeNode': '10',
  'elk.spacing.edgeEdge': '7',
  'elk.spacing.edgeLabel': '2',
  'elk.edgeLabels.placement': 'CENTER',
  'elk.padding': `[top=${METRICS.compoundHeader + 10},left=12,bottom=12,right=12]`,
};

/**
 * Lays the machine out with ELK (layered, orthogonal edges; each compound
 * state laid out inside its box; top-level phases left to right) and returns
 * the drawable graph. Top-level final states sit on a rail underneath (see
 * `layoutRail`), so the chart stays about twice as wide as it is tall.
 *
 * @example const graph = await layoutMachine(describeMachine(machine));
 */
export async function layoutMachine(shape: MachineShape): Promise<StatechartGraph> {
  const nodesById = new Map(shape.nodes.map((node) => [node.id, node]));
  const edges = groupEdges(shape, nodesById);
  const rail = railNodes(shape, edges);
  const onRail = (edge: EdgeGroup) => edge.container === shape.machineId && (rail.has(edge.target) || rail.has(edge.source));
  const ELK = await loadElk();
  const laidOut: ElkNode = await new ELK().layout({
    id: '__layout_root__',
    layoutOptions: ROOT_OPTIONS,
    ...elkContents(shape, shape.machineId, edges.filter((edge) => !onRail(edge)), rail),
  });
  const boxes = new Map<string, ElkNode>();
  const routed = new Map<string, ElkExtendedEdge>();
  const collect = (node: ElkNode) => {
    boxes.set(node.id, node);
    for (const edge of node.edges ?? []) routed.set(edge.id, edge);
    node.children?.forEach(collect);
  };
  collect(laidOut);
  const railed = layoutRail(shape.nodes.filter((node) => rail.has(node.id)), edges.filter(onRail), boxesOf(boxes), { width: laidOut.width ?? 0, bottom: (laidOut.height ?? 0) - 12 });
  const nodes: GraphNode[] = shape.nodes.map((node) => {
    const box = railed.boxes.get(node.id) ?? boxes.get(node.id);
    return { ...node, x: box?.x ?? 0, y: box?.y ?? 0, width: box?.width ?? 0, height: box?.height ?? 0 };
  });
  return {
    machineId: shape.machineId,
    width: rail.size > 0 ? railed.width : Math.ceil(laidOut.width ?? 0),
    height: rail.size > 0 ? railed.height : Math.ceil(laidOut.height ?? 0),
    nodes,
    edges: edges.map((edge) => placedEdge(edge, routed.get(edge.id), railed.routes.get(edge.id))),
    transitions: shape.transitions,
  };
}

interface EdgeGroup {
  id: string;
  source: string;
  target: string;
  /** The compound state whose box contains the arrow (the machine id at the top). */
  container: string;
  transitions: string[];
  lines: string[];
  toFinal: boolean;
}

function groupEdges(shape: MachineShape, nodesById: Map<string, NodeShape>): EdgeGroup[] {
  const groups = new Map<string, EdgeGroup>();
  for (const transition of shape.transitions) {
    const ends = arrowEnds(transition, nodesById, shape.machineId);
    if (!ends) continue;
    const id = ends.id;
    const group = groups.get(id) ?? { ...ends, transitions: [], lines: [], toFinal: nodesById.get(ends.target)?.kind === 'final' };
    group.transitions.push(transition.id);
    if (transition.label && !group.lines.includes(transition.label)) group.lines.push(transition.label);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/**
 * The rail under the chart: the top-level final states, and the root's "any
 * state" node when all its arrows go there. Everything else is ELK's.
 */
function railNodes(shape: MachineShape, edges: EdgeGroup[]): Set<string> {
  const finals = shape.nodes.filter((node) => node.kind === 'final' && node.parent === shape.machineId).map((node) => node.id);
  const rootEdges = edges.filter((edge) => edge.source === shape.machineId);
  const rootOnRail = rootEdges.length > 0 && rootEdges.every((edge) => finals.includes(edge.target));
  return new Set([...finals, ...(rootOnRail ? [shape.machineId] : [])]);
}

/** The children and the arrows laid out inside one container; the root draws itself as "any state" when it has arrows. */
function elkContents(shape: MachineShape, container: string, edges: EdgeGroup[], rail: Set<string>): Pick<ElkNode, 'children' | 'edges'> {
  const own = edges.filter((edge) => edge.container === container);
  const root = shape.nodes.find((node) => node.kind === 'root');
  const drawRoot = container === shape.machineId && root !== undefined && !rail.has(root.id) && own.some((edge) => edge.source === root.id);
  const children = shape.nodes.filter((node) => node.parent === container && !rail.has(node.id)).map((node): ElkNode => {
    const inner = elkContents(shape, node.id, edges, rail);
    return (inner.children?.length ?? 0) > 0 ? { id: node.id, layoutOptions: COMPOUND_OPTIONS, ...inner } : leaf(node);
  });
  return { children: [...(drawRoot ? [leaf(root)] : []), ...children], edges: own.map(elkEdge) };
}

function boxesOf(nodes: Map<string, ElkNode>): Map<string, Box> {
  return new Map([...nodes].map(([id, node]) => [id, { x: node.x ?? 0, y: node.y ?? 0, width: node.width ?? 0, height: node.height ?? 0 }]));
}

function leaf(node: NodeShape): ElkNode {
  return { id: node.id, width: nodeWidth(node), height: node.invokes.length > 0 ? METRICS.invokeHeight : METRICS.nodeHeight };
}

/** Width for the state's name (and its invoke line), from the page's font metrics. */
export function nodeWidth(node: Pick<NodeShape, 'key' | 'kind' | 'invokes'>): number {
  const text = node.kind === 'root' ? 'any state' : node.key;
  const invoke = node.invokes.length > 0 ? `⇢ ${node.invokes.join(', ')}` : '';
  const chars = Math.max(text.length, invoke.length * 0.9);
  return Math.max(METRICS.nodeMinWidth, Math.ceil(chars * METRICS.nodeCharWidth + 24));
}

/** The label's lines, at most `maxLabelLines`; the rest is counted (the page lists them all). */
export function labelLines(lines: string[]): string[] {
  if (lines.length <= METRICS.maxLabelLines) return lines;
  const shown = lines.slice(0, METRICS.maxLabelLines - 1);
  return [...shown, `+${lines.length - shown.length} more`];
}

function elkEdge(edge: EdgeGroup): ElkExtendedEdge {
  const lines = edge.toFinal ? [] : labelLines(edge.lines);
  const width = Math.max(0, ...lines.map((line) => line.length)) * METRICS.labelCharWidth + 6;
  const labels = lines.length > 0 ? [{ id: `${edge.id}#label`, text: lines.join('\n'), width, height: lines.length * METRICS.labelLineHeight + 2 }] : [];
  return { id: edge.id, sources: [edge.source], targets: [edge.target], labels };
}

function placedEdge(edge: EdgeGroup, routed: ElkExtendedEdge | undefined, railRoute: Array<{ x: number; y: number }> | undefined): GraphEdge {
  const section = routed?.sections?.[0];
  const points = railRoute ?? (section ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(({ x, y }) => ({ x, y })) : []);
  const label = routed?.labels?.[0];
  return {
    id: edge.id,
    source: edge.source,
    target: edge.target,
    transitions: edge.transitions,
    lines: edge.lines,
    toFinal: edge.toFinal,
    points,
    label: label ? { text: label.text ?? '', x: label.x ?? 0, y: label.y ?? 0, width: label.width ?? 0, height: label.height ?? 0 } : null,
  };
}
