import type { Box, GraphNode, GraphTransition } from '../server/graph-types.js';
import { METRICS } from '../server/metrics.js';
import type { DrawnEdge } from './chart-level.js';
import { s } from './dom.js';
import { clip } from './format.js';

/** SVG for the statechart's parts, drawn at the positions the level's layout gave them. */

/** An arrow's group, its routed line and its label (whose text changes when the arrow is taken). */
export interface EdgeView {
  drawn: DrawnEdge;
  group: SVGGElement;
  label: SVGTextElement;
  /** The lines the label shows when nothing marks the arrow. */
  restLines: string[];
}

/** The texts of a closed phase that change with the moment shown. */
export interface PhaseCardParts {
  counts: SVGTextElement;
  line: SVGTextElement;
}

const phaseStyle = (phaseIndex: number) => (phaseIndex >= 0 ? `--phase: var(--phase-${phaseIndex % 6})` : null);

/** A compound state's box with its turn cycle inside; top-level ones (phases) get their colour, as in the scrubber's bands. `closable`: an open phase of the phase level. */
export function compoundNode(node: GraphNode, box: Box, phaseIndex: number, closable: boolean): SVGGElement {
  const hint = closable ? 'close ▴' : '';
  const room = Math.max(0, Math.floor((box.width - node.key.length * 8.5 - 34 - hint.length * 7) / 6.2));
  const group = s(
    'g',
    { class: `node compound${closable ? ' open' : ''}`, 'data-id': node.id, style: phaseStyle(phaseIndex) },
    s('title', {}, `${node.description ? `${node.id}: ${node.description}` : node.id}${closable ? '\nClick the title to close the phase.' : ''}`),
    s('rect', { class: 'box', x: box.x, y: box.y, width: box.width, height: box.height, rx: 12 }),
    s('rect', { class: 'header', x: box.x, y: box.y, width: box.width, height: METRICS.compoundHeader + 4, rx: 12 }),
    s('rect', { class: 'band', x: box.x + 14, y: box.y + 26, width: Math.min(box.width - 28, node.key.length * 8.5), height: 2.5, rx: 1.25 }),
    s('text', { class: 'title', x: box.x + 14, y: box.y + 20 }, node.key),
    s('text', { class: 'desc', x: box.x + 22 + node.key.length * 8.5, y: box.y + 20 }, room > 8 ? clip(node.description ?? '', room) : ''),
    s('text', { class: 'visits', x: box.x + box.width - 12 - (hint ? hint.length * 7 + 10 : 0), y: box.y + 20, 'text-anchor': 'end' }),
  );
  if (hint) group.append(s('text', { class: 'hint', x: box.x + box.width - 12, y: box.y + 20, 'text-anchor': 'end' }, hint));
  return group;
}

/**
 * A closed phase at the phase level: its name large, its description or
 * what it is doing now, how often it was entered and how many steps it took.
 */
export function phaseCard(node: GraphNode, box: Box, phaseIndex: number): { group: SVGGElement; parts: PhaseCardParts } {
  const counts = s('text', { class: 'counts', x: box.x + box.width - 14, y: box.y + 27, 'text-anchor': 'end' });
  const line = s('text', { class: 'line', x: box.x + 20, y: box.y + 51 });
  const group = s(
    'g',
    {
      class: 'node phase',
      'data-id': node.id,
      style: phaseStyle(phaseIndex),
      tabindex: 0,
      role: 'button',
      'aria-label': `Phase ${node.key}: open its turn cycle`,
    },
    s('title', {}, `${node.id}${node.description ? `: ${node.description}` : ''}\nClick to open its turn cycle (and list the times it was entered).`),
    s('rect', { class: 'box', x: box.x, y: box.y, width: box.width, height: box.height, rx: 14 }),
    s('rect', { class: 'band', x: box.x, y: box.y + 10, width: 5, height: box.height - 20, rx: 2.5 }),
    s('text', { class: 'title', x: box.x + 20, y: box.y + 28 }, node.key),
    counts,
    line,
    s('text', { class: 'hint', x: box.x + box.width - 14, y: box.y + 51, 'text-anchor': 'end' }, 'open ▾'),
  );
  return { group, parts: { counts, line } };
}

