import type { LevelKey } from './chart-level.js';
import { h } from './dom.js';

interface ToolbarActions {
  /** True: every state of the machine; false: the phase level. */
  level(whole: boolean): void;
  follow(): void;
  fit(): void;
  zoom(factor: number): void;
}

/**
 * The chart's buttons: the level (phases, or every state), Follow, Fit and
 * zoom. Pressed buttons say so (`aria-pressed`).
 *
 * @example const toolbar = new ChartToolbar({ level, follow, fit, zoom }); pane.append(toolbar.element);
 */
export class ChartToolbar {
  readonly element: HTMLDivElement;
  private readonly phases: HTMLButtonElement;
  private readonly whole: HTMLButtonElement;
  private readonly followButton: HTMLButtonElement;

  constructor(actions: ToolbarActions) {
    const button = (label: string, title: string, run: () => void, extra: Record<string, string> = {}) => {
      const element = h('button', { class: 'tool', title, type: 'button', ...extra }, label);
      element.addEventListener('click', run);
      return element;
    };
    this.phases = button('Phases', 'The phases, and the arrows between them (click a phase to open its turn cycle)', () => actions.level(false), {
      'aria-pressed': 'true',
    });
    this.whole = button('All states', 'Every state of the machine, every phase open', () => actions.level(true), { 'aria-pressed': 'false' });
    this.followButton = button('Follow', 'Keep the active phase and its neighbours in view', () => actions.follow(), { 'aria-pressed': 'true' });
    this.element = h(
      'div',
      { class: 'chart-tools' },
      h('div', { class: 'segmented', role: 'group', 'aria-label': 'Chart level' }, this.phases, this.whole),
      this.followButton,
      button('Fit', 'Show the whole level (double-click the chart)', () => actions.fit()),
      button('−', 'Zoom out', () => actions.zoom(1 / 1.25), { 'aria-label': 'Zoom out' }),
      button('+', 'Zoom in', () => actions.zoom(1.25), { 'aria-label': 'Zoom in' }),
    );
    this.showLevel('phases');
    this.showFollowing(true);
  }

  showLevel(key: LevelKey): void {
    const whole = key === 'whole';
    this.phases.classList.toggle('on', !whole);
    this.whole.classList.toggle('on', whole);
    this.phases.setAttribute('aria-pressed', String(!whole));
    this.whole.setAttribute('aria-pressed', String(whole));
  }

  showFollowing(on: boolean): void {
    this.followButton.classList.toggle('on', on);
    this.followButton.setAttribute('aria-pressed', String(on));
  }
}
