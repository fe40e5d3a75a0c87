import { shortEvent } from '../server/transition-label.js';
import type { TransitionMatch } from './chart-index.js';
import { h, setText } from './dom.js';
import { text, type Entry } from './entries.js';
import { guardLabel } from './event-format.js';
import { duration } from './format.js';
import type { LiveState } from './live-state.js';

export interface WhyInput {
  state: string | null;
  transition: Entry | null;
  match: TransitionMatch | null;
  /** True when the state comes from the inspection stream and is newer than the last trace transition. */
  ahead: boolean;
  live: LiveState | null;
  now: number;
}

/**
 * The card over the chart that answers "where is it and why": the state,
 * the transition that led there, the guard that held or the guards that
 * refused, and, live, the call it is waiting on.
 *
 * @example card.update({ state: 'verify.think', transition, match, ahead: false, live: null, now: Date.now() / 1000 });
 */
export class WhyCard {
  readonly element: HTMLElement;
  private readonly state = h('span', { class: 'state' });
  private readonly how = h('div', { class: 'how' });
  private readonly guards = h('div', { class: 'guards' });
  private readonly busy = h('div', { class: 'busy' });

  constructor() {
    this.element = h('div', { class: 'why' }, h('div', { class: 'now' }, this.state), this.how, this.guards, this.busy);
  }

  update(input: WhyInput): void {
    setText(this.state, input.state ?? 'not started');
    this.element.dataset.state = input.state ?? '';
    const data = input.transition?.data;
    if (!data || input.ahead) {
      setText(this.how, input.ahead ? 'live state from XState inspection' : 'no transition yet');
      setText(this.guards, '');
    } else {
      setText(this.how, `${text(data, 'from') || '(start)'} → ${text(data, 'to')}  on ${shortEvent(text(data, 'event'))}`);
      this.guards.replaceChildren(...guardParts(input.match, text(data, 'guard'), Array.isArray(data.actions) ? data.actions.map(String) : []));
    }
    const oldest = input.live?.oldest();
    setText(this.busy, oldest ? `⇢ waiting on ${oldest.name} · ${duration(Math.max(0, input.now - oldest.since))}` : '');
  }
}

function guardParts(match: TransitionMatch | null, guard: string, actions: string[]): Node[] {
  const parts: Node[] = [];
  if (guard) parts.push(h('span', { class: 'ok' }, `✓ ${match?.transition ? guardLabel(match.transition) : guard}`));
  for (const refused of match?.refused ?? []) parts.push(h('span', { class: 'no' }, `✗ ${guardLabel(refused)}`));
  if (!guard && (match?.refused.length ?? 0) > 0) parts.push(h('span', { class: 'else' }, '→ [else]'));
  if (actions.length > 0) parts.push(h('span', { class: 'actions' }, `/ ${actions.join(', ')}`));
  return parts;
}
