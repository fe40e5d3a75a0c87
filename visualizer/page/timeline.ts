import type { ChartIndex, TransitionMatch } from './chart-index.js';
import { num, obj, text, toEntry, type Entry } from './entries.js';

/** What the run looked like at one point of the trace. */
export interface Moment {
  index: number;
  entry: Entry | null;
  /** The state after the last transition at or before `index` (dotted, as the trace writes it). */
  state: string | null;
  /** That transition's line, and what it matched in the chart. */
  transition: Entry | null;
  match: TransitionMatch | null;
  step: number;
  /** Seconds since the start line. */
  elapsed: number | null;
  /** The prompt size of the last model call, or the view size the context manager last reported. */
  contextTokens: number | null;
  prompt: number;
  completion: number;
  cached: number;
  /** The end line's status, once the run has ended. */
  status: string | null;
}

/** A notable event for the scrubber's marks. */
export interface Mark {
  index: number;
  tone: 'refusal' | 'accept' | 'stall' | 'warning' | 'context' | 'error' | 'unknown';
}

/** A stretch of the trace spent in one top-level state. */
export interface Segment {
  from: number;
  to: number;
  phase: string;
}

/**
 * The trace lines with running totals, so that any index can be shown at
 * once: per index, the last transition, the step, the tokens so far and the
 * context size. Append-only, for live runs.
 *
 * @example const timeline = new Timeline(chart); lines.forEach((line) => timeline.append(line)); timeline.moment(40).state // 'verify.compact'
 */
export class Timeline {
  readonly entries: Entry[] = [];
  readonly marks: Mark[] = [];
  readonly segments: Segment[] = [];
  startT: number | null = null;
  private readonly lastTransition: number[] = [];
  private readonly step: number[] = [];
  private readonly context: Array<number | null> = [];
  private readonly prompt: number[] = [];
  private readonly completion: number[] = [];
  private readonly cached: number[] = [];
  private endIndex = -1;

  constructor(private readonly chart: ChartIndex) {}

  get length(): number {
    return this.entries.length;
  }

  append(raw: unknown): Entry {
    const index = this.entries.length;
    const entry = toEntry(raw, index);
    const previous = index - 1;
    this.entries.push(entry);
    if (entry.kind === 'start' && this.startT === null) this.startT = entry.t;
    this.lastTransition.push(entry.kind === 'transition' ? index : (this.lastTransition[previous] ?? -1));
    this.step.push(Math.max(this.step[previous] ?? 0, stepOf(entry)));
    this.context.push(contextOf(entry) ?? this.context[previous] ?? null);
    const usage = entry.kind === 'model' ? obj(entry.data, 'usage') : {};
    this.prompt.push((this.prompt[previous] ?? 0) + (num(usage, 'promptTokens') ?? 0));
    this.completion.push((this.completion[previous] ?? 0) + (num(usage, 'completionTokens') ?? 0));
    this.cached.push((this.cached[previous] ?? 0) + (num(usage, 'cachedTokens') ?? 0));
    if (entry.kind === 'end' && this.endIndex < 0) this.endIndex = index;
    this.noteMark(entry);
    this.noteSegment(entry);
    return entry;
  }

  moment(index: number): Moment {
    const at = Math.min(Math.max(index, -1), this.entries.length - 1);
    const transitionAt = at >= 0 ? this.lastTransition[at]! : -1;
    const transition = transitionAt >= 0 ? this.entries[transitionAt]! : null;
    const entry = at >= 0 ? this.entries[at]! : null;
    return {
      index: at,
      entry,
      state: transition ? text(transition.data, 'to') || null : null,
      transition,
      match: transition ? this.matchOf(transition) : null,
      step: at >= 0 ? this.step[at]! : 0,
      elapsed: entry?.t != null && this.startT !== null ? Math.max(0, entry.t - this.startT) : null,
      contextTokens: at >= 0 ? this.context[at]! : null,
      prompt: at >= 0 ? this.prompt[at]! : 0,
      completion: at >= 0 ? this.completion[at]! : 0,
      cached: at >= 0 ? this.cached[at]! : 0,
      status: this.endIndex >= 0 && at >= this.endIndex ? text(this.entries[this.endIndex]!.data, 'status') || 'ended' : null,
    };
  }

  matchOf(transition: Entry): TransitionMatch {
    const { data } = transition;
    return this.chart.match({ from: text(data, 'from'), to: text(data, 'to'), event: text(data, 'event'), ...(text(data, 'guard') ? { guard: text(data, 'guard') } : {}) });
  }

  /** How often each state was entered and each arrow taken, up to `index`: where the run looped. */
  visits(index: number): { states: Map<string, number>; edges: Map<string, number> } {
    const states = new Map<string, number>();
    const edges = new Map<string, number>();
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    for (let at = 0; at <= index && at < this.entries.length; at++) {
      const entry = this.entries[at]!;
      if (entry.kind !== 'transition') continue;
      const from = new Set(this.chart.lineage(text(entry.data, 'from')));
      for (const id of this.chart.lineage(text(entry.data, 'to'))) if (!from.has(id)) bump(states, id);
      const edge = this.matchOf(entry).transition?.edge;
      if (edge) bump(edges, edge);
    }
    return { states, edges };
  }

  private noteMark(entry: Entry): void {
    const tone = markTone(entry);
    if (tone) this.marks.push({ index: entry.index, tone });
  }

  private noteSegment(entry: Entry): void {
    if (entry.kind !== 'transition') return;
    const phase = this.chart.topLevel(text(entry.data, 'to')) ?? text(entry.data, 'to').split('.')[0] ?? '';
    const last = this.segments.at(-1);
    if (last && last.phase === phase) return;
    if (last) last.to = entry.index;
    this.segments.push({ from: entry.index, to: Number.POSITIVE_INFINITY, phase });
  }
}

function stepOf(entry: Entry): number {
  if (entry.kind === 'model') return num(entry.data, 'step') ?? 0;
  if (entry.kind === 'end') return num(entry.data, 'steps') ?? 0;
  return 0;
}

function contextOf(entry: Entry): number | null {
  if (entry.kind === 'model') return num(obj(entry.data, 'usage'), 'promptTokens');
  if (entry.kind === 'context') return num(obj(entry.data, 'after'), 'tokens');
  return null;
}

function markTone(entry: Entry): Mark['tone'] | null {
  switch (entry.kind) {
    case 'finish': return entry.data.allowed === false ? 'refusal' : 'accept';
    case 'stall': return 'stall';
    case 'budget_warning': return 'warning';
    case 'context': return 'context';
    case 'crash': case 'retry': return 'error';
    case 'end': return text(entry.data, 'status') === 'done' ? 'accept' : 'error';
    default: return entry.known ? null : 'unknown';
  }
}
