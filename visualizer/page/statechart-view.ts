import type { Box, GraphNode } from '../server/graph-types.js';
import { Camera } from './camera.js';
import type { ChartIndex, TransitionMatch } from './chart-index.js';
import { compoundNode, edgeView, initialMarker, leafNode, markers, setLines, type EdgeView } from './chart-drawing.js';
import { guardLabel } from './event-format.js';
import { h, s, setText } from './dom.js';

/** What to mark on the chart for one moment of the run. */
export interface Highlight {
  state: string | null;
  match: TransitionMatch | null;
  visits: { states: Map<string, number>; edges: Map<string, number> };
  /** Names of the actors running now (live): the active state pulses while its call is out. */
  inFlight: Set<string>;
}


/**
 * The statechart as SVG, drawn from the laid-out graph: compound states as
 * boxes holding their turn cycle, final states double-bordered, one arrow
 * per pair of states with its guard labels. `update` marks the active state
 * and its ancestors, the transition just taken, the arrows whose guards
 * refused, and how often each state was entered.
 *
 * @example const view = new StatechartView(chart, (id) => showState(id)); view.update({ state: 'build.act', match, visits, inFlight });
 */
export class StatechartView {
  readonly element: HTMLDivElement;
  private readonly svg: SVGSVGElement;
  private readonly camera: Camera;
  private readonly nodes = new Map<string, SVGGElement>();
  private readonly edges = new Map<string, EdgeView>();
  private readonly followButton: HTMLButtonElement;
  private following = true;
  /** The states the camera keeps in view when following. */
  private framed: string[] = [];
  private focused: string | null = null;
  private marked: Element[] = [];
  private selected: string | null = null;

  constructor(private readonly chart: ChartIndex, private readonly onSelect: (id: string) => void) {
    const viewport = s('g', { class: 'viewport' });
    this.svg = s('svg', { class: 'chart', role: 'img', 'aria-label': `Statechart of ${chart.graph.machineId}` }, markers(), viewport);
    this.followButton = h('button', { class: 'tool on', title: 'Keep the active phase in view' }, 'Follow');
    const fitButton = h('button', { class: 'tool', title: 'Show the whole chart (double-click the chart)' }, 'Fit');
    const zoomOut = h('button', { class: 'tool', title: 'Zoom out', 'aria-label': 'Zoom out' }, '−');
    const zoomIn = h('button', { class: 'tool', title: 'Zoom in', 'aria-label': 'Zoom in' }, '+');
    this.element = h('div', { class: 'chart-pane' }, this.svg, h('div', { class: 'chart-tools' }, this.followButton, fitButton, zoomOut, zoomIn));
    this.camera = new Camera(this.svg, viewport, () => this.setFollowing(false), () => this.fitAll());
    this.followButton.addEventListener('click', () => { this.setFollowing(!this.following); this.frame(true); });
    fitButton.addEventListener('click', () => this.fitAll());
    zoomOut.addEventListener('click', () => { this.setFollowing(false); this.camera.zoomBy(1 / 1.25); });
    zoomIn.addEventListener('click', () => { this.setFollowing(false); this.camera.zoomBy(1.25); });
    this.draw(viewport);
  }

  update(highlight: Highlight): void {
    for (const element of this.marked) element.classList.remove('active', 'active-parent', 'taken', 'refused', 'busy');
    this.marked = [];
    const mark = (element: Element | undefined, name: string) => { if (element) { element.classList.add(name); this.marked.push(element); } };
    const lineage = highlight.state ? this.chart.lineage(highlight.state) : [];
    lineage.forEach((id, depth) => mark(this.nodes.get(id), depth === 0 ? 'active' : 'active-parent'));
    const invokes = highlight.state ? this.chart.nodes.get(highlight.state)?.invokes ?? [] : [];
    if (invokes.some((name) => highlight.inFlight.has(name))) mark(this.nodes.get(highlight.state!), 'busy');
    this.markVisits(highlight.visits);
    this.resetLabels();
    const taken = highlight.match?.transition ?? null;
    for (const refused of highlight.match?.refused ?? []) {
      if (refused.edge && refused.edge !== taken?.edge) {
        mark(this.edges.get(refused.edge)?.group, 'refused');
        this.showLabel(refused.edge, `✗ ${guardLabel(refused)}`);
      }
    }
    if (taken?.edge) {
      mark(this.edges.get(taken.edge)?.group, 'taken');
      this.showLabel(taken.edge, taken.label || '(no guard)');
      this.edges.get(taken.edge)?.group.parentNode?.appendChild(this.edges.get(taken.edge)!.group);
    }
    const framed = this.frameFor(highlight.state, highlight.match?.transition?.source ?? null);
    if (framed.join() !== this.framed.join() || highlight.state !== this.focused) {
      this.framed = framed;
      this.focused = highlight.state;
      this.frame(true);
    }
  }

