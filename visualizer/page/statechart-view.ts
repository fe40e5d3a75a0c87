import type { Box } from '../server/graph-types.js';
import { METRICS } from '../server/metrics.js';
import { Camera } from './camera.js';
import type { ChartIndex, TransitionMatch } from './chart-index.js';
import { drawnLevel, phasesOf, type DrawnLevel, type LevelKey } from './chart-level.js';
import { compoundNode, edgeView, initialMarker, leafNode, markers, phaseCard, setLines, type EdgeView, type PhaseCardParts } from './chart-drawing.js';
import { h, s, setText } from './dom.js';
import { takenLines, refusedLine } from './edge-text.js';
import { ChartToolbar } from './chart-toolbar.js';

/** What the run did in one phase up to the moment shown. */
export interface PhaseStats {
  visits: number;
  steps: number;
}

/** What to mark on the chart for one moment of the run. */
export interface Highlight {
  state: string | null;
  match: TransitionMatch | null;
  visits: { states: Map<string, number>; edges: Map<string, number> };
  phases: Map<string, PhaseStats>;
  /** Names of the actors running now (live): the active state pulses while its call is out. */
  inFlight: Set<string>;
}

/** A state or an arrow the person clicked: the event list shows the times it was entered or taken. */
export type ChartPick = { kind: 'state'; id: string } | { kind: 'edge'; id: string } | null;

// The phase level's smallest text that must stay readable (arrow labels, 13 px) at 11 px on screen.
const READABLE_PHASE_SCALE = 11 / 13;
// Inside an open phase, state names (12.5 px) and labels (11 px) at their own size.
const READABLE_INNER_SCALE = 1;

/**
 * The statechart as SVG. It opens at the phase level: phases as large
 * boxes with what they are doing now and how often they ran, the arrows
 * between them labelled with the guards that can take them. Clicking a
 * phase opens its turn cycle (its title closes it again); "All states"
 * draws every state of the machine. `update` marks the active state and its
 * phase, the transition just taken, the arrows whose guards refused, and
 * how often each state was entered; Follow keeps the active phase and its
 * neighbours in view.
 *
 * @example const view = new StatechartView(chart, whyCard.element, (pick) => list.setScope(pick), () => render()); view.update(highlight);
 */
export class StatechartView {
  readonly element: HTMLDivElement;
  private readonly svg: SVGSVGElement;
  private readonly viewport: SVGGElement;
  private readonly camera: Camera;
  private readonly toolbar: ChartToolbar;
  private readonly phases: string[];
  private level: DrawnLevel;
  private nodes = new Map<string, SVGGElement>();
  private cards = new Map<string, PhaseCardParts>();
  private edges = new Map<string, EdgeView>();
  private following = true;
  private framedKey = '';
  private marked: Element[] = [];
  private picked: ChartPick = null;
  private last: Highlight | null = null;
  private activePhase: string | null = null;

  constructor(private readonly chart: ChartIndex, why: HTMLElement, private readonly onPick: (pick: ChartPick) => void, private readonly onLevel: (key: LevelKey) => void = () => undefined) {
    this.phases = phasesOf(chart.graph);
    this.viewport = s('g', { class: 'viewport' });
    this.svg = s('svg', { class: 'chart', role: 'img', 'aria-label': `Statechart of ${chart.graph.machineId}` }, markers(), this.viewport);
    this.toolbar = new ChartToolbar({
      level: (whole) => this.setLevel(whole ? 'whole' : 'phases', true),
      follow: () => { this.setFollowing(!this.following); this.frame(true); },
      fit: () => this.fitAll(),
      zoom: (factor) => { this.setFollowing(false); this.camera.zoomBy(factor); },
    });
    this.element = h('div', { class: 'chart-pane' }, h('div', { class: 'chart-head' }, why, this.toolbar.element), h('div', { class: 'chart-area' }, this.svg));
    this.camera = new Camera(this.svg, this.viewport, () => this.setFollowing(false), () => this.fitAll());
    this.svg.addEventListener('click', (event) => this.onClick(event));
    this.svg.addEventListener('keydown', (event) => this.onKey(event));
    this.level = drawnLevel(chart.graph, 'phases');
    this.draw();
  }

  /** The level drawn now (`phases`, `phases:build`, `whole`). */
  get levelKey(): LevelKey {
    return this.level.key;
  }

