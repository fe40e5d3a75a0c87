import type { GraphEdge, GraphNode, GraphTransition } from '../server/graph-types.js';
import { METRICS } from '../server/metrics.js';
import { s } from './dom.js';
import { clip } from './format.js';

/** SVG for the statechart's parts, drawn at the positions the layout gave them. */

/** An arrow's group, its routed line and its label (whose text changes when the arrow is taken). */
export interface EdgeView {
  edge: GraphEdge;
  group: SVGGElement;
  label: SVGTextElement;
}

/** A compound state's box; top-level ones (phases) get their colour from the palette, as in the scrubber's bands. */
export function compoundNode(node: GraphNode, phaseIndex: number): SVGGElement {
  const room = Math.max(0, Math.floor((node.width - node.key.length * 8.5 - 34) / 6.2));
  return s('g', { class: `node compound`, 'data-id': node.id, style: phaseIndex >= 0 ? `--phase: var(--phase-${phaseIndex % 6})` : null },
    s('title', {}, node.description ? `${node.id}: ${node.description}` : node.id),
    s('rect', { class: 'box', x: node.x, y: node.y, width: node.width, height: node.height, rx: 12 }),
    s('rect', { class: 'band', x: node.x + 14, y: node.y + 26, width: Math.min(node.width - 28, node.key.length * 8.5), height: 2.5, rx: 1.25 }),
    s('text', { class: 'title', x: node.x + 14, y: node.y + 20 }, node.key),
    s('text', { class: 'desc', x: node.x + 22 + node.key.length * 8.5, y: node.y + 20 }, room > 8 ? clip(node.description ?? '', room) : ''),
    s('text', { class: 'visits', x: node.x + node.width - 12, y: node.y + 20, 'text-anchor': 'end' }));
}

/** A state's box: its name, what it invokes, and a badge for how often it was entered. */
export function leafNode(node: GraphNode, machineId: string): SVGGElement {
  const invoke = node.invokes.length > 0 ? `⇢ ${node.invokes.join(', ')}` : '';
  const midY = node.y + (invoke ? 18 : node.height / 2 + 4.5);
  const kind = node.kind === 'root' ? 'root' : node.kind;
  const group = s('g', { class: `node ${kind}`, 'data-id': node.id },
    s('title', {}, node.description ? `${node.id === machineId ? 'any state' : node.id}: ${node.description}` : node.id),
    s('rect', { class: 'box', x: node.x, y: node.y, width: node.width, height: node.height, rx: node.kind === 'final' ? 16 : 8 }));
  if (node.kind === 'final') group.append(s('rect', { class: 'inner', x: node.x + 3.5, y: node.y + 3.5, width: node.width - 7, height: node.height - 7, rx: 13 }));
  group.append(s('text', { class: 'name', x: node.x + node.width / 2, y: midY, 'text-anchor': 'middle' }, node.kind === 'root' ? 'any state' : node.key));
  if (invoke) group.append(s('text', { class: 'invoke', x: node.x + node.width / 2, y: node.y + 34, 'text-anchor': 'middle' }, invoke));
  group.append(s('text', { class: 'visits', x: node.x + node.width - 5, y: node.y - 4, 'text-anchor': 'end' }));
  return group;
}

export function initialMarker(node: GraphNode): SVGGElement {
  const y = node.y + METRICS.nodeHeight / 2;
  return s('g', { class: 'initial' }, s('circle', { cx: node.x - 14, cy: y, r: 3.5 }), s('line', { x1: node.x - 11, y1: y, x2: node.x - 1, y2: y }));
}

export function edgeView(edge: GraphEdge, transitions: GraphTransition[]): EdgeView {
  const own = transitions.filter((transition) => edge.transitions.includes(transition.id));
  const d = roundedPath(edge.points);
  const anchor = edge.label ?? floatingLabel(edge.points);
  const label = s('text', { class: 'label', x: anchor.x + 3, y: anchor.y + 10 });
  setLines(label, edge.label ? edge.label.text.split('\n') : []);
  const group = s('g', { class: `edge${edge.toFinal ? ' to-final' : ''}`, 'data-id': edge.id },
    s('title', {}, `${edge.source} → ${edge.target}\n${own.map((transition) => `${transition.order + 1}. ${transition.label || '(always)'}${transition.actions.length ? ` / ${transition.actions.join(', ')}` : ''}`).join('\n')}`),
    s('path', { class: 'hit', d }),
    s('path', { class: 'line', d }),
    label);
  return { edge, group, label };
}

/** Where an arrow that has no laid-out label shows one when taken: just inside the box it leaves, where the camera looks. */
function floatingLabel(points: GraphEdge['points']): { x: number; y: number } {
  const start = points[0]!;
  return { x: start.x + 3, y: start.y - 17 };
}

export function setLines(label: SVGTextElement, lines: string[]): void {
  const x = label.getAttribute('x') ?? '0';
  label.replaceChildren(...lines.map((line, index) => s('tspan', { x, dy: index === 0 ? 0 : METRICS.labelLineHeight }, line)));
}

/** An orthogonal polyline with softened corners. */
function roundedPath(points: GraphEdge['points'], radius = 6): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${first.x},${first.y}`;
  rest.forEach((point, index) => {
    const next = rest[index + 1];
    const previous = points[index]!;
    if (!next) { d += ` L${point.x},${point.y}`; return; }
    const inLength = Math.hypot(point.x - previous.x, point.y - previous.y) || 1;
    const outLength = Math.hypot(next.x - point.x, next.y - point.y) || 1;
    const r = Math.min(radius, inLength / 2, outLength / 2);
    const a = { x: point.x - ((point.x - previous.x) / inLength) * r, y: point.y - ((point.y - previous.y) / inLength) * r };
    const b = { x: point.x + ((next.x - point.x) / outLength) * r, y: point.y + ((next.y - point.y) / outLength) * r };
    d += ` L${a.x},${a.y} Q${point.x},${point.y} ${b.x},${b.y}`;
  });
  return d;
}

export function markers(): SVGDefsElement {
  const arrow = (id: string) => s('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse' },
    s('path', { d: 'M0,1 L9,5 L0,9 z' }));
  return s('defs', {}, arrow('arrow'), arrow('arrow-taken'), arrow('arrow-refused'), arrow('arrow-final'));
}
