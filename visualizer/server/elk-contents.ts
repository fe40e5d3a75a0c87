import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { type EdgeGroup, elkEdge, labelLines, nodeWidth } from './edge-groups.js';
import { COMPOUND_OPTIONS } from './elk-engine.js';
import type { Box } from './graph-types.js';
import type { MachineShape, NodeShape } from './machine-graph.js';
import { METRICS } from './metrics.js';

/**
 * The children and the arrows laid out inside one container; the root draws
 * itself as "any state" when it has arrows. A compound for which `fixed`
 * gives a size is laid out as one box of that size (a closed phase, or an
 * open one whose inside is already laid out).
 */
export function elkContents(
  shape: MachineShape,
  container: string,
  edges: EdgeGroup[],
  rail: Set<string>,
  fixed: (node: NodeShape) => { width: number; height: number } | null,
  arrow: (edge: EdgeGroup) => ElkExtendedEdge = wholeArrow,
): Pick<ElkNode, 'children' | 'edges'> {
  const own = edges.filter((edge) => edge.container === container);
  const root = shape.nodes.find((node) => node.kind === 'root');
  const drawRoot = container === shape.machineId && root !== undefined && !rail.has(root.id) && own.some((edge) => edge.source === root.id);
  const children = shape.nodes
    .filter((node) => node.parent === container && !rail.has(node.id))
    .map((node): ElkNode => {
      const size = fixed(node);
      if (size) return { id: node.id, ...size };
      const inner = elkContents(shape, node.id, edges, rail, fixed, arrow);
      return (inner.children?.length ?? 0) > 0 ? { id: node.id, layoutOptions: COMPOUND_OPTIONS, ...inner } : leaf(node);
    });
  return { children: [...(drawRoot ? [leaf(root)] : []), ...children], edges: own.map(arrow) };
}

/** An arrow of the whole chart: its transitions' labels, at most three lines; arrows into final states unlabelled. */
export function wholeArrow(edge: EdgeGroup): ElkExtendedEdge {
  return elkEdge(edge, edge.toFinal ? [] : labelLines(edge.lines), { charWidth: METRICS.labelCharWidth, lineHeight: METRICS.labelLineHeight });
}

export function boxesOf(nodes: Map<string, ElkNode>): Map<string, Box> {
  return new Map([...nodes].map(([id, node]) => [id, { x: node.x ?? 0, y: node.y ?? 0, width: node.width ?? 0, height: node.height ?? 0 }]));
}

function leaf(node: NodeShape): ElkNode {
  return { id: node.id, width: nodeWidth(node), height: node.invokes.length > 0 ? METRICS.invokeHeight : METRICS.nodeHeight };
}