/** A state's box: its name, what it invokes, and a badge for how often it was entered. */
export function leafNode(node: GraphNode, box: Box, machineId: string): SVGGElement {
  const invoke = node.invokes.length > 0 ? `⇢ ${node.invokes.join(', ')}` : '';
  const midY = box.y + (invoke ? 18 : box.height / 2 + 4.5);
  const group = s(
    'g',
    { class: `node ${node.kind}`, 'data-id': node.id },
    s('title', {}, node.description ? `${node.id === machineId ? 'any state' : node.id}: ${node.description}` : node.id),
    s('rect', { class: 'box', x: box.x, y: box.y, width: box.width, height: box.height, rx: node.kind === 'final' ? 16 : 8 }),
  );
  if (node.kind === 'final') group.append(s('rect', { class: 'inner', x: box.x + 3.5, y: box.y + 3.5, width: box.width - 7, height: box.height - 7, rx: 13 }));
  group.append(s('text', { class: 'name', x: box.x + box.width / 2, y: midY, 'text-anchor': 'middle' }, node.kind === 'root' ? 'any state' : node.key));
  if (invoke) group.append(s('text', { class: 'invoke', x: box.x + box.width / 2, y: box.y + 34, 'text-anchor': 'middle' }, invoke));
  group.append(s('text', { class: 'visits', x: box.x + box.width - 5, y: box.y - 4, 'text-anchor': 'end' }));
  return group;
}

export function initialMarker(box: Box): SVGGElement {
  const y = box.y + METRICS.nodeHeight / 2;
  return s('g', { class: 'initial' }, s('circle', { cx: box.x - 14, cy: y, r: 3.5 }), s('line', { x1: box.x - 11, y1: y, x2: box.x - 1, y2: y }));
}

/** An arrow with its label; at the phase level, between phases, the label names the guards that can take it. */
export function edgeView(drawn: DrawnEdge, transitions: GraphTransition[], lineHeight: number, railTarget?: Box): EdgeView {
  const { edge, route } = drawn;
  const own = transitions.filter((transition) => edge.transitions.includes(transition.id));
  const d = roundedPath(route.points);
  // Into a final in the column beside the phases: under the final, where the rail leaves a line free.
  const anchor: { x: number; y: number; end?: boolean } =
    route.label ?? (railTarget ? { x: railTarget.x + railTarget.width - 4, y: railTarget.y + railTarget.height - 1, end: true } : floatingLabel(route.points));
  const label = s('text', { class: 'label', x: anchor.x + 4, y: anchor.y + lineHeight - 3, ...(anchor.end ? { 'text-anchor': 'end' } : {}) });
  label.dataset.lineHeight = String(lineHeight);
  const restLines = route.label ? route.label.text.split('\n') : [];
  setLines(label, restLines);
  const group = s(
    'g',
    { class: `edge${edge.toFinal ? ' to-final' : ''}`, 'data-id': edge.id },
    s(
      'title',
      {},
      `${edge.source} → ${edge.target}\n${own.map((transition) => `${transition.order + 1}. ${transition.text || '(always)'}${transition.actions.length ? ` / ${transition.actions.join(', ')}` : ''}`).join('\n')}\nClick to list the times it was taken.`,
    ),
    s('path', { class: 'hit', d }),
    s('path', { class: 'line', d }),
    label,
  );
  return { drawn, group, label, restLines };
}

/** Where an arrow that has no laid-out label shows one when taken: by the state it leaves. */
function floatingLabel(points: Array<{ x: number; y: number }>): { x: number; y: number } {
  const start = points[0]!;
  return { x: start.x + 3, y: start.y - 18 };
}

export function setLines(label: SVGTextElement, lines: string[]): void {
  const x = label.getAttribute('x') ?? '0';
  const lineHeight = Number(label.dataset.lineHeight ?? METRICS.labelLineHeight);
  label.replaceChildren(...lines.map((line, index) => s('tspan', { x, dy: index === 0 ? 0 : lineHeight }, line)));
}

/** An orthogonal polyline with softened corners. */
function roundedPath(points: Array<{ x: number; y: number }>, radius = 6): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${first.x},${first.y}`;
  rest.forEach((point, index) => {
    const next = rest[index + 1];
    const previous = points[index]!;
    if (!next) {
      d += ` L${point.x},${point.y}`;
      return;
    }
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
  const arrow = (id: string) =>
    s(
      'marker',
      { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse' },
      s('path', { d: 'M0,1 L9,5 L0,9 z' }),
    );
  return s('defs', {}, arrow('arrow'), arrow('arrow-taken'), arrow('arrow-refused'), arrow('arrow-final'));
}
