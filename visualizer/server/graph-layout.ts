import { type EdgeGroup, groupEdges, placedRoute, railNodes } from './edge-groups.js';
import { boxesOf, elkContents } from './elk-contents.js';
import { runElk, topOptions } from './elk-engine.js';
import { layoutRail } from './finals-rail.js';
import type { GraphEdge, GraphNode, StatechartGraph } from './graph-types.js';
import { layoutLevels } from './level-layout.js';
import type { MachineShape } from './machine-graph.js';

const WHOLE_OPTIONS = topOptions('RIGHT', { layers: 48, nodes: 28, label: 3 });

/** Layouts kept for machines seen before: a layout takes about a second of CPU, and one process often draws the same machine many times. */
const LAYOUTS_KEPT = 16;
const layouts = new Map<string, Promise<StatechartGraph>>();

/**
 * The machine's drawable graph (see `computeLayout`), laid out once per
 * machine shape in this process: the eval's replay pages, the bench's many
 * evals and the live viewer share it. Treat the result as read-only.
 *
 * @example const graph = await layoutMachine(describeMachine(machine));
 */
export function layoutMachine(shape: MachineShape): Promise<StatechartGraph> {
  const key = JSON.stringify(shape);
  const known = layouts.get(key);
  if (known) {
    // Most recently used last, so the oldest goes first when the map is full.
    layouts.delete(key);
    layouts.set(key, known);
    return known;
  }
  const layout = computeLayout(shape);
  layouts.set(key, layout);
  if (layouts.size > LAYOUTS_KEPT) layouts.delete(layouts.keys().next().value!);
  // A failed layout is not kept: the next caller tries again.
  layout.catch(() => layouts.get(key) === layout && layouts.delete(key));
  return layout;
}

/**
 * Lays the machine out with ELK (layered, orthogonal edges; each compound
 * state laid out inside its box; top-level phases left to right) and returns
 * the drawable graph. Top-level final states sit on a rail underneath (see
 * `layoutRail`), so the chart stays about twice as wide as it is tall. The
 * phase-level views (`levels`) are laid out after it, reusing each phase's
 * inside.
 *
 */
async function computeLayout(shape: MachineShape): Promise<StatechartGraph> {
  const edges = groupEdges(shape);
  const rail = railNodes(shape, edges);
  const onRail = (edge: EdgeGroup) => edge.container === shape.machineId && (rail.has(edge.target) || rail.has(edge.source));
  const whole = await runElk({
    id: '__layout_root__',
    layoutOptions: WHOLE_OPTIONS,
    ...elkContents(
      shape,
      shape.machineId,
      edges.filter((edge) => !onRail(edge)),
      rail,
      () => null,
    ),
  });
  const laidOut = whole.root;
  const railed = layoutRail(
    shape.nodes.filter((node) => rail.has(node.id)),
    edges.filter(onRail),
    boxesOf(whole.nodes),
    { side: 'below', width: laidOut.width ?? 0, bottom: (laidOut.height ?? 0) - 12 },
  );
  const nodes: GraphNode[] = shape.nodes.map((node) => {
    const box = railed.boxes.get(node.id) ?? whole.nodes.get(node.id);
    return { ...node, x: box?.x ?? 0, y: box?.y ?? 0, width: box?.width ?? 0, height: box?.height ?? 0 };
  });
  const routes = new Map(edges.map((edge) => [edge.id, placedRoute(whole.edges.get(edge.id), railed.routes.get(edge.id))]));
  const levels = await layoutLevels(shape, edges, { boxes: boxesOf(whole.nodes), routes });
  return {
    machineId: shape.machineId,
    width: rail.size > 0 ? railed.width : Math.ceil(laidOut.width ?? 0),
    height: rail.size > 0 ? railed.height : Math.ceil(laidOut.height ?? 0),
    nodes,
    edges: edges.map(
      (edge): GraphEdge => ({
        id: edge.id,
        source: edge.source,
        target: edge.target,
        transitions: edge.transitions,
        lines: edge.lines,
        toFinal: edge.toFinal,
        ...routes.get(edge.id)!,
      }),
    ),
    transitions: shape.transitions,
    levels,
  };
}
