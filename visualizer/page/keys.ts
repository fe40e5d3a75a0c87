import type { Timeline } from './timeline.js';

interface KeyActions {
  index(): number;
  moveTo(index: number, latest?: boolean): void;
  togglePlay(): void;
  /** Escape: close the open phase, or clear the chart's filter. */
  back(): void;
}

/**
 * ←/→ one event (with Shift: one model call), Home/End, Space to play,
 * Escape to step back out; not while typing in the filter. A button clicked
 * with the mouse gives its focus back, so the next Space plays instead of
 * pressing that button again; a button reached with Tab keeps its focus
 * and Space presses it, as a keyboard user expects.
 *
 * @example bindKeys(timeline, { index: () => app.index, moveTo, togglePlay, back });
 */
export function bindKeys(timeline: Timeline, actions: KeyActions): void {
  const nextModel = (from: number, direction: 1 | -1) => {
    for (let at = from + direction; at >= 0 && at < timeline.length; at += direction) if (timeline.entries[at]!.kind === 'model') return at;
    return direction > 0 ? timeline.length - 1 : 0;
  };
  const keys: Record<string, (shift: boolean) => void> = {
    ArrowLeft: (shift) => actions.moveTo(shift ? nextModel(actions.index(), -1) : actions.index() - 1),
    ArrowRight: (shift) => actions.moveTo(shift ? nextModel(actions.index(), 1) : actions.index() + 1),
    Home: () => actions.moveTo(0),
    End: () => actions.moveTo(timeline.length - 1, true),
    ' ': () => actions.togglePlay(),
    Escape: () => actions.back(),
  };
  document.addEventListener('keydown', (event) => {
    const action = keys[event.key];
    const target = event.target as Element;
    // Inputs keep their keys (the range moves itself); a focused button or phase keeps Space and Enter.
    if (
      !action ||
      target.closest('input, textarea, select') ||
      (event.key === ' ' && target.closest('button, [role="button"]')) ||
      event.metaKey ||
      event.ctrlKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    action(event.shiftKey);
  });
  document.addEventListener('click', (event) => {
    const button = (event.target as Element).closest('button');
    // `detail` counts pointer clicks; a keyboard press reports 0.
    if (button && event.detail > 0) button.blur();
  });
}