  update(highlight: Highlight): void {
    this.last = highlight;
    const phase = highlight.state ? this.chart.topLevel(highlight.state) : null;
    // Following with a phase open, the open phase moves on when the run does (a phase the person opened stays until then).
    if (this.following && this.level.open && phase !== this.activePhase && phase && phase !== this.level.open && this.phases.includes(phase)) this.setLevel(`phases:${phase}`, false);
    this.activePhase = phase;
    this.mark(highlight);
    const framed = `${this.level.key}|${this.frameTargets(highlight).join()}|${highlight.state}`;
    if (framed !== this.framedKey) {
      this.framedKey = framed;
      this.frame(true);
    }
  }

  /** Refits after the pane changed size. */
  resize(): void {
    this.camera.measure();
    this.frame(false);
  }

  /** Marks the state or arrow whose entries the event list shows. */
  pick(pick: ChartPick): void {
    this.picked = pick;
    for (const element of this.viewport.querySelectorAll('.picked')) element.classList.remove('picked');
    const target = pick?.kind === 'state' ? this.nodes.get(pick.id) : pick?.kind === 'edge' ? this.edges.get(pick.id)?.group : undefined;
    target?.classList.add('picked');
  }

  /** Opens a phase (`phases:build`), closes it (`phases`) or shows every state (`whole`). */
  setLevel(key: LevelKey, animate: boolean): void {
    if (key === this.level.key) return;
    this.level = drawnLevel(this.chart.graph, key);
    this.draw();
    this.toolbar.showLevel(this.level.key);
    if (this.last) this.mark(this.last);
    this.pick(this.picked);
    this.framedKey = '';
    if (this.following) this.frame(animate);
    else this.fitLevel(animate);
    this.onLevel(this.level.key);
  }

  private setFollowing(on: boolean): void {
    this.following = on;
    this.toolbar.showFollowing(on);
  }

  private onClick(event: MouseEvent): void {
    if (this.camera.dragged) return;
    const target = event.target as Element;
    const edge = target.closest<SVGGElement>('.edge');
    const node = target.closest<SVGGElement>('.node');
    if (node?.dataset.id) {
      const id = node.dataset.id;
      if (node.classList.contains('phase')) this.setLevel(`phases:${id}`, true);
      else if (node.classList.contains('open') && target.closest('.header, .title, .hint, .desc, .band')) { this.setLevel('phases', true); return; }
      this.onPick({ kind: 'state', id });
    } else if (edge?.dataset.id) {
      this.onPick({ kind: 'edge', id: edge.dataset.id });
    } else {
      this.onPick(null);
    }
  }

  private onKey(event: KeyboardEvent): void {
    const node = (event.target as Element).closest<SVGGElement>('.node.phase');
    if (node?.dataset.id && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      event.stopPropagation();
      this.setLevel(`phases:${node.dataset.id}`, true);
      this.onPick({ kind: 'state', id: node.dataset.id });
    }
  }

  private mark(highlight: Highlight): void {
    for (const element of this.marked) element.classList.remove('active', 'active-parent', 'taken', 'refused', 'busy');
    this.marked = [];
    const mark = (element: Element | undefined, name: string) => { if (element) { element.classList.add(name); this.marked.push(element); } };
    const lineage = highlight.state ? this.chart.lineage(highlight.state) : [];
    const shown = lineage.find((id) => this.nodes.has(id));
    lineage.forEach((id) => mark(this.nodes.get(id), id === shown ? 'active' : 'active-parent'));
    const invokes = highlight.state ? this.chart.nodes.get(highlight.state)?.invokes ?? [] : [];
    if (shown && invokes.some((name) => highlight.inFlight.has(name))) mark(this.nodes.get(shown), 'busy');
    this.markVisits(highlight);
    this.markCards(highlight, shown ?? null);
    this.resetLabels();
    const taken = highlight.match?.transition ?? null;
    for (const refused of highlight.match?.refused ?? []) {
      if (refused.edge && refused.edge !== taken?.edge && this.edges.has(refused.edge)) {
        mark(this.edges.get(refused.edge)!.group, 'refused');
        this.showLabel(refused.edge, [refusedLine(refused, this.level.key !== 'whole')]);
      }
    }
    const takenView = taken?.edge ? this.edges.get(taken.edge) : undefined;
    if (taken && takenView) {
      mark(takenView.group, 'taken');
      this.showLabel(taken.edge!, takenLines(taken, takenView.restLines, this.level.key !== 'whole' && takenView.drawn.edge.source !== takenView.drawn.edge.target && this.isTopLevel(takenView)), true);
      takenView.group.parentNode?.appendChild(takenView.group);
    }
  }

