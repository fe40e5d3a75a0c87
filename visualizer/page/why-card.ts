import { shortEvent } from '../server/event-label.js';
import { knowsGuard, phraseGuard } from '../server/guard-phrases.js';
import type { TransitionMatch } from './chart-index.js';
import { h, setText } from './dom.js';
import { guardPart } from './edge-text.js';
import { type Entry, text } from './entries.js';
import { describeEntry } from './event-format.js';
import { duration } from './format.js';
import type { LiveState } from './live-state.js';
import { isBlocked } from './marks.js';

interface WhyInput {
  state: string | null;
  /** The transition that explains the moment (for an effect line, the one whose action wrote it). */
  transition: Entry | null;
  match: TransitionMatch | null;
  /** The line at the scrubber's position. */
  entry: Entry | null;
  /** True when the state comes from the inspection stream and is newer than the last trace transition. */
  ahead: boolean;
  live: LiveState | null;
  now: number;
}

// Lines whose story the card tells in words, beside the transition that wrote them.
const TOLD = new Set(['stall', 'progress', 'finish', 'budget_warning', 'context', 'rule_action', 'end', 'crash', 'interrupted']);

/**
 * The strip over the chart that answers "where is it and why": the state,
 * the transition that led there, the guard that held (in words, for the
 * harness's own guards) or the guards that refused, and what the moment's
 * line did: the stall rule that fired and the nudge sent, the gate's
 * decision, a blocked command. Live, the call it is waiting on. It sits
 * above the chart, never over it.
 *
 * @example card.update({ state: 'verify.think', transition, match, entry, ahead: false, live: null, now: Date.now() / 1000 });
 */
export class WhyCard {
  readonly element: HTMLElement;
  private readonly state = h('span', { class: 'state' });
  private readonly how = h('span', { class: 'how' });
  private readonly guards = h('div', { class: 'guards' });
  private readonly story = h('div', { class: 'story' });

  constructor() {
    this.element = h('div', { class: 'why', 'aria-live': 'polite' }, h('div', { class: 'now' }, this.state, this.how), this.guards, this.story);
  }

  update(input: WhyInput): void {
    setText(this.state, input.state ?? 'not started');
    this.element.dataset.state = input.state ?? '';
    const data = input.transition?.data;
    if (!data || input.ahead) {
      setText(this.how, input.ahead ? 'live state from XState inspection' : 'no transition yet');
      this.guards.replaceChildren();
    } else {
      const cause = data.eventless === true ? `eventless, after ${shortEvent(text(data, 'event'))}` : `on ${shortEvent(text(data, 'event'))}`;
      const how = `${text(data, 'from') || '(start)'} → ${text(data, 'to')}  ${cause}`;
      setText(this.how, how);
      this.how.title = how;
      const parts = guardParts(input.match, text(data, 'guard'), Array.isArray(data.actions) ? data.actions.map(String) : []);
      this.guards.replaceChildren(...parts);
      this.guards.title = parts.map((part) => part.textContent).join('  ');
    }
    this.story.replaceChildren(...storyParts(input));
    this.story.title = this.story.textContent ?? '';
  }
}

function storyParts(input: WhyInput): Node[] {
  const oldest = input.live?.oldest();
  if (oldest) return [h('span', { class: 'busy' }, `⇢ waiting on ${oldest.name} · ${duration(Math.max(0, input.now - oldest.since))}`)];
  const entry = input.entry;
  if (!entry || !(TOLD.has(entry.kind) || (entry.kind === 'tool' && isBlocked(entry.data)))) return [];
  const row = describeEntry(entry, null);
  const parts: Node[] = [h('span', { class: `badge tone-${row.tone}` }, row.badge), h('span', { class: `said tone-${row.tone}` }, row.text)];
  if (entry.kind === 'stall' && text(entry.data, 'message')) parts.push(h('span', { class: 'nudge' }, `nudge sent: “${text(entry.data, 'message')}”`));
  return parts;
}

function guardParts(match: TransitionMatch | null, guard: string, actions: string[]): HTMLElement[] {
  const parts: HTMLElement[] = [];
  const taken = match?.transition;
  if (guard) parts.push(h('span', { class: 'ok' }, `✓ ${taken?.guard ? spoken(guardPart(taken), taken.guard) : guard}`));
  for (const refused of match?.refused ?? []) parts.push(h('span', { class: 'no' }, `✗ ${guardPart(refused)}`));
  if (!guard && (match?.refused.length ?? 0) > 0) parts.push(h('span', { class: 'else' }, '→ [else]'));
  if (actions.length > 0) parts.push(h('span', { class: 'actions' }, `/ ${actions.join(', ')}`));
  return parts;
}

/** A guard as the chart labels it, and in words when that says more. */
function spoken(label: string, guard: { name: string; params?: Record<string, unknown> }): string {
  if (!knowsGuard(guard.name)) return label;
  const words = phraseGuard(guard);
  return label.includes(words) ? label : `${label} ${words}`;
}