  /** Refits after the pane changed size. */
  resize(): void {
    this.camera.measure();
    this.frame(false);
  }

  /** Marks the state whose details are shown. */
  select(id: string | null): void {
    if (this.selected) this.nodes.get(this.selected)?.classList.remove('selected');
    this.selected = id;
    if (id) this.nodes.get(id)?.classList.add('selected');
  }

  private setFollowing(on: boolean): void {
    this.following = on;
    this.followButton.classList.toggle('on', on);
  }

  /** The active phase; for a final state, the final with the phase the run left from. */
  private frameFor(state: string | null, from: string | null): string[] {
    const top = state ? this.chart.topLevel(state) : null;
    if (!top) return [];
    if (this.chart.nodes.get(top)?.kind === 'compound') return [top];
    const origin = from ? this.chart.topLevel(from) : null;
    return origin && origin !== top ? [top, origin] : [top];
  }

  private frame(animate: boolean): void {
    if (!this.following) return;
    const boxes = this.framed.map((id) => this.chart.nodes.get(id)).filter((node): node is GraphNode => node !== undefined && node.width > 0);
    const active = this.focused ? this.chart.nodes.get(this.focused) : undefined;
    // Inside a phase: the active state at a readable scale. At a final state: the phase it left and where it ended, together.
    if (boxes.length > 0 && active?.kind === 'state') this.camera.focus(active, union(boxes), { animate });
    else if (boxes.length > 0) this.camera.fit(union(boxes), { animate, maxScale: 1.1 });
    else this.camera.fit({ x: 0, y: 0, width: this.chart.graph.width, height: this.chart.graph.height }, { animate });
  }

  private fitAll(): void {
    this.setFollowing(false);
    this.camera.fit({ x: 0, y: 0, width: this.chart.graph.width, height: this.chart.graph.height });
  }

  private markVisits(visits: Highlight['visits']): void {
    for (const [id, group] of this.nodes) {
      const times = visits.states.get(id) ?? 0;
      group.classList.toggle('visited', times > 0);
      const badge = group.querySelector('.visits');
      if (badge) setText(badge, times > 1 ? `×${times}` : '');
    }
    for (const [id, view] of this.edges) view.group.classList.toggle('visited', (visits.edges.get(id) ?? 0) > 0);
  }

  private resetLabels(): void {
    for (const view of this.edges.values()) {
      if (view.label.dataset.shown === 'true') setLines(view.label, view.edge.label ? view.edge.label.text.split('\n') : []);
      view.label.dataset.shown = 'false';
    }
  }

  private showLabel(edgeId: string, text: string): void {
    const view = this.edges.get(edgeId);
    if (!view) return;
    setLines(view.label, [text]);
    view.label.dataset.shown = 'true';
  }

  private draw(viewport: SVGGElement): void {
    const { graph } = this.chart;
    const drawn = graph.nodes.filter((node) => node.width > 0);
    const compounds = s('g', { class: 'compounds' });
    const edges = s('g', { class: 'edges' });
    const leaves = s('g', { class: 'leaves' });
    const phases = drawn.filter((node) => node.kind === 'compound' && node.parent === graph.machineId).map((node) => node.id);
    for (const node of drawn) {
      const group = node.kind === 'compound' ? compoundNode(node, phases.indexOf(node.id)) : leafNode(node, graph.machineId);
      group.addEventListener('click', (event) => { event.stopPropagation(); if (!this.camera.dragged) this.onSelect(node.id); });
      this.nodes.set(node.id, group);
      (node.kind === 'compound' ? compounds : leaves).append(group);
      const initial = node.initial ? this.chart.nodes.get(node.initial) : undefined;
      if (initial && node.kind === 'compound') compounds.append(initialMarker(initial));
    }
    for (const edge of graph.edges) {
      if (edge.points.length < 2) continue;
      const view = edgeView(edge, this.chart.graph.transitions);
      this.edges.set(edge.id, view);
      edges.append(view.group);
    }
    viewport.append(compounds, edges, leaves);
  }
}

/** The smallest box around all of `boxes`. */
function union(boxes: Box[]): Box {
  const x = Math.min(...boxes.map((box) => box.x));
  const y = Math.min(...boxes.map((box) => box.y));
  return { x, y, width: Math.max(...boxes.map((box) => box.x + box.width)) - x, height: Math.max(...boxes.map((box) => box.y + box.height)) - y };
}
