import type { Box } from './graph-types.js';
import { METRICS } from './metrics.js';
import type { NodeShape } from './machine-graph.js';

type Point = { x: number; y: number };

/** An arrow drawn to (or along) the rail. */
export interface RailEdge {
  id: string;
  source: string;
  target: string;
}

export interface RailLayout {
  boxes: Map<string, Box>;
  routes: Map<string, Point[]>;
  width: number;
  height: number;
}

const GAP = 18;
const LANE = 7;

/**
 * Puts the top-level final states in one row under the chart, the "ways a
 * run ends" rail, and routes the arrows into them over a bus: down from
 * the phase's bottom edge, along the final's own lane, down into it. The
 * machine's own "any state" node starts the row, next to its targets.
 * Keeps the chart about half as wide as a layered column of finals would.
 *
 * @example const rail = layoutRail(finals, railEdges, boxes, { width, bottom });
 */
export function layoutRail(rail: NodeShape[], edges: RailEdge[], boxes: Map<string, Box>, area: { width: number; bottom: number }): RailLayout {
  const ordered = railOrder(rail, edges);
  const finals = ordered.filter((node) => node.kind === 'final');
  const busTop = area.bottom + GAP;
  const rowY = busTop + finals.length * LANE + GAP;
  const widths = ordered.map((node) => railWidth(node));
  const width = Math.max(area.width, widths.reduce((sum, value) => sum + value + GAP * 2, 0));
  const slot = width / ordered.length;
  const placed = new Map<string, Box>();
  ordered.forEach((node, index) => placed.set(node.id, { x: Math.round(slot * (index + 0.5) - widths[index]! / 2), y: rowY, width: widths[index]!, height: METRICS.nodeHeight }));
  const all = new Map([...boxes, ...placed]);
  const routes = new Map<string, Point[]>();
  const sourcesOf = (target: string) => edges.filter((edge) => edge.target === target).map((edge) => edge.source);
  for (const edge of edges) {
    const source = all.get(edge.source);
    const target = all.get(edge.target);
    if (!source || !target) continue;
    if (placed.has(edge.source)) { routes.set(edge.id, alongRow(source, target)); continue; }
    const lane = finals.findIndex((node) => node.id === edge.target);
    const sources = sourcesOf(edge.target);
    const x = source.x + (source.width * (lane + 1)) / (finals.length + 1);
    const entry = target.x + target.width / 2 + (sources.indexOf(edge.source) - (sources.length - 1) / 2) * 5;
    const busY = busTop + lane * LANE;
    routes.set(edge.id, [{ x, y: source.y + source.height }, { x, y: busY }, { x: entry, y: busY }, { x: entry, y: target.y }]);
  }
  return { boxes: placed, routes, width: Math.ceil(width), height: Math.ceil(rowY + METRICS.nodeHeight + 14) };
}

/** The rail's order: the "any state" node, then its targets, then the other finals in the machine's order. */
function railOrder(rail: NodeShape[], edges: RailEdge[]): NodeShape[] {
  const root = rail.find((node) => node.kind === 'root');
  if (!root) return rail;
  const targets = edges.filter((edge) => edge.source === root.id).map((edge) => edge.target);
  const first = rail.filter((node) => targets.includes(node.id));
  return [root, ...first, ...rail.filter((node) => node !== root && !first.includes(node))];
}

function alongRow(source: Box, target: Box): Point[] {
  const y = source.y + source.height / 2;
  return target.x > source.x ? [{ x: source.x + source.width, y }, { x: target.x, y }] : [{ x: source.x, y }, { x: target.x + target.width, y }];
}

function railWidth(node: NodeShape): number {
  const text = node.kind === 'root' ? 'any state' : node.key;
  return Math.max(METRICS.nodeMinWidth, Math.ceil(text.length * METRICS.nodeCharWidth + 28));
}
