import type { Box, GraphEdge, GraphNode, LevelRoute, StatechartGraph } from '../server/graph-types.js';

/** `phases`: every phase closed; `phases:<id>`: that phase open; `whole`: every state of the machine. */
export type LevelKey = 'phases' | `phases:${string}` | 'whole';

interface DrawnNode {
  node: GraphNode;
  box: Box;
  /** A phase drawn as one box (its turn cycle hidden). */
  closed: boolean;
}

export interface DrawnEdge {
  edge: GraphEdge;
  route: LevelRoute;
}

/** What one level of the chart draws, and where. */
export interface DrawnLevel {
  key: LevelKey;
  /** The phase open at this level, if any. */
  open: string | null;
  width: number;
  height: number;
  nodes: DrawnNode[];
  edges: DrawnEdge[];
}

/** The phases of the chart: the compound states right under the machine, in its order. */
export function phasesOf(graph: StatechartGraph): string[] {
  return graph.nodes.filter((node) => node.kind === 'compound' && node.parent === graph.machineId).map((node) => node.id);
}

/**
 * The states and arrows a level draws. A graph from an older rein without
 * levels has only the whole chart, which every key then falls back to.
 *
 * @example drawnLevel(graph, 'phases:build').nodes.find((drawn) => drawn.node.id === 'build.think')?.box
 */
export function drawnLevel(graph: StatechartGraph, key: LevelKey): DrawnLevel {
  const open = key.startsWith('phases:') ? key.slice('phases:'.length) : null;
  const level = key === 'whole' || !graph.levels ? undefined : open ? graph.levels.open[open] : graph.levels.overview;
  if (!level) {
    return {
      key: 'whole',
      open: null,
      width: graph.width,
      height: graph.height,
      nodes: graph.nodes.filter((node) => node.width > 0).map((node) => ({ node, box: node, closed: false })),
      edges: graph.edges.filter((edge) => edge.points.length >= 2).map((edge) => ({ edge, route: { points: edge.points, label: edge.label } })),
    };
  }
  const phases = new Set(phasesOf(graph));
  return {
    key,
    open,
    width: level.width,
    height: level.height,
    nodes: graph.nodes
      .filter((node) => level.boxes[node.id] !== undefined)
      .map((node) => ({ node, box: level.boxes[node.id]!, closed: phases.has(node.id) && node.id !== open })),
    edges: graph.edges.filter((edge) => (level.routes[edge.id]?.points.length ?? 0) >= 2).map((edge) => ({ edge, route: level.routes[edge.id]! })),
  };
}