  private isTopLevel(view: EdgeView): boolean {
    return this.chart.nodes.get(view.drawn.edge.source)?.parent === this.chart.graph.machineId || view.drawn.edge.source === this.chart.graph.machineId;
  }

  private markCards(highlight: Highlight, shown: string | null): void {
    for (const [id, parts] of this.cards) {
      const stats = highlight.phases.get(id);
      setText(parts.counts, stats && stats.visits > 0 ? `${stats.visits} ${stats.visits === 1 ? 'visit' : 'visits'} · ${stats.steps} ${stats.steps === 1 ? 'step' : 'steps'}` : 'not entered yet');
      const node = this.chart.nodes.get(id)!;
      const inner = shown === id && highlight.state && highlight.state !== id ? this.chart.nodes.get(highlight.state) : undefined;
      const doing = inner ? `● ${inner.key}${inner.invokes.length > 0 ? ` ⇢ ${inner.invokes.join(', ')}` : ''}` : node.description ?? '';
      const room = inner ? 25 : 28;
      setText(parts.line, doing.length > room ? `${doing.slice(0, room - 1)}…` : doing);
      parts.line.classList.toggle('now', inner !== undefined);
    }
  }

  private markVisits(highlight: Highlight): void {
    for (const [id, group] of this.nodes) {
      const times = highlight.visits.states.get(id) ?? 0;
      group.classList.toggle('visited', times > 0);
      const badge = group.querySelector(':scope > .visits');
      if (badge) setText(badge, times > 1 ? `×${times}` : '');
    }
    for (const [id, view] of this.edges) view.group.classList.toggle('visited', (highlight.visits.edges.get(id) ?? 0) > 0);
  }

  private resetLabels(): void {
    for (const view of this.edges.values()) {
      if (view.label.dataset.shown === 'true') setLines(view.label, view.restLines);
      view.label.dataset.shown = 'false';
    }
  }

  private showLabel(edgeId: string, lines: Array<string | { text: string; hit: boolean }>, _taken = false): void {
    const view = this.edges.get(edgeId);
    if (!view) return;
    setLines(view.label, lines.map((line) => (typeof line === 'string' ? line : line.text)));
    lines.forEach((line, index) => { if (typeof line !== 'string' && line.hit) view.label.children[index]?.classList.add('hit'); });
    view.label.dataset.shown = 'true';
  }

  /** The states Follow keeps in view: the active phase and its neighbours (at the phase level), or the active phase (inside). */
  private frameTargets(highlight: Highlight | null): string[] {
    const state = highlight?.state ?? null;
    const top = state ? this.chart.topLevel(state) : null;
    if (!top) return [];
    const from = highlight?.match?.transition?.source ? this.chart.topLevel(highlight.match.transition.source) : null;
    if (this.level.key === 'whole') {
      if (this.chart.nodes.get(top)?.kind === 'compound') return [top];
      return from && from !== top ? [top, from] : [top];
    }
    const neighbours = this.level.edges.filter(({ edge }) => !edge.toFinal && (edge.source === top || edge.target === top)).flatMap(({ edge }) => [edge.source, edge.target]);
    return [...new Set([top, ...(from ? [from] : []), ...neighbours])].filter((id) => this.level.nodes.some((drawn) => drawn.node.id === id));
  }

