import type { ElkExtendedEdge } from 'elkjs/lib/elk-api.js';
import { phaseLine } from './guard-phrases.js';
import { arrowEnds, type MachineShape, type NodeShape } from './machine-graph.js';
import { METRICS } from './metrics.js';

/** One drawn arrow before layout: every transition between the same two drawn states. */
export interface EdgeGroup {
  id: string;
  source: string;
  target: string;
  /** The compound state whose box contains the arrow (the machine id at the top). */
  container: string;
  transitions: string[];
  /** Distinct labels of its transitions, as drawn (`text`). */
  lines: string[];
  /** What can take the arrow between two phases, one line per guard (no event: it is always the end of a turn). */
  phaseLines: string[];
  toFinal: boolean;
}

/**
 * The machine's transitions grouped into arrows (see `arrowEnds`), in document order.
 *
 * @example const edges = groupEdges(describeMachine(machine));
 */
export function groupEdges(shape: MachineShape): EdgeGroup[] {
  const nodesById = new Map(shape.nodes.map((node) => [node.id, node]));
  const groups = new Map<string, EdgeGroup>();
  for (const transition of shape.transitions) {
    const ends = arrowEnds(transition, nodesById, shape.machineId);
    if (!ends) continue;
    const group = groups.get(ends.id) ?? { ...ends, transitions: [], lines: [], phaseLines: [], toFinal: nodesById.get(ends.target)?.kind === 'final' };
    group.transitions.push(transition.id);
    if (transition.text && !group.lines.includes(transition.text)) group.lines.push(transition.text);
    const line = phaseLine(transition);
    if (!group.phaseLines.includes(line)) group.phaseLines.push(line);
    groups.set(ends.id, group);
  }
  return [...groups.values()];
}

/** The label's lines, at most `max`; the rest is counted (the page lists them all). */
export function labelLines(lines: string[], max: number = METRICS.maxLabelLines): string[] {
  if (lines.length <= max) return lines;
  const shown = lines.slice(0, max - 1);
  return [...shown, `+${lines.length - shown.length} more`];
}

/** An ELK edge with room for its label, measured with the font the page draws it in. */
export function elkEdge(edge: EdgeGroup, lines: string[], font: { charWidth: number; lineHeight: number }): ElkExtendedEdge {
  const width = Math.max(0, ...lines.map((line) => line.length)) * font.charWidth + 8;
  const labels = lines.length > 0 ? [{ id: `${edge.id}#label`, text: lines.join('\n'), width, height: lines.length * font.lineHeight + 2 }] : [];
  return { id: edge.id, sources: [edge.source], targets: [edge.target], labels };
}

/** The routed polyline and label of an ELK edge (or the rail's route, which wins). */
export function placedRoute(routed: ElkExtendedEdge | undefined, railRoute: Array<{ x: number; y: number }> | undefined) {
  const section = routed?.sections?.[0];
  const points = railRoute ?? (section ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(({ x, y }) => ({ x, y })) : []);
  const label = routed?.labels?.[0];
  return { points, label: label ? { text: label.text ?? '', x: label.x ?? 0, y: label.y ?? 0, width: label.width ?? 0, height: label.height ?? 0 } : null };
}

/**
 * The rail under (or beside) a chart: the top-level final states, and the
 * root's "any state" node when all its arrows go there.
 */
export function railNodes(shape: MachineShape, edges: EdgeGroup[]): Set<string> {
  const finals = shape.nodes.filter((node) => node.kind === 'final' && node.parent === shape.machineId).map((node) => node.id);
  const rootEdges = edges.filter((edge) => edge.source === shape.machineId);
  const rootOnRail = rootEdges.length > 0 && rootEdges.every((edge) => finals.includes(edge.target));
  return new Set([...finals, ...(rootOnRail ? [shape.machineId] : [])]);
}

/** Width for a state's name (and its invoke line), from the page's font metrics. */
export function nodeWidth(node: Pick<NodeShape, 'key' | 'kind' | 'invokes'>): number {
  const text = node.kind === 'root' ? 'any state' : node.key;
  const invoke = node.invokes.length > 0 ? `⇢ ${node.invokes.join(', ')}` : '';
  const chars = Math.max(text.length, invoke.length * 0.9);
  return Math.max(METRICS.nodeMinWidth, Math.ceil(chars * METRICS.nodeCharWidth + 24));
}
