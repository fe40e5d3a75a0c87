import { messageChars, type ChatMessage } from './messages.js';
import type { ContextState } from './context-state.js';
import { tightenCaps, type HalfLifeParams } from './elision.js';
import { HEAD_LENGTH, type View, type ViewBuilder } from './view-builder.js';

/** The context-manager rules the machine is built with (see `rules/schema.ts`). */
export interface ContextRules extends HalfLifeParams {
  enabled: boolean;
  windowTokens: number;
  soft: number;
  hard: number;
  summarize: boolean;
}

/** What one pass of the context manager decided. */
export interface ContextDecision {
  state: ContextState;
  view: View;
  /** Estimated prompt tokens of the view (messages only; the caller adds fixed overhead). */
  tokens: number;
  /** `elided`: stage 1 changed old results; `summarize`: stage 2 is needed; `overflow`: nothing fits. */
  action: 'none' | 'elided' | 'summarize' | 'overflow';
  before: { chars: number; tokens: number };
}

/** Share of the window a block-only pass must free below `soft`, so the next pass is many steps away. */
export const BLOCK_HEADROOM = 0.15;
/** Most tightening passes; after about 5 every cap sits at the floor. */
const MAX_SHIFT = 8;
/** Summaries that failed or did not shrink the view before falling back to harder elision. */
export const MAX_SUMMARY_FAILURES = 2;

/**
 * One pass of the two-stage context manager (seed component 4, Fan et al.'s T4),
 * built to keep the provider's prompt cache warm. Below `soft` the view is
 * append-only, so every request starts with the previous one byte for byte.
 * Crossing `soft` caps old results by the half-life schedule: first only the
 * results added since the last pass (the prefix before them is untouched),
 * and if that leaves too little headroom, all of them by their current age,
 * tighter if needed. When elision is not enough (over `hard`, or every old
 * result at its floor) the middle is summarized; after 2 failed summaries,
 * every old result goes to the floor instead.
 *
 * @example const decision = manageContext(record, state, rules, builder, { force: false, overheadTokens: 600 });
 */
export function manageContext(
  record: readonly ChatMessage[], state: ContextState, rules: ContextRules, builder: ViewBuilder,
  options: { force: boolean; overheadTokens: number },
): ContextDecision {
  const tokensOf = (view: View) => Math.ceil(view.chars / state.charsPerToken) + options.overheadTokens;
  let view = builder.viewFor(record, state);
  const before = { chars: view.chars, tokens: tokensOf(view) };
  const window = Math.min(rules.windowTokens, state.windowCap ?? Number.POSITIVE_INFINITY);
  if (!rules.enabled) {
    return { state, view, tokens: before.tokens, action: before.tokens > rules.windowTokens ? 'overflow' : 'none', before };
  }
  if (before.tokens < rules.soft * window && !options.force) return { state, view, tokens: before.tokens, action: 'none', before };

  const toolIndices = toolIndicesInView(view, record);
  if (!options.force && state.caps.through >= 0) {
    // Stage 1a: cap only the results added since the last pass, by their half-life age, tighter if
    // that is not enough. The prefix before them stays byte-identical (the provider's cache keeps it);
    // accepted only if it leaves real headroom, so the next pass is many append-only steps away.
    for (let shift = 0; shift <= MAX_SHIFT; shift++) {
      const caps = tightenCaps(state.caps, toolIndices, rules, shift, state.caps.through);
      const blockState = { ...state, caps, version: state.version + 1, compactions: state.compactions + 1 };
      const blockView = builder.viewFor(record, blockState);
      if (tokensOf(blockView) < (rules.soft - BLOCK_HEADROOM) * window) return { state: blockState, view: blockView, tokens: tokensOf(blockView), action: 'elided', before };
    }
  }
  const summaryExhausted = state.summaryFailures >= MAX_SUMMARY_FAILURES || !rules.summarize;
  const startShift = options.force && summaryExhausted ? MAX_SHIFT : 0;
  let next = state;
  for (let shift = startShift; shift <= MAX_SHIFT; shift++) {
    const caps = tightenCaps(next.caps, toolIndices, rules, shift);
    if (sameCaps(caps, next.caps)) continue;
    next = { ...next, caps, version: next.version + 1 };
    view = builder.viewFor(record, next);
    if (tokensOf(view) < rules.soft * window) break;
  }
  if (next !== state) next = { ...next, compactions: state.compactions + 1 };
  let tokens = tokensOf(view);
  // Stage 2 when elision was not enough: over the hard limit, or too little room left below `soft`
  // (old results near their floor), which would otherwise mean a new elision pass every step.
  const elisionExhausted = tokens >= (rules.soft - BLOCK_HEADROOM) * window;
  const wantsSummary = tokens > rules.hard * window || elisionExhausted || (options.force && !summaryExhausted);
  if (wantsSummary && !summaryExhausted && canSummarize(record, next)) return { state: next, view, tokens, action: 'summarize', before };
  if (tokens > rules.hard * window) {
    // Last resort, for a window too small to hold the newest results whole and nothing left to summarize:
    // shorten them too, the newest last, rather than end the run.
    for (let keep = rules.keepRecent - 1; keep >= 0 && tokens > rules.hard * window; keep--) {
      const caps = tightenCaps(next.caps, toolIndices, { ...rules, keepRecent: keep }, MAX_SHIFT);
      if (sameCaps(caps, next.caps)) continue;
      next = { ...next, caps, version: next.version + 1, compactions: state.compactions + 1 };
      view = builder.viewFor(record, next);
      tokens = tokensOf(view);
    }
  }
  // Overflow is judged against the rules' window: under a learnt (smaller) one the best effort is sent, and the provider decides.
  return { state: next, view, tokens, action: tokens > rules.windowTokens ? 'overflow' : next === state ? 'none' : 'elided', before };
}

