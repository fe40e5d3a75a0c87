import { h, s, setText } from './dom.js';
import type { Mark, Timeline } from './timeline.js';

interface ScrubberActions {
  move(index: number): void;
  step(delta: number): void;
  togglePlay(): void;
  toLatest(): void;
}

const ICONS = {
  first: 'M2 3h2v10H2zM9 3v10L4 8zM15 3v10l-5-5z',
  previous: 'M3 3h2v10H3zM13 3v10L6 8z',
  play: 'M5 3v10l8-5z',
  pause: 'M4 3h3v10H4zM9 3h3v10H9z',
  next: 'M3 3v10l7-5zM11 3h2v10h-2z',
} as const;

function icon(name: keyof typeof ICONS): SVGSVGElement {
  return s('svg', { viewBox: '0 0 16 16', width: 12, height: 12, 'aria-hidden': 'true', class: 'icon' }, s('path', { d: ICONS[name] }));
}

const MARK_COLORS: Record<Mark['tone'], string> = {
  refusal: '--c-refusal',
  accept: '--c-accept',
  stall: '--c-stall',
  warning: '--c-warning',
  context: '--c-context',
  error: '--c-error',
  blocked: '--c-blocked',
  unknown: '--c-muted',
};

/**
 * The timeline scrubber: a range over every trace line, with the phases as
 * coloured bands and notable events (gate refusals, stalls, warnings,
 * context actions, errors) as marks above it, plus step and play buttons.
 *
 * @example const scrubber = new Scrubber(timeline, phaseColor, { move, step, togglePlay, toLatest });
 */
export class Scrubber {
  readonly element: HTMLElement;
  private readonly range: HTMLInputElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly position: HTMLSpanElement;
  private readonly playButton: HTMLButtonElement;
  private readonly latestButton: HTMLButtonElement;
  private frame = 0;

  constructor(
    private readonly timeline: Timeline,
    private readonly phaseColor: (phase: string) => string,
    actions: ScrubberActions,
  ) {
    this.range = h('input', { type: 'range', class: 'range', min: 0, max: 0, value: 0, step: 1, 'aria-label': 'Position in the trace' });
    this.range.addEventListener('input', () => actions.move(Number(this.range.value)));
    this.canvas = h('canvas', { class: 'marks', 'aria-hidden': 'true' });
    this.position = h('span', { class: 'position' });
    const button = (content: Array<string | Element>, title: string, run: () => void, name = 'tool') => {
      const element = h('button', { class: name, type: 'button', title, 'aria-label': title }, ...content);
      element.addEventListener('click', run);
      return element;
    };
    // Play is the one wide, labelled button; the steps say "step", so ▶ and ▶| are not mistaken for each other.
    this.playButton = button([icon('play'), h('span', {}, 'Play')], 'Play the run from here (Space)', () => actions.togglePlay(), 'tool play');
    this.latestButton = button(['Latest'], 'Jump to the newest event and follow it (End)', () => actions.toLatest());
    this.element = h(
      'footer',
      { class: 'scrubber' },
      h(
        'div',
        { class: 'transport' },
        button([icon('first')], 'First event (Home)', () => actions.move(0)),
        button([icon('previous'), h('span', {}, 'step')], 'One event back (←; Shift+← one model call back)', () => actions.step(-1), 'tool step'),
        this.playButton,
        button([h('span', {}, 'step'), icon('next')], 'One event on (→; Shift+→ one model call on)', () => actions.step(1), 'tool step'),
        this.latestButton,
      ),
      h('div', { class: 'track' }, this.canvas, this.range),
      this.position,
    );
    new ResizeObserver(() => this.redraw()).observe(this.canvas);
  }

  /** `live`: the page has a live connection open now (a closed one shows plain "Latest"). */
  update(index: number, label: string, state: { following: boolean; playing: boolean; live: boolean }): void {
    const max = String(Math.max(0, this.timeline.length - 1));
    if (this.range.max !== max) {
      this.range.max = max;
      this.redraw();
    }
    if (this.range.value !== String(index)) this.range.value = String(Math.max(0, index));
    setText(this.position, label);
    if (this.playButton.dataset.playing !== String(state.playing)) {
      this.playButton.dataset.playing = String(state.playing);
      this.playButton.replaceChildren(icon(state.playing ? 'pause' : 'play'), h('span', {}, state.playing ? 'Pause' : 'Play'));
      this.playButton.title = state.playing ? 'Pause (Space)' : 'Play the run from here (Space)';
      this.playButton.setAttribute('aria-label', this.playButton.title);
    }
    setText(this.latestButton, state.live ? (state.following ? '● Live' : 'Go live') : 'Latest');
    this.latestButton.classList.toggle('on', state.following);
  }

  /** Redraws bands and marks (after a resize or new lines), at most once a frame. */
  redraw(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  private paint(): void {
    const ratio = window.devicePixelRatio || 1;
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    if (width === 0) return;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    const context = this.canvas.getContext('2d');
    if (!context) return;
    context.scale(ratio, ratio);
    const total = Math.max(1, this.timeline.length - 1);
    // The range's thumb travels a little inside the track; marks follow the thumb's centre.
    const inset = 8;
    const x = (index: number) => inset + (Math.min(index, total) / total) * (width - inset * 2);
    for (const segment of this.timeline.segments) {
      context.fillStyle = this.phaseColor(segment.phase);
      const from = x(segment.from);
      context.fillRect(from, height - 5, Math.max(1, x(Math.min(segment.to, total)) - from), 5);
    }
    const styles = getComputedStyle(document.documentElement);
    let lastX = -1;
    for (const mark of this.timeline.marks) {
      const at = Math.round(x(mark.index));
      if (at === lastX && mark.tone !== 'refusal') continue;
      lastX = at;
      context.fillStyle = styles.getPropertyValue(MARK_COLORS[mark.tone]).trim() || '#888';
      context.fillRect(at - 1, 0, 2, height - 7);
    }
  }
}
