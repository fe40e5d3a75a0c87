import { Camera } from './camera.js';
import { markers } from './chart-drawing.js';
import { ChartFraming } from './chart-framing.js';
import type { ChartIndex } from './chart-index.js';
import { type DrawnLevel, drawnLevel, type LevelKey, phasesOf } from './chart-level.js';
import { type Highlight, MomentMarks } from './chart-marks.js';
import { ChartToolbar } from './chart-toolbar.js';
import { h, s } from './dom.js';
import { drawLevel, type LevelViews } from './level-drawing.js';
import { PhaseTag } from './phase-tag.js';

export type { PhaseStats } from './chart-marks.js';

/** A state or an arrow the person clicked: the event list shows the times it was entered or taken. */
export type ChartPick = { kind: 'state'; id: string } | { kind: 'edge'; id: string } | null;

/**
 * The statechart as SVG. It opens at the phase level: phases as large
 * boxes with what they are doing now and how often they ran, the arrows
 * between them labelled with the guards that can take them. Clicking a
 * phase opens its turn cycle (its title closes it again); "All states"
 * draws every state of the machine. `update` marks the moment (see
 * `MomentMarks`); Follow keeps the active phase and its neighbours in view
 * (see `ChartFraming`). Clicking a state or an arrow picks it.
 *
 * @example const view = new StatechartView(chart, whyCard.element, (pick) => list.setScope(pick), () => render()); view.update(highlight);
 */
export class StatechartView {
  readonly element: HTMLDivElement;
  private readonly svg: SVGSVGElement;
  private readonly viewport: SVGGElement;
  private readonly camera: Camera;
  private readonly toolbar: ChartToolbar;
  private readonly framing: ChartFraming;
  private readonly marks: MomentMarks;
  private readonly phaseTag: PhaseTag;
  private readonly phases: string[];
  private level: DrawnLevel;
  private views!: LevelViews;
  private following = true;
  private framedKey = '';
  private picked: ChartPick = null;
  private last: Highlight | null = null;
  private activePhase: string | null = null;

  constructor(
    private readonly chart: ChartIndex,
    why: HTMLElement,
    private readonly onPick: (pick: ChartPick) => void,
    private readonly onLevel: (key: LevelKey) => void = () => undefined,
  ) {
    this.phases = phasesOf(chart.graph);
    this.viewport = s('g', { class: 'viewport' });
    this.svg = s(
      'svg',
      {
        class: 'chart',
        role: 'group',
        'aria-label': `Statechart of ${chart.graph.machineId}: click a phase to open it, a state or an arrow to list its events`,
      },
      markers(),
      this.viewport,
    );
    this.toolbar = new ChartToolbar({
      level: (whole) => this.setLevel(whole ? 'whole' : 'phases', true),
      follow: () => {
        this.setFollowing(!this.following);
        this.frame(true);
      },
      fit: () => this.fitAll(),
      zoom: (factor) => {
        this.setFollowing(false);
        this.camera.zoomBy(factor);
      },
    });
    this.camera = new Camera(
      this.svg,
      this.viewport,
      () => this.setFollowing(false),
      () => this.fitAll(),
    );
    this.phaseTag = new PhaseTag(chart, this.camera, this.phases);
    this.element = h(
      'div',
      { class: 'chart-pane' },
      h('div', { class: 'chart-head' }, why, this.toolbar.element),
      h('div', { class: 'chart-area' }, this.svg, this.phaseTag.element),
    );
    this.framing = new ChartFraming(chart, this.camera);
    this.marks = new MomentMarks(chart);
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
    if (this.following && this.level.open && phase !== this.activePhase && phase && phase !== this.level.open && this.phases.includes(phase))
      this.setLevel(`phases:${phase}`, false);
    this.activePhase = phase;
    this.marks.apply(this.views, highlight, this.level.key !== 'whole');
    this.phaseTag.update(this.level.key, highlight.state);
    const framed = `${this.level.key}|${this.framing.targets(this.level, highlight).join()}|${highlight.state}`;
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
    const target = pick?.kind === 'state' ? this.views.nodes.get(pick.id) : pick?.kind === 'edge' ? this.views.edges.get(pick.id)?.group : undefined;
    target?.classList.add('picked');
  }

  /** Opens a phase (`phases:build`), closes it (`phases`) or shows every state (`whole`). */
  setLevel(key: LevelKey, animate: boolean): void {
    if (key === this.level.key) return;
    this.level = drawnLevel(this.chart.graph, key);
    this.draw();
    this.toolbar.showLevel(this.level.key);
    if (this.last) this.marks.apply(this.views, this.last, this.level.key !== 'whole');
    this.phaseTag.update(this.level.key, this.last?.state ?? null);
    this.pick(this.picked);
    this.framedKey = '';
    if (this.following) this.frame(animate);
    else this.framing.fit(this.level, animate);
    this.onLevel(this.level.key);
  }

  private setFollowing(on: boolean): void {
    this.following = on;
    this.toolbar.showFollowing(on);
  }

  private frame(animate: boolean): void {
    if (this.following) this.framing.frame(this.level, this.last, animate);
  }

  private fitAll(): void {
    this.setFollowing(false);
    this.framing.fit(this.level, true);
  }

  private onClick(event: MouseEvent): void {
    if (this.camera.dragged) return;
    const target = event.target as Element;
    const edge = target.closest<SVGGElement>('.edge');
    const node = target.closest<SVGGElement>('.node');
    if (node?.dataset.id) {
      const id = node.dataset.id;
      if (node.classList.contains('phase')) this.setLevel(`phases:${id}`, true);
      else if (node.classList.contains('open') && target.closest('.header, .title, .hint, .desc, .band')) {
        this.setLevel('phases', true);
        return;
      }
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

  private draw(): void {
    this.views = drawLevel(this.chart, this.level, this.phases);
    this.marks.reset();
    this.svg.classList.toggle('phase-level', this.level.key !== 'whole');
    this.viewport.replaceChildren(...this.views.layers);
  }
}
