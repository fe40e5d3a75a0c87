import type { GaugeLimits } from '../server/page-data.js';
import { h, setText } from './dom.js';
import { clockPair, count } from './format.js';
import type { Moment } from './timeline.js';

interface Gauge {
  element: HTMLDivElement;
  value: HTMLSpanElement;
  note: HTMLSpanElement;
  fill: HTMLDivElement;
}

function gauge(label: string, ticks: number[], title: string): Gauge {
  const value = h('span', { class: 'value' });
  const note = h('span', { class: 'note' });
  const fill = h('div', { class: 'fill' });
  const bar = h('div', { class: 'bar' }, fill, ...ticks.map((tick) => h('div', { class: 'tick', style: `left:${(tick * 100).toFixed(1)}%` })));
  const element = h('div', { class: 'gauge', title }, h('div', { class: 'gauge-head' }, h('span', { class: 'label' }, label), value), bar, note);
  return { element, value, note, fill };
}

function set(target: Gauge, ratio: number, value: string, note: string, level: 'ok' | 'warn' | 'over'): void {
  setText(target.value, value);
  setText(target.note, note);
  target.fill.style.width = `${Math.min(100, Math.max(0, ratio * 100)).toFixed(1)}%`;
  target.element.dataset.level = level;
}

/**
 * Steps, time, context and tokens against the run's budgets, at the
 * scrubber's position; the marks on a bar are the warning thresholds.
 *
 * @example const gauges = new Gauges(limits); gauges.update(timeline.moment(k));
 */
export class Gauges {
  readonly element: HTMLDivElement;
  private readonly steps: Gauge;
  private readonly time: Gauge;
  private readonly context: Gauge;
  private readonly tokens: Gauge;

  constructor(private readonly limits: GaugeLimits) {
    this.steps = gauge('Steps', [limits.stepWarnAt], 'Model calls so far against budgets.maxSteps (the mark is the step warning)');
    this.time = gauge('Time', [limits.warnAt], 'Wall-clock time since the start against budgets.maxSeconds (the mark is the time warning)');
    this.context = gauge(
      'Context',
      [limits.soft, limits.hard],
      'Prompt size of the last model call against the context window; marks: soft limit (elision) and hard limit (summary)',
    );
    this.tokens = gauge('Tokens', [], 'Prompt and completion tokens so far; the bar is the share of prompt tokens served from the provider cache');
    this.element = h('div', { class: 'gauges' }, this.steps.element, this.time.element, this.context.element, this.tokens.element);
  }

  /** `elapsed` overrides the moment's time (a live run's clock keeps going between lines). */
  update(moment: Moment, elapsed: number | null = moment.elapsed): void {
    const { limits } = this;
    const stepRatio = moment.step / limits.maxSteps;
    set(
      this.steps,
      stepRatio,
      `${moment.step} / ${limits.maxSteps}`,
      moment.status ? `ended: ${moment.status}` : `${Math.max(0, limits.maxSteps - moment.step)} left`,
      level(stepRatio, limits.stepWarnAt),
    );
    const timeRatio = elapsed !== null ? elapsed / limits.maxSeconds : 0;
    const [spent, budget] = clockPair(elapsed, limits.maxSeconds);
    set(
      this.time,
      timeRatio,
      `${spent} / ${budget}`,
      elapsed !== null ? `${Math.round(timeRatio * 100)}% of the time budget` : 'no timestamps',
      level(timeRatio, limits.warnAt),
    );
    // The window the provider turned out to have (it rejected a prompt as too long) replaces the one the rules assumed.
    const window = moment.learntWindow !== null ? Math.min(moment.learntWindow, limits.windowTokens) : limits.windowTokens;
    const contextRatio = moment.contextTokens !== null ? moment.contextTokens / window : 0;
    const windowNote =
      moment.learntWindow !== null && moment.learntWindow < limits.windowTokens
        ? `of ${count(window)} (learnt; rules said ${count(limits.windowTokens)})`
        : `of ${count(window)}`;
    const contextNote =
      contextRatio >= limits.hard ? `${windowNote} · over the hard limit` : contextRatio >= limits.soft ? `${windowNote} · over the soft limit` : windowNote;
    set(
      this.context,
      contextRatio,
      moment.contextTokens !== null ? `${count(moment.contextTokens)} tokens` : '—',
      contextNote,
      contextRatio >= limits.hard ? 'over' : contextRatio >= limits.soft ? 'warn' : 'ok',
    );
    this.context.element.title = `Prompt size of the last model call against the context window (${count(window)} tokens${moment.learntWindow !== null ? ', learnt from the provider' : ''}); marks: soft limit (elision) and hard limit (summary)`;
    const total = moment.prompt + moment.completion;
    const cachedShare = moment.prompt > 0 ? moment.cached / moment.prompt : 0;
    const capped = limits.maxTokens !== null ? ` of ${count(limits.maxTokens)}` : '';
    const tokenRatio = limits.maxTokens !== null ? total / limits.maxTokens : cachedShare;
    set(
      this.tokens,
      tokenRatio,
      `${count(moment.prompt)} in · ${count(moment.completion)} out`,
      `${count(total)}${capped} tokens · ${count(moment.cached)} cached (${Math.round(cachedShare * 100)}%)`,
      limits.maxTokens !== null ? level(tokenRatio, 0.75) : 'ok',
    );
    this.tokens.element.dataset.kind = limits.maxTokens !== null ? 'budget' : 'cache';
  }
}

function level(ratio: number, warnAt: number): 'ok' | 'warn' | 'over' {
  return ratio >= 1 ? 'over' : ratio >= warnAt ? 'warn' : 'ok';
}