  private frame(animate: boolean): void {
    if (!this.following) return;
    const boxes = this.frameTargets(this.last).map((id) => this.boxOf(id)).filter((box): box is Box => box !== undefined);
    if (this.level.key === 'whole') { this.frameWhole(boxes, animate); return; }
    const whole = { x: 0, y: 0, width: this.level.width, height: this.level.height };
    const active = this.last?.state ? this.boxOf(this.last.state) : undefined;
    const insideOpen = this.level.open !== null && this.last?.state?.startsWith(`${this.level.open}.`) && active !== undefined;
    if (insideOpen) { this.camera.focus(active!, this.boxOf(this.level.open!)!, { readable: READABLE_INNER_SCALE, animate }); return; }
    // A phase opened while the run is elsewhere: its title and the top of its cycle, readable.
    const open = this.level.open ? this.boxOf(this.level.open) : undefined;
    if (open) { this.camera.focus({ ...open, height: METRICS.compoundHeader }, open, { readable: READABLE_INNER_SCALE, animate }); return; }
    if (this.camera.fitScale(whole) >= READABLE_PHASE_SCALE) { this.camera.fit(whole, { animate, maxScale: 1.15, padding: 14 }); return; }
    if (boxes.length === 0) { this.camera.focus({ x: 0, y: 0, width: 1, height: 1 }, whole, { readable: READABLE_PHASE_SCALE, animate }); return; }
    const around = union(boxes);
    if (this.camera.fitScale(around) >= READABLE_PHASE_SCALE) this.camera.fit(around, { animate, maxScale: 1.15, padding: 14 });
    else this.camera.focus(active ?? around, whole, { readable: READABLE_PHASE_SCALE, animate });
  }

  private frameWhole(boxes: Box[], animate: boolean): void {
    const active = this.last?.state ? this.chart.nodes.get(this.last.state) : undefined;
    // Inside a phase: the active state at a readable scale. At a final state: the phase it left and where it ended, together.
    if (boxes.length > 0 && active?.kind === 'state') this.camera.focus(active, union(boxes), { animate, readable: 0.9 });
    else if (boxes.length > 0) this.camera.fit(union(boxes), { animate, maxScale: 1.1 });
    else this.camera.fit({ x: 0, y: 0, width: this.level.width, height: this.level.height }, { animate });
  }

  private fitAll(): void {
    this.setFollowing(false);
    this.fitLevel(true);
  }

  private fitLevel(animate: boolean): void {
    this.camera.fit({ x: 0, y: 0, width: this.level.width, height: this.level.height }, { animate, padding: 14 });
  }

  private boxOf(id: string): Box | undefined {
    for (const candidate of this.chart.lineage(id)) {
      const drawn = this.level.nodes.find((entry) => entry.node.id === candidate);
      if (drawn) return drawn.box;
    }
    return undefined;
  }

  private draw(): void {
    const { graph } = this.chart;
    const phaseLevel = this.level.key !== 'whole';
    this.nodes = new Map();
    this.cards = new Map();
    this.edges = new Map();
    this.marked = [];
    const compounds = s('g', { class: 'compounds' });
    const edges = s('g', { class: 'edges' });
    const leaves = s('g', { class: 'leaves' });
    for (const { node, box, closed } of this.level.nodes) {
      const phaseIndex = this.phases.indexOf(node.id);
      if (closed) {
        const card = phaseCard(node, box, phaseIndex);
        this.cards.set(node.id, card.parts);
        this.nodes.set(node.id, card.group);
        leaves.append(card.group);
        continue;
      }
      const group = node.kind === 'compound' ? compoundNode(node, box, phaseIndex, phaseLevel && node.id === this.level.open) : leafNode(node, box, graph.machineId);
      this.nodes.set(node.id, group);
      (node.kind === 'compound' ? compounds : leaves).append(group);
      const initial = node.initial ? this.level.nodes.find((drawn) => drawn.node.id === node.initial) : undefined;
      if (initial && node.kind === 'compound') compounds.append(initialMarker(initial.box));
    }
    for (const drawn of this.level.edges) {
      const top = drawn.edge.source === graph.machineId || this.chart.nodes.get(drawn.edge.source)?.parent === graph.machineId;
      const railTarget = phaseLevel && drawn.edge.toFinal && top ? this.level.nodes.find((node) => node.node.id === drawn.edge.target)?.box : undefined;
      const view = edgeView(drawn, graph.transitions, phaseLevel && top ? METRICS.phaseLabelLineHeight : METRICS.labelLineHeight, railTarget);
      if (phaseLevel && top) view.group.classList.add('between-phases');
      this.edges.set(drawn.edge.id, view);
      edges.append(view.group);
    }
    this.svg.classList.toggle('phase-level', phaseLevel);
    this.viewport.replaceChildren(compounds, edges, leaves);
  }
}

/** The smallest box around all of `boxes`. */
function union(boxes: Box[]): Box {
  const x = Math.min(...boxes.map((box) => box.x));
  const y = Math.min(...boxes.map((box) => box.y));
  return { x, y, width: Math.max(...boxes.map((box) => box.x + box.width)) - x, height: Math.max(...boxes.map((box) => box.y + box.height)) - y };
}