function sameCaps(a: ContextState['caps'], b: ContextState['caps']): boolean {
  return a.through === b.through && a.steps.length === b.steps.length && a.steps.every(([from, cap], index) => b.steps[index]![0] === from && b.steps[index]![1] === cap);
}

function toolIndicesInView(view: View, record: readonly ChatMessage[]): number[] {
  const indices: number[] = [];
  for (const source of view.sources) if (source >= 0 && record[source]!.role === 'tool') indices.push(source);
  return indices;
}

function canSummarize(record: readonly ChatMessage[], state: ContextState): boolean {
  return summaryRange(record, state) !== null;
}

/** Messages a summary may fold: after the head (and any earlier summary), before the tail. */
export interface SummaryRange {
  /** First record index folded (an earlier summary's text is folded in too). */
  from: number;
  /** Last record index folded. */
  through: number;
}

/** Messages kept verbatim at the end of the view when summarizing, at the least. */
export const SUMMARY_TAIL = 8;
/** Share of the window the messages after a summary may fill: enough that the next requests still reuse most of their prefix. */
export const SUMMARY_KEEP = 0.35;

/**
 * The record range a summary should replace: the oldest messages after the
 * head (and any earlier summary), keeping verbatim the newest messages that
 * fit in `SUMMARY_KEEP` of the window (at least `SUMMARY_TAIL` of them). The
 * kept part never starts with a tool result, whose call would be folded away.
 */
export function summaryRange(record: readonly ChatMessage[], state: ContextState, view?: View, windowTokens?: number): SummaryRange | null {
  const from = Math.max(HEAD_LENGTH, (state.summary?.through ?? HEAD_LENGTH - 1) + 1);
  let tailStart = record.length - SUMMARY_TAIL;
  if (view && windowTokens) tailStart = Math.min(tailStart, keptFrom(view, windowTokens * state.charsPerToken * SUMMARY_KEEP, from));
  while (tailStart > from && record[tailStart]!.role === 'tool') tailStart--;
  if (tailStart <= from) return null;
  return { from, through: tailStart - 1 };
}

/** The earliest record index of the newest view messages that fit in `budget` characters. */
function keptFrom(view: View, budget: number, from: number): number {
  let used = 0;
  let earliest = Number.POSITIVE_INFINITY;
  for (let position = view.messages.length - 1; position >= 0; position--) {
    const source = view.sources[position]!;
    if (source < from) break;
    used += messageChars(view.messages[position]!);
    if (used > budget) break;
    earliest = source;
  }
  return earliest;
}
