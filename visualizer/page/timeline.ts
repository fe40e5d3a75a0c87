import type { ChartIndex, TransitionMatch } from './chart-index.js';
import { CausePairs } from './effect-causes.js';
import { type Entry, num, obj, text, toEntry } from './entries.js';
import { type Mark, markTone } from './marks.js';

export type { Mark } from './marks.js';

/** What the run looked like at one point of the trace. */
export interface Moment {
  index: number;
  entry: Entry | null;
  /** The state after the last transition at or before `index` (dotted, as the trace writes it). */
  state: string | null;
  /** The transition that explains the moment: the one whose action wrote the entry, or else the last one. */
  transition: Entry | null;
  match: TransitionMatch | null;
  step: number;
  /** Seconds since the start line. */
  elapsed: number | null;
  /** The prompt size of the last model call, or the view size the context manager last reported. */
  contextTokens: number | null;
  /** The window the provider turned out to have, once it rejected a prompt as too long. */
  learntWindow: number | null;
  prompt: number;
  completion: number;
  cached: number;
  /** The end line's status, once the run has ended. */
  status: string | null;
}

/** A stretch of the trace spent in one top-level state. */
interface Segment {
  from: number;
  to: number;
  phase: string;
}

/** Running figures at one index. */
interface Totals {
  lastTransition: number;
  step: number;
  context: number | null;
  window: number | null;
  prompt: number;
  completion: number;
  cached: number;
}

/**
 * The trace lines with running totals, so that any index can be shown at
 * once: per index, the last transition, the step, the tokens so far, the
 * context size and the window. Effect lines (a stall nudge, a gate
 * decision, a context action) are placed right after the transition whose
 * action wrote them: cause, then effect, whatever order the trace used.
 * Append-only apart from that, for live runs.
 *
 * @example const timeline = new Timeline(chart); lines.forEach((line) => timeline.append(line)); timeline.moment(40).state // 'verify.compact'
 */
export class Timeline {
  readonly entries: Entry[] = [];
  readonly marks: Mark[] = [];
  readonly segments: Segment[] = [];
  startT: number | null = null;
  private readonly totals: Totals[] = [];
  private readonly causes = new CausePairs();
  private endIndex = -1;

  constructor(private readonly chart: ChartIndex) {}

  get length(): number {
    return this.entries.length;
  }

  /**
   * Adds a line; returns the first position whose line changed (earlier
   * than the end when an effect joined its cause, or a cause pulled its
   * effects after it).
   */
  append(raw: unknown): number {
    const entry = toEntry(raw, this.entries.length);
    this.entries.push(entry);
    if (entry.kind === 'start' && this.startT === null) this.startT = entry.t;
    let from = entry.index;
    if (entry.kind === 'transition') {
      // Effects written before their cause (a trace in that order) move to just after it.
      const effects = this.causes.pairForward(this.entries, entry.index);
      if (effects.length > 0) {
        from = Math.min(...effects.map((effect) => this.entries.indexOf(effect)));
        for (const effect of effects) this.entries.splice(this.entries.indexOf(effect), 1);
        this.entries.push(...effects);
      }
    }
    const cause = this.causes.pairBack(this.entries, this.entries.length - 1);
    if (cause) {
      const at = this.entries.length - 1;
      let place = this.entries.indexOf(cause) + 1;
      while (place < at && this.causes.cause(this.entries[place]!) === cause) place++;
      if (place < at) {
        this.entries.splice(at, 1);
        this.entries.splice(place, 0, entry);
        from = Math.min(from, place);
      }
    }
    this.recompute(from);
    return from;
  }

  /** The line at `index` is an effect: the transition that wrote it. */
  causeOf(entry: Entry): Entry | null {
    return this.causes.cause(entry);
  }

  moment(index: number): Moment {
    const at = Math.min(Math.max(index, -1), this.entries.length - 1);
    const totals = at >= 0 ? this.totals[at]! : null;
    const last = totals && totals.lastTransition >= 0 ? this.entries[totals.lastTransition]! : null;
    const entry = at >= 0 ? this.entries[at]! : null;
    const transition = (entry && this.causes.cause(entry)) ?? last;
    return {
      index: at,
      entry,
      state: last ? text(last.data, 'to') || null : null,
      transition,
      match: transition ? this.matchOf(transition) : null,
      step: totals?.step ?? 0,
      elapsed: entry?.t != null && this.startT !== null ? Math.max(0, entry.t - this.startT) : null,
      contextTokens: totals?.context ?? null,
      learntWindow: totals?.window ?? null,
      prompt: totals?.prompt ?? 0,
      completion: totals?.completion ?? 0,
      cached: totals?.cached ?? 0,
      status: this.endIndex >= 0 && at >= this.endIndex ? text(this.entries[this.endIndex]!.data, 'status') || 'ended' : null,
    };
  }

