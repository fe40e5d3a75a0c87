import type { Box } from '../server/graph-types.js';
import { METRICS } from '../server/metrics.js';
import type { Camera } from './camera.js';
import type { ChartIndex } from './chart-index.js';
import type { DrawnLevel } from './chart-level.js';
import type { Highlight } from './chart-marks.js';

// The phase level's smallest text that must stay readable (arrow labels, 13 px) at 11 px on screen.
const READABLE_PHASE_SCALE = 11 / 13;
// An open phase is never drawn larger than this: a small phase would fill the pane with a few boxes.
const OPEN_PHASE_MAX_SCALE = 1.15;
// Every state drawn: its smallest text (the visit counts, 10 px) at 11 px on screen; the rest is a pan or a zoom away.
const READABLE_WHOLE_SCALE = 11 / 10;

/**
 * Where Follow points the camera. At the phase level: every phase when
 * they fit with their text readable, else the active phase and its
 * neighbours. An open phase: all of it, fitted to the pane. For the whole
 * chart, readable: the active state, or the phase a run left and the final
 * it reached, as much of them as fits at that scale.
 *
 * @example const framing = new ChartFraming(chart, camera); framing.frame(level, highlight, true);
 */
export class ChartFraming {
  constructor(
    private readonly chart: ChartIndex,
    private readonly camera: Camera,
  ) {}

  /** The states Follow keeps in view: the active phase, where the run came from and, at the phase level, the phases next to it. */
  targets(level: DrawnLevel, highlight: Highlight | null): string[] {
    const state = highlight?.state ?? null;
    const top = state ? this.chart.topLevel(state) : null;
    if (!top) return [];
    const from = highlight?.match?.transition?.source ? this.chart.topLevel(highlight.match.transition.source) : null;
    if (level.key === 'whole') {
      if (this.chart.nodes.get(top)?.kind === 'compound') return [top];
      return from && from !== top ? [top, from] : [top];
    }
    const neighbours = level.edges
      .filter(({ edge }) => !edge.toFinal && (edge.source === top || edge.target === top))
      .flatMap(({ edge }) => [edge.source, edge.target]);
    return [...new Set([top, ...(from ? [from] : []), ...neighbours])].filter((id) => level.nodes.some((drawn) => drawn.node.id === id));
  }

  frame(level: DrawnLevel, highlight: Highlight | null, animate: boolean): void {
    const boxes = this.targets(level, highlight)
      .map((id) => boxOf(this.chart, level, id))
      .filter((box): box is Box => box !== undefined);
    const whole = { x: 0, y: 0, width: level.width, height: level.height };
    if (level.key === 'whole') {
      this.frameWhole(whole, boxes, highlight, animate);
      return;
    }
    const active = highlight?.state ? boxOf(this.chart, level, highlight.state) : undefined;
    const open = level.open ? boxOf(this.chart, level, level.open) : undefined;
    // An open phase fits its pane whole (the active state is inside it), with the column of end states beside it
    // (its exits that end the run are drawn into it) when that costs the phase no size, or keeps it readable.
    if (open) {
      const ends = level.nodes.filter(({ node }) => node.parent === this.chart.graph.machineId && node.kind !== 'compound').map(({ box }) => box);
      const withEnds = union([open, ...ends]);
      const scale = this.camera.fitScale(withEnds);
      const fits = scale >= Math.min(this.camera.fitScale(open), OPEN_PHASE_MAX_SCALE) * 0.98 || scale >= READABLE_PHASE_SCALE;
      this.camera.fit(ends.length > 0 && fits ? withEnds : open, { animate, maxScale: OPEN_PHASE_MAX_SCALE, padding: 14 });
      return;
    }
    if (this.camera.fitScale(whole) >= READABLE_PHASE_SCALE) {
      this.camera.fit(whole, { animate, maxScale: 1.15, padding: 14 });
      return;
    }
    if (boxes.length === 0) {
      this.camera.focus({ x: 0, y: 0, width: 1, height: 1 }, whole, { readable: READABLE_PHASE_SCALE, animate });
      return;
    }
    const around = union(boxes);
    if (this.camera.fitScale(around) >= READABLE_PHASE_SCALE) this.camera.fit(around, { animate, maxScale: 1.15, padding: 14 });
    else this.camera.focus(active ?? around, whole, { readable: READABLE_PHASE_SCALE, animate });
  }

  /** The whole level in view (Fit). */
  fit(level: DrawnLevel, animate: boolean): void {
    this.camera.fit({ x: 0, y: 0, width: level.width, height: level.height }, { animate, padding: 14 });
  }

  private frameWhole(whole: Box, boxes: Box[], highlight: Highlight | null, animate: boolean): void {
    const active = highlight?.state ? this.chart.nodes.get(highlight.state) : undefined;
    // At a final (a rail beside the phases, far from them): the state the run left it from, where the chart has words.
    const left = active?.kind === 'final' && highlight?.match?.transition ? this.chart.nodes.get(highlight.match.transition.source) : undefined;
    const drawn = (node: typeof active) => (node && node.width > 0 && node.kind !== 'compound' ? node : undefined);
    // The active state in the middle, never zoomed out past readable; what fits around it shows too.
    const state = drawn(left) ?? drawn(active);
    const target = state ? this.withPhaseTitle(state) : boxes.length > 0 ? union(boxes) : this.firstPhase(whole);
    this.camera.focus(target, whole, { animate, readable: READABLE_WHOLE_SCALE });
  }

  /** A state with the title of the phase it is in, when both fit at a readable scale: which phase it is shows. */
  private withPhaseTitle(state: Box & { id: string }): Box {
    const phase = this.chart.topLevel(state.id);
    const box = phase && phase !== state.id ? this.chart.nodes.get(phase) : undefined;
    if (!box || box.width === 0) return state;
    const around = union([state, { x: box.x, y: box.y, width: Math.min(box.width, METRICS.phaseWidth), height: METRICS.compoundHeader }]);
    return this.camera.fitScale(around, 24) >= READABLE_WHOLE_SCALE ? around : state;
  }

  /** Before the run enters a state: the top of the chart, where the first phase starts. */
  private firstPhase(whole: Box): Box {
    const first = [...this.chart.nodes.values()].find((node) => node.kind === 'compound' && node.width > 0);
    return first ? { ...first, height: Math.min(first.height, METRICS.compoundHeader) } : { ...whole, height: 1 };
  }
}

/** Where a state is drawn at a level: its own box, or the box of the closed phase that holds it. */
function boxOf(chart: ChartIndex, level: DrawnLevel, id: string): Box | undefined {
  for (const candidate of chart.lineage(id)) {
    const drawn = level.nodes.find((entry) => entry.node.id === candidate);
    if (drawn) return drawn.box;
  }
  return undefined;
}

/** The smallest box around all of `boxes`. */
function union(boxes: Box[]): Box {
  const x = Math.min(...boxes.map((box) => box.x));
  const y = Math.min(...boxes.map((box) => box.y));
  return { x, y, width: Math.max(...boxes.map((box) => box.x + box.width)) - x, height: Math.max(...boxes.map((box) => box.y + box.height)) - y };
}
