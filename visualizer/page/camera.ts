import type { Box } from '../server/graph-types.js';

interface View {
  x: number;
  y: number;
  scale: number;
}

const MIN_SCALE = 0.08;
const MAX_SCALE = 4;

/**
 * Pan and zoom for the chart: drag to pan, wheel to zoom at the pointer,
 * double-click to fit. `fit` frames a box (the active phase, or the whole
 * chart), animated unless updates come fast.
 *
 * @example const camera = new Camera(svg, viewport, () => follow.off()); camera.fit(phaseBox);
 */
export class Camera {
  /** True right after a drag, so the click that ends it does not select a state. */
  dragged = false;
  private view: View = { x: 0, y: 0, scale: 1 };
  // Measured on resize only: reading it per move would force a layout on every scrubber step.
  private size = { width: 0, height: 0 };
  private animation = 0;
  private lastFit = 0;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly svg: SVGSVGElement,
    private readonly viewport: SVGGElement,
    private readonly onUserMove: () => void,
    private readonly onDoubleClick: () => void,
  ) {
    svg.addEventListener('wheel', (event) => this.onWheel(event), { passive: false });
    svg.addEventListener('pointerdown', (event) => this.onPointerDown(event));
    svg.addEventListener('dblclick', () => this.onDoubleClick());
  }

  /** Re-reads the chart's size (after the pane was resized). */
  measure(): void {
    const { width, height } = this.svg.getBoundingClientRect();
    this.size = { width, height };
  }

  private viewSize(): { width: number; height: number } {
    if (this.size.width === 0) this.measure();
    return this.size;
  }

  /** The scale at which `box` would just fit the visible area. */
  fitScale(box: Box, padding = 14): number {
    const { width, height } = this.viewSize();
    return Math.min((width - padding * 2) / Math.max(box.width, 1), (height - padding * 2) / Math.max(box.height, 1));
  }

  /** Frames `box` in the visible area, at most `maxScale`. */
  fit(box: Box, options: { maxScale?: number; padding?: number; animate?: boolean } = {}): void {
    const { width, height } = this.viewSize();
    if (width === 0 || height === 0) return;
    const padding = options.padding ?? 24;
    const scale = clamp(Math.min((width - padding * 2) / Math.max(box.width, 1), (height - padding * 2) / Math.max(box.height, 1), options.maxScale ?? 1.25));
    this.move({ scale, x: width / 2 - (box.x + box.width / 2) * scale, y: height / 2 - (box.y + box.height / 2) * scale }, options.animate !== false);
  }

  private move(target: View, animate: boolean): void {
    const now = performance.now();
    // Moves in quick succession (scrubbing) jump instead of queueing animations.
    const smooth = animate && now - this.lastFit > 250;
    this.lastFit = now;
    if (smooth) this.animateTo(target);
    else this.set(target);
  }

  /**
   * Keeps `target` in view at a readable scale: `area` (the active phase) is
   * fitted when that keeps text at `readable` or larger; otherwise the camera
   * sits at `readable`, centred on `target`, without showing more empty space
   * beyond `area` than it must.
   */
  focus(target: Box, area: Box, options: { readable?: number; animate?: boolean } = {}): void {
    const { width, height } = this.viewSize();
    if (width === 0 || height === 0) return;
    const padding = 24;
    const readable = options.readable ?? 0.9;
    if (this.fitScale(area, padding) >= readable) {
      this.fit(area, { maxScale: Math.max(1.1, readable), ...(options.animate === false ? { animate: false } : {}) });
      return;
    }
    const scale = readable;
    const axis = (start: number, size: number, center: number, view: number) => {
      if (size * scale <= view - padding * 2) return view / 2 - (start + size / 2) * scale;
      const wanted = view / 2 - center * scale;
      return Math.min(padding - start * scale, Math.max(view - padding - (start + size) * scale, wanted));
    };
    this.move(
      { scale, x: axis(area.x, area.width, target.x + target.width / 2, width), y: axis(area.y, area.height, target.y + target.height / 2, height) },
      options.animate !== false,
    );
  }

  zoomBy(factor: number, at?: { x: number; y: number }): void {
    const size = this.viewSize();
    const point = at ?? { x: size.width / 2, y: size.height / 2 };
    const scale = clamp(this.view.scale * factor);
    const ratio = scale / this.view.scale;
    this.set({ scale, x: point.x - (point.x - this.view.x) * ratio, y: point.y - (point.y - this.view.y) * ratio });
  }

  get scale(): number {
    return this.view.scale;
  }

  private onWheel(event: WheelEvent): void {
    event.preventDefault();
    const rect = this.svg.getBoundingClientRect();
    this.zoomBy(Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.0015)), { x: event.clientX - rect.left, y: event.clientY - rect.top });
    this.onUserMove();
  }

  private onPointerDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    const start = { x: event.clientX, y: event.clientY, view: { ...this.view } };
    let moved = false;
    this.dragged = false;
    const move = (next: PointerEvent) => {
      const dx = next.clientX - start.x;
      const dy = next.clientY - start.y;
      if (!moved && Math.hypot(dx, dy) < 4) return;
      if (!moved) {
        moved = true;
        this.svg.setPointerCapture(event.pointerId);
        this.svg.classList.add('dragging');
        this.onUserMove();
      }
      this.set({ ...start.view, x: start.view.x + dx, y: start.view.y + dy });
    };
    const up = () => {
      this.svg.removeEventListener('pointermove', move);
      this.svg.removeEventListener('pointerup', up);
      this.svg.removeEventListener('pointercancel', up);
      this.svg.classList.remove('dragging');
      this.dragged = moved;
    };
    this.svg.addEventListener('pointermove', move);
    this.svg.addEventListener('pointerup', up);
    this.svg.addEventListener('pointercancel', up);
  }

  private animateTo(target: View): void {
    cancelAnimationFrame(this.animation);
    const from = { ...this.view };
    const started = performance.now();
    const tick = (now: number) => {
      const progress = Math.min(1, (now - started) / 320);
      const ease = 1 - (1 - progress) ** 3;
      this.set(
        { x: from.x + (target.x - from.x) * ease, y: from.y + (target.y - from.y) * ease, scale: from.scale + (target.scale - from.scale) * ease },
        false,
      );
      if (progress < 1) this.animation = requestAnimationFrame(tick);
    };
    this.animation = requestAnimationFrame(tick);
  }

  private set(view: View, cancel = true): void {
    if (cancel) cancelAnimationFrame(this.animation);
    this.view = view;
    this.viewport.setAttribute('transform', `translate(${view.x.toFixed(1)} ${view.y.toFixed(1)}) scale(${view.scale.toFixed(4)})`);
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` after every move of the camera (a pan, a zoom, each frame of an animation). */
  onMove(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Whether all of `box` (chart coordinates) is on screen now. */
  shows(box: Box): boolean {
    const { width, height } = this.viewSize();
    const { x, y, scale } = this.view;
    return box.x * scale + x >= 0 && box.y * scale + y >= 0 && (box.x + box.width) * scale + x <= width && (box.y + box.height) * scale + y <= height;
  }
}

function clamp(scale: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
}
