import type { ElkExtendedEdge } from 'elkjs/lib/elk-api.js';
import { type EdgeGroup, elkEdge, labelLines, placedRoute, railNodes } from './edge-groups.js';
import { boxesOf, elkContents, wholeArrow } from './elk-contents.js';
import { runElk, topOptions } from './elk-engine.js';
import { layoutRail } from './finals-rail.js';
import type { Box, ChartLevel, LevelRoute, PhaseLevels } from './graph-types.js';
import type { MachineShape, NodeShape } from './machine-graph.js';
import { METRICS } from './metrics.js';

const LEVEL_OPTIONS = topOptions('DOWN', { layers: 22, nodes: 36, label: 4 });

/**
 * The chart at the level a person thinks in: phases as large boxes, top to
 * bottom in the machine's order, the arrows between them labelled with the
 * guards that can take them, and the ways a run ends in a column beside
 * them. One level has every phase closed (`overview`); one per phase opens
 * that phase on its turn cycle (as the whole chart lays it out, moved to
 * where the phase sits), the others staying closed.
 *
 * @example const { overview, open } = await layoutLevels(shape, groupEdges(shape)); open.build.boxes['build.think']
 */
export async function layoutLevels(shape: MachineShape, edges: EdgeGroup[], whole: WholeLayout): Promise<PhaseLevels> {
  const phases = shape.nodes.filter((node) => isPhase(node, shape.machineId)).map((node) => node.id);
  const [overview, ...opened] = await Promise.all([layoutLevel(shape, edges, null, whole), ...phases.map((phase) => layoutLevel(shape, edges, phase, whole))]);
  return { overview: overview!, open: Object.fromEntries(phases.map((phase, index) => [phase, opened[index]!])) };
}

/** The whole chart as laid out: an open phase keeps the inside it has there, moved with the phase. */
interface WholeLayout {
  boxes: Map<string, Box>;
  routes: Map<string, LevelRoute>;
}

async function layoutLevel(shape: MachineShape, edges: EdgeGroup[], open: string | null, whole: WholeLayout): Promise<ChartLevel> {
  const nodes = new Map(shape.nodes.map((node) => [node.id, node]));
  const closed = (node: NodeShape) => isPhase(node, shape.machineId) && node.id !== open;
  const within = (id: string) => open !== null && id.startsWith(`${open}.`);
  const size = (node: NodeShape) => {
    if (node.id === open) return { width: whole.boxes.get(open)!.width, height: whole.boxes.get(open)!.height };
    return closed(node) ? { width: METRICS.phaseWidth, height: METRICS.phaseHeight } : null;
  };
  const visible = (id: string) => {
    for (
      let node = nodes.get(id)?.parent ? nodes.get(nodes.get(id)!.parent!) : undefined;
      node && node.kind !== 'root';
      node = node.parent ? nodes.get(node.parent) : undefined
    )
      if (closed(node)) return false;
    return nodes.has(id);
  };
  const shown = edges.filter((edge) => visible(edge.source) && visible(edge.target));
  const rail = railNodes(shape, shown);
  const onRail = (edge: EdgeGroup) => edge.container === shape.machineId && (rail.has(edge.target) || rail.has(edge.source));
  const arrow = (edge: EdgeGroup): ElkExtendedEdge => (edge.container === shape.machineId ? phaseArrow(edge) : wholeArrow(edge));
  const top = shown.filter((edge) => !onRail(edge) && edge.container === shape.machineId);
  const laid = await runElk({ id: '__level_root__', layoutOptions: LEVEL_OPTIONS, ...elkContents(shape, shape.machineId, top, rail, size, arrow) });
  const area = { side: 'right' as const, width: (laid.root.width ?? 0) - 12, bottom: laid.root.height ?? 0 };
  const railed = layoutRail(
    shape.nodes.filter((node) => rail.has(node.id)),
    shown.filter(onRail),
    boxesOf(laid.nodes),
    area,
  );
  const boxes = new Map([...boxesOf(laid.nodes), ...railed.boxes]);
  boxes.delete('__level_root__');
  // The open phase's inside, as the whole chart laid it out, moved to where the phase is now.
  const moved = open ? { dx: boxes.get(open)!.x - whole.boxes.get(open)!.x, dy: boxes.get(open)!.y - whole.boxes.get(open)!.y } : { dx: 0, dy: 0 };
  const shift = <T extends { x: number; y: number }>(point: T): T => ({ ...point, x: point.x + moved.dx, y: point.y + moved.dy });
  for (const node of shape.nodes) if (within(node.id) && whole.boxes.has(node.id)) boxes.set(node.id, shift(whole.boxes.get(node.id)!));
  const routeOf = (edge: EdgeGroup): LevelRoute => {
    if (!within(edge.container) && edge.container !== open) return placedRoute(laid.edges.get(edge.id), railed.routes.get(edge.id));
    const inner = whole.routes.get(edge.id)!;
    return { points: inner.points.map(shift), label: inner.label ? shift(inner.label) : null };
  };
  return {
    width: rail.size > 0 ? railed.width : Math.ceil(laid.root.width ?? 0),
    height: Math.max(rail.size > 0 ? railed.height : 0, Math.ceil(laid.root.height ?? 0)),
    boxes: Object.fromEntries([...boxes].filter(([id]) => visible(id) || id === shape.machineId)),
    routes: Object.fromEntries(shown.map((edge) => [edge.id, routeOf(edge)])),
  };
}

/** Between phases, an arrow names the guards that can take it, in the phase level's larger type; into a final it is labelled only when taken. */
function phaseArrow(edge: EdgeGroup): ElkExtendedEdge {
  return elkEdge(edge, edge.toFinal ? [] : labelLines(edge.phaseLines, METRICS.phaseMaxLabelLines), {
    charWidth: METRICS.phaseLabelCharWidth,
    lineHeight: METRICS.phaseLabelLineHeight,
  });
}

function isPhase(node: NodeShape, machineId: string): boolean {
  return node.kind === 'compound' && node.parent === machineId;
}