  matchOf(transition: Entry): TransitionMatch {
    const { data } = transition;
    return this.chart.match({
      from: text(data, 'from'),
      to: text(data, 'to'),
      event: text(data, 'event'),
      ...(data.eventless === true ? { eventless: true } : {}),
      ...(text(data, 'guard') ? { guard: text(data, 'guard') } : {}),
    });
  }

  /** Characters per token of the view, from the last context line before `index` that gives both. */
  charsPerToken(index: number): number | null {
    for (let at = Math.min(index, this.entries.length - 1); at >= 0; at--) {
      const entry = this.entries[at]!;
      if (entry.kind !== 'context') continue;
      for (const key of ['after', 'before']) {
        const size = obj(entry.data, key);
        const chars = num(size, 'chars');
        const tokens = num(size, 'tokens');
        if (chars && tokens) return chars / tokens;
      }
    }
    return null;
  }

  /** The state the run was in at `index` (after the last transition at or before it). */
  stateAt(index: number): string | null {
    const last = this.totals[index]?.lastTransition ?? -1;
    return last >= 0 ? text(this.entries[last]!.data, 'to') || null : null;
  }

  /**
   * How often each state was entered and each arrow taken up to `index`
   * (where the run looped), and per phase the model calls made in it.
   */
  visits(index: number): { states: Map<string, number>; edges: Map<string, number>; steps: Map<string, number> } {
    const states = new Map<string, number>();
    const edges = new Map<string, number>();
    const steps = new Map<string, number>();
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    for (let at = 0; at <= index && at < this.entries.length; at++) {
      const entry = this.entries[at]!;
      if (entry.kind === 'model') {
        const phase = this.chart.topLevel(this.stateAt(at) ?? '');
        if (phase) bump(steps, phase);
      }
      if (entry.kind !== 'transition') continue;
      const from = new Set(this.chart.lineage(text(entry.data, 'from')));
      for (const id of this.chart.lineage(text(entry.data, 'to'))) if (!from.has(id)) bump(states, id);
      const edge = this.matchOf(entry).transition?.edge;
      if (edge) bump(edges, edge);
    }
    return { states, edges, steps };
  }

  /** Re-derives the running figures, marks and phase bands from position `from` on. */
  private recompute(from: number): void {
    this.totals.length = from;
    for (let at = from; at < this.entries.length; at++) {
      const entry = this.entries[at]!;
      entry.index = at;
      const previous = this.totals[at - 1];
      const usage = entry.kind === 'model' ? obj(entry.data, 'usage') : {};
      this.totals.push({
        lastTransition: entry.kind === 'transition' ? at : (previous?.lastTransition ?? -1),
        step: Math.max(previous?.step ?? 0, stepOf(entry)),
        context: contextOf(entry) ?? previous?.context ?? null,
        window: windowOf(entry) ?? previous?.window ?? null,
        prompt: (previous?.prompt ?? 0) + (num(usage, 'promptTokens') ?? 0),
        completion: (previous?.completion ?? 0) + (num(usage, 'completionTokens') ?? 0),
        cached: (previous?.cached ?? 0) + (num(usage, 'cachedTokens') ?? 0),
      });
    }
    if (this.endIndex >= from) this.endIndex = -1;
    for (let at = from; this.endIndex < 0 && at < this.entries.length; at++) if (this.entries[at]!.kind === 'end') this.endIndex = at;
    this.redoMarks(from);
  }

  private redoMarks(from: number): void {
    while (this.marks.length > 0 && this.marks.at(-1)!.index >= from) this.marks.pop();
    while (this.segments.length > 0 && this.segments.at(-1)!.from >= from) this.segments.pop();
    if (this.segments.length > 0) this.segments.at(-1)!.to = Number.POSITIVE_INFINITY;
    for (let at = from; at < this.entries.length; at++) {
      const entry = this.entries[at]!;
      const tone = markTone(entry);
      if (tone) this.marks.push({ index: at, tone });
      if (entry.kind !== 'transition') continue;
      const phase = this.chart.topLevel(text(entry.data, 'to')) ?? text(entry.data, 'to').split('.')[0] ?? '';
      const last = this.segments.at(-1);
      if (last && last.phase === phase) continue;
      if (last) last.to = at;
      this.segments.push({ from: at, to: Number.POSITIVE_INFINITY, phase });
    }
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

function windowOf(entry: Entry): number | null {
  return entry.kind === 'context' && text(entry.data, 'action') === 'provider_rejected_length' ? num(entry.data, 'windowCap') : null;
}
