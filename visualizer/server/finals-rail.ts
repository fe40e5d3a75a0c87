import type { Box } from './graph-types.js';
import type { NodeShape } from './machine-graph.js';
import { METRICS } from './metrics.js';

type Point = { x: number; y: number };

/** An arrow drawn to (or along) the rail. */
interface RailEdge {
  id: string;
  source: string;
  target: string;
}

interface RailLayout {
  boxes: Map<string, Box>;
  routes: Map<string, Point[]>;
  width: number;
  height: number;
}

/** `below`: a row under the chart (the whole chart is wide); `right`: a column beside it (the phase level is tall). */
interface RailArea {
  side: 'below' | 'right';
  /** The chart's extent so far. */
  width: number;
  bottom: number;
}

const GAP = 18;
const LANE = 7;

/**
 * Puts the top-level final states in one row under the chart (or one column
 * beside it), the "ways a run ends" rail, and routes the arrows into them
 * over a bus: out of the phase's edge, along the final's own lane, into it.
 * The machine's own "any state" node starts the rail, next to its targets.
 * Keeps the chart compact: a layered column of finals would double it.
 *
 * @example const rail = layoutRail(finals, railEdges, boxes, { side: 'below', width, bottom });
 */
export function layoutRail(rail: NodeShape[], edges: RailEdge[], boxes: Map<string, Box>, area: RailArea): RailLayout {
  const ordered = railOrder(rail, edges);
  const finals = ordered.filter((node) => node.kind === 'final');
  const placed = area.side === 'below' ? placeRow(ordered, finals.length, area) : placeColumn(ordered, finals.length, area);
  const all = new Map([...boxes, ...placed.boxes]);
  const routes = new Map<string, Point[]>();
  const sourcesOf = (target: string) => edges.filter((edge) => edge.target === target).map((edge) => edge.source);
  for (const edge of edges) {
    const source = all.get(edge.source);
    const target = all.get(edge.target);
    if (!source || !target) continue;
    if (placed.boxes.has(edge.source)) {
      routes.set(edge.id, alongRail(source, target, area.side));
      continue;
    }
    const lane = finals.findIndex((node) => node.id === edge.target);
    const sources = sourcesOf(edge.target);
    const spread = (sources.indexOf(edge.source) - (sources.length - 1) / 2) * 5;
    routes.set(
      edge.id,
      area.side === 'below' ? busDown(source, target, lane, finals.length, placed.busStart, spread) : busRight(source, target, finals.length, placed.busStart),
    );
  }
  return { boxes: placed.boxes, routes, width: placed.width, height: placed.height };
}

function placeRow(ordered: NodeShape[], finals: number, area: RailArea): { boxes: Map<string, Box>; busStart: number; width: number; height: number } {
  const busStart = area.bottom + GAP;
  const rowY = busStart + finals * LANE + GAP;
  const widths = ordered.map((node) => railWidth(node));
  const width = Math.max(
    area.width,
    widths.reduce((sum, value) => sum + value + GAP * 2, 0),
  );
  const slot = width / ordered.length;
  const boxes = new Map<string, Box>();
  ordered.forEach((node, index) => {
    boxes.set(node.id, { x: Math.round(slot * (index + 0.5) - widths[index]! / 2), y: rowY, width: widths[index]!, height: METRICS.nodeHeight });
  });
  return { boxes, busStart, width: Math.ceil(width), height: Math.ceil(rowY + METRICS.nodeHeight + 14) };
}

function placeColumn(ordered: NodeShape[], finals: number, area: RailArea): { boxes: Map<string, Box>; busStart: number; width: number; height: number } {
  const busStart = area.width + GAP;
  const columnX = busStart + finals * LANE + GAP;
  const width = Math.max(...ordered.map((node) => railWidth(node)));
  // Room under each final for the label of the arrow taken into it (or refused), which the page writes there.
  const pitch = METRICS.nodeHeight + 30;
  const height = Math.max(area.bottom, ordered.length * pitch + 12);
  const top = Math.max(12, (height - ordered.length * pitch) / 2);
  const boxes = new Map<string, Box>();
  ordered.forEach((node, index) => {
    boxes.set(node.id, { x: columnX, y: Math.round(top + index * pitch), width, height: METRICS.nodeHeight });
  });
  return { boxes, busStart, width: Math.ceil(columnX + width + 14), height: Math.ceil(height + 12) };
}

/** Down from the source's bottom edge, along the final's lane, down into it. */
function busDown(source: Box, target: Box, lane: number, lanes: number, busStart: number, spread: number): Point[] {
  const x = source.x + (source.width * (lane + 1)) / (lanes + 1);
  const entry = target.x + target.width / 2 + spread;
  const busY = busStart + lane * LANE;
  return [
    { x, y: source.y + source.height },
    { x, y: busY },
    { x: entry, y: busY },
    { x: entry, y: target.y },
  ];
}

/**
 * Right from the middle of the phase's right edge to one shared trunk, along
 * it, and right into the final: the arrows of every phase overlap into one
 * tree of "ways a run ends" (a phase has up to six, which side by side would
 * hide the chart), and the one taken is drawn over it.
 */
function busRight(source: Box, target: Box, lanes: number, busStart: number): Point[] {
  const y = source.y + source.height / 2;
  const entry = target.y + target.height / 2;
  const trunk = busStart + (lanes * LANE) / 2;
  return [
    { x: source.x + source.width, y },
    { x: trunk, y },
    { x: trunk, y: entry },
    { x: target.x, y: entry },
  ];
}

/** The rail's order: the "any state" node, then its targets, then the other finals in the machine's order. */
function railOrder(rail: NodeShape[], edges: RailEdge[]): NodeShape[] {
  const root = rail.find((node) => node.kind === 'root');
  if (!root) return rail;
  const targets = edges.filter((edge) => edge.source === root.id).map((edge) => edge.target);
  const first = rail.filter((node) => targets.includes(node.id));
  return [root, ...first, ...rail.filter((node) => node !== root && !first.includes(node))];
}

function alongRail(source: Box, target: Box, side: RailArea['side']): Point[] {
  if (side === 'right') {
    const x = source.x + source.width / 2;
    return target.y > source.y
      ? [
          { x, y: source.y + source.height },
          { x, y: target.y },
        ]
      : [
          { x, y: source.y },
          { x, y: target.y + target.height },
        ];
  }
  const y = source.y + source.height / 2;
  return target.x > source.x
    ? [
        { x: source.x + source.width, y },
        { x: target.x, y },
      ]
    : [
        { x: source.x, y },
        { x: target.x + target.width, y },
      ];
}

function railWidth(node: NodeShape): number {
  const text = node.kind === 'root' ? 'any state' : node.key;
  return Math.max(METRICS.nodeMinWidth, Math.ceil(text.length * METRICS.nodeCharWidth + 28));
}
