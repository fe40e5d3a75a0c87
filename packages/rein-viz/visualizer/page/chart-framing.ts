import type { Box } from '../server/graph-types.js';
import { METRICS } from '../server/metrics.js';
import type { Camera } from './camera.js';
import type { ChartIndex } from './chart-index.js';
import type { DrawnLevel } from './chart-level.js';
import type { Highlight } from './chart-marks.js';

// The phase level's smallest text that must stay readable (arrow labels, 13 px) at 11 px on screen.
const READABLE_PHASE_SCALE = 11 / 13;
// Inside an open phase, state names (12.5 px) and labels (11 px) at their own size.
const READABLE_INNER_SCALE = 1;

/**
 * Where Follow points the camera. At the phase level: every phase when
 * they fit with their text readable, else the active phase and its
 * neighbours. In an open phase: the active state at full size inside it (or
 * the phase's title, when the run is elsewhere). For the whole chart: the
 * active state, or the phase a run left and the final it reached.
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
    if (open && active && highlight?.state?.startsWith(`${level.open}.`)) {
      this.camera.focus(active, open, { readable: READABLE_INNER_SCALE, animate });
      return;
    }
    // A phase opened while the run is elsewhere: its title and the top of its cycle, readable.
    if (open) {
      this.camera.focus({ ...open, height: METRICS.compoundHeader }, open, { readable: READABLE_INNER_SCALE, animate });
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
    // Inside a phase: the active state at a readable scale. At a final state: the phase it left and where it ended, together.
    if (boxes.length > 0 && active?.kind === 'state') this.camera.focus(active, union(boxes), { animate, readable: 0.9 });
    else if (boxes.length > 0) this.camera.fit(union(boxes), { animate, maxScale: 1.1 });
    else this.camera.fit(whole, { animate });
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
