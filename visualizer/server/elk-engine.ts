import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { METRICS } from './metrics.js';

type ElkClass = typeof import('elkjs/lib/elk-api.js').default;
type Elk = InstanceType<ElkClass>;

let engine: Promise<Elk> | null = null;

/** elkjs is 1.5 MB of JavaScript: it loads with the first layout, not with every `rein` command, and once. */
function loadElk(): Promise<Elk> {
  engine ??= import('elkjs/lib/elk.bundled.js').then((loaded) => {
    // CommonJS with an ES-style default: the namespace's `default` is `module.exports`, whose `default` is the class.
    const ELK = (loaded as unknown as { default: { default: ElkClass } }).default.default;
    return new ELK();
  });
  return engine;
}

/**
 * Lays out one ELK graph and returns every node's box and every edge's
 * route by id, with root coordinates.
 *
 * @example const { root, nodes, edges } = await runElk({ id: 'root', layoutOptions: topOptions('RIGHT'), children, edges });
 */
export async function runElk(graph: ElkNode): Promise<{ root: ElkNode; nodes: Map<string, ElkNode>; edges: Map<string, ElkExtendedEdge> }> {
  const root = await (await loadElk()).layout(graph);
  const nodes = new Map<string, ElkNode>();
  const edges = new Map<string, ElkExtendedEdge>();
  const collect = (node: ElkNode) => {
    nodes.set(node.id, node);
    for (const edge of node.edges ?? []) edges.set(edge.id, edge);
    node.children?.forEach(collect);
  };
  collect(root);
  return { root, nodes, edges };
}

/** The top of a chart: layered, orthogonal arrows, each compound laid out inside its own box, in the machine's order. */
export function topOptions(direction: 'RIGHT' | 'DOWN', spacing: { layers: number; nodes: number; label: number }): Record<string, string> {
  return {
    'elk.algorithm': 'layered',
    'elk.direction': direction,
    'elk.hierarchyHandling': 'SEPARATE_CHILDREN',
    'elk.edgeRouting': 'ORTHOGONAL',
    ...(direction === 'DOWN' ? { 'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER' } : {}),
    'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
    'elk.layered.nodePlacement.strategy': direction === 'DOWN' ? 'NETWORK_SIMPLEX' : 'SIMPLE',
    'elk.layered.spacing.nodeNodeBetweenLayers': String(spacing.layers),
    'elk.layered.spacing.edgeNodeBetweenLayers': '16',
    'elk.spacing.nodeNode': String(spacing.nodes),
    'elk.spacing.edgeNode': '14',
    'elk.spacing.edgeEdge': '10',
    'elk.spacing.edgeLabel': String(spacing.label),
    'elk.edgeLabels.placement': 'CENTER',
    'elk.json.edgeCoords': 'ROOT',
    'elk.json.shapeCoords': 'ROOT',
    'elk.padding': '[top=12,left=12,bottom=12,right=12]',
  };
}

/** Inside a phase: the turn cycle top to bottom, cycles broken in the machine's order. */
export const COMPOUND_OPTIONS: Record<string, string> = {
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
