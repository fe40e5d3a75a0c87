import { METRICS } from '../server/metrics.js';
import type { Camera } from './camera.js';
import type { ChartIndex } from './chart-index.js';
import type { LevelKey } from './chart-level.js';
import { h, setText } from './dom.js';

/**
 * Under "All states", the name of the phase the run is in, pinned to the chart's corner while that phase's own title
 * is out of view: a phase taller than the pane, read at a readable size around a state deep inside it, would
 * otherwise show a fragment of states that does not say whose they are.
 *
 * @example const tag = new PhaseTag(chart, camera, phases); area.append(tag.element); tag.update('whole', 'build.gate');
 */
export class PhaseTag {
  readonly element: HTMLDivElement = h('div', { class: 'phase-tag', role: 'note' });
  private level: LevelKey = 'phases';
  private state: string | null = null;

  constructor(
    private readonly chart: ChartIndex,
    private readonly camera: Camera,
    private readonly phases: readonly string[],
  ) {
    this.element.hidden = true;
    camera.onMove(() => this.refresh());
  }

  update(level: LevelKey, state: string | null): void {
    this.level = level;
    this.state = state;
    this.refresh();
  }

  private refresh(): void {
    const phase = this.level === 'whole' && this.state ? this.chart.topLevel(this.state) : null;
    const node = phase && phase !== this.state ? this.chart.nodes.get(phase) : undefined;
    const title = node && node.width > 0 ? { x: node.x, y: node.y, width: Math.min(node.width, 160), height: METRICS.compoundHeader } : null;
    const show = title !== null && !this.camera.shows(title);
    this.element.hidden = !show;
    if (!show || !phase) return;
    setText(this.element, phase);
    this.element.title = `The states shown are in the ${phase} phase (its title is out of view)`;
    const index = this.phases.indexOf(phase);
    this.element.style.setProperty('--phase', index >= 0 ? `var(--phase-${index % 6})` : 'var(--c-final)');
  }
}
