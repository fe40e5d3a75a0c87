import { METRICS } from '../server/metrics.js';
import { compoundNode, type EdgeView, edgeView, initialMarker, leafNode, type PhaseCardParts, phaseCard } from './chart-drawing.js';
import type { ChartIndex } from './chart-index.js';
import type { DrawnLevel } from './chart-level.js';
import { s } from './dom.js';

/** The SVG of one level, and its parts by id, for marking moments on it. */
export interface LevelViews {
  nodes: Map<string, SVGGElement>;
  cards: Map<string, PhaseCardParts>;
  edges: Map<string, EdgeView>;
  /** Compound boxes under the arrows, states and cards over them. */
  layers: SVGGElement[];
}

/**
 * Draws a level: closed phases as cards, an open phase (or every compound,
 * for the whole chart) as a box around its states, the arrows with their
 * labels. Arrows between phases get the phase level's larger type, and an
 * arrow into a final beside them writes its label under that final.
 *
 * @example viewport.replaceChildren(...drawLevel(chart, level, phases).layers);
 */
export function drawLevel(chart: ChartIndex, level: DrawnLevel, phases: string[]): LevelViews {
  const { graph } = chart;
  const phaseLevel = level.key !== 'whole';
  const views: LevelViews = { nodes: new Map(), cards: new Map(), edges: new Map(), layers: [] };
  const compounds = s('g', { class: 'compounds' });
  const edges = s('g', { class: 'edges' });
  const leaves = s('g', { class: 'leaves' });
  for (const { node, box, closed } of level.nodes) {
    const phaseIndex = phases.indexOf(node.id);
    if (closed) {
      const card = phaseCard(node, box, phaseIndex);
      views.cards.set(node.id, card.parts);
      views.nodes.set(node.id, card.group);
      leaves.append(card.group);
      continue;
    }
    const group = node.kind === 'compound' ? compoundNode(node, box, phaseIndex, phaseLevel && node.id === level.open) : leafNode(node, box, graph.machineId);
    views.nodes.set(node.id, group);
    (node.kind === 'compound' ? compounds : leaves).append(group);
    const initial = node.initial ? level.nodes.find((drawn) => drawn.node.id === node.initial) : undefined;
    if (initial && node.kind === 'compound') compounds.append(initialMarker(initial.box));
  }
  for (const drawn of level.edges) {
    const top = drawn.edge.source === graph.machineId || chart.nodes.get(drawn.edge.source)?.parent === graph.machineId;
    const railTarget = phaseLevel && drawn.edge.toFinal && top ? level.nodes.find((node) => node.node.id === drawn.edge.target)?.box : undefined;
    const view = edgeView(drawn, graph.transitions, phaseLevel && top ? METRICS.phaseLabelLineHeight : METRICS.labelLineHeight, railTarget);
    if (phaseLevel && top) view.group.classList.add('between-phases');
    views.edges.set(drawn.edge.id, view);
    edges.append(view.group);
  }
  views.layers = [compounds, edges, leaves];
  return views;
}
