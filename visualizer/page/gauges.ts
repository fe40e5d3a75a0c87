import type { GaugeLimits } from '../server/page-data.js';
import { h, setText } from './dom.js';
import { count, duration } from './format.js';
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
    this.context = gauge('Context', [limits.soft, limits.hard], 'Prompt size of the last model call against the context window; marks: soft limit (elision) and hard limit (summary)');
    this.tokens = gauge('Tokens', [], 'Prompt and completion tokens so far; the bar is the share of prompt tokens served from the provider cache');
    this.element = h('div', { class: 'gauges' }, this.steps.element, this.time.element, this.context.element, this.tokens.element);
  }

  /** `elapsed` overrides the moment's time (a live run's clock keeps going between lines). */
  update(moment: Moment, elapsed: number | null = moment.elapsed): void {
    const { limits } = this;
    const stepRatio = moment.step / limits.maxSteps;
    set(this.steps, stepRatio, `${moment.step} / ${limits.maxSteps}`, moment.status ? `ended: ${moment.status}` : `${Math.max(0, limits.maxSteps - moment.step)} left`, level(stepRatio, limits.stepWarnAt));
    const timeRatio = elapsed !== null ? elapsed / limits.maxSeconds : 0;
    set(this.time, timeRatio, elapsed !== null ? `${duration(elapsed)} / ${duration(limits.maxSeconds)}` : `— / ${duration(limits.maxSeconds)}`, elapsed !== null ? `${Math.round(timeRatio * 100)}% of the time budget` : 'no timestamps', level(timeRatio, limits.warnAt));
    const contextRatio = moment.contextTokens !== null ? moment.contextTokens / limits.windowTokens : 0;
    const contextNote = contextRatio >= limits.hard ? 'over the hard limit: summary' : contextRatio >= limits.soft ? 'over the soft limit: elision' : `window ${count(limits.windowTokens)}`;
    set(this.context, contextRatio, moment.contextTokens !== null ? `${count(moment.contextTokens)} tok` : '—', contextNote, contextRatio >= limits.hard ? 'over' : contextRatio >= limits.soft ? 'warn' : 'ok');
    const total = moment.prompt + moment.completion;
    const cachedShare = moment.prompt > 0 ? moment.cached / moment.prompt : 0;
    const capped = limits.maxTokens !== null ? ` of ${count(limits.maxTokens)}` : '';
    const tokenRatio = limits.maxTokens !== null ? total / limits.maxTokens : cachedShare;
    set(this.tokens, tokenRatio, `${count(moment.prompt)} in · ${count(moment.completion)} out`, `${count(total)}${capped} total · ${count(moment.cached)} cached (${Math.round(cachedShare * 100)}%)`, limits.maxTokens !== null ? level(tokenRatio, 0.75) : 'ok');
    this.tokens.element.dataset.kind = limits.maxTokens !== null ? 'budget' : 'cache';
  }
}

function level(ratio: number, warnAt: number): 'ok' | 'warn' | 'over' {
  return ratio >= 1 ? 'over' : ratio >= warnAt ? 'warn' : 'ok';
}
