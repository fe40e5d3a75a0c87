import type { ChatMessage } from './messages.js';
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

/** Most tightening passes; after about 5 every cap sits at the floor. */
const MAX_SHIFT = 8;
/** Summaries that failed or did not shrink the view before falling back to harder elision. */
export const MAX_SUMMARY_FAILURES = 2;

/**
 * One pass of the two-stage context manager (seed component 4, Fan et al.'s T4).
 * Below `soft` the view is append-only, so the prompt prefix stays
 * byte-identical. Crossing `soft` applies the half-life caps once (and
 * tighter passes only if that was not enough); crossing `hard` asks for a
 * summary of the middle, unless summaries have failed twice, in which case
 * every old result goes to the floor.
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
  const window = rules.windowTokens;
  if (!rules.enabled) {
    return { state, view, tokens: before.tokens, action: before.tokens > window ? 'overflow' : 'none', before };
  }
  if (before.tokens < rules.soft * window && !options.force) return { state, view, tokens: before.tokens, action: 'none', before };

  const toolIndices = toolIndicesInView(view, record);
  const summaryExhausted = state.summaryFailures >= MAX_SUMMARY_FAILURES || !rules.summarize;
  const startShift = options.force && summaryExhausted ? MAX_SHIFT : 0;
  let next = state;
  for (let shift = startShift; shift <= MAX_SHIFT; shift++) {
    const caps = tightenCaps(next.caps, toolIndices, rules, shift);
    next = { ...next, caps, version: next.version + 1 };
    view = builder.viewFor(record, next);
    if (tokensOf(view) < rules.soft * window) break;
  }
  next = { ...next, compactions: state.compactions + 1 };
  const tokens = tokensOf(view);
  const wantsSummary = tokens > rules.hard * window || (options.force && !summaryExhausted);
  if (wantsSummary && !summaryExhausted && canSummarize(record, next)) return { state: next, view, tokens, action: 'summarize', before };
  return { state: next, view, tokens, action: tokens > window ? 'overflow' : 'elided', before };
}

function toolIndicesInView(view: View, record: readonly ChatMessage[]): number[] {
  const indices: number[] = [];
  for (const source of view.sources) if (source >= 0 && record[source]!.role === 'tool') indices.push(source);
  return indices;
}

function canSummarize(record: readonly ChatMessage[], state: ContextState): boolean {
  const range = summaryRange(record, state);
  return range !== null;
}

/** Messages a summary may fold: after the head (and any earlier summary), before the tail. */
export interface SummaryRange {
  /** First record index folded (an earlier summary's text is folded in too). */
  from: number;
  /** Last record index folded. */
  through: number;
}

/** Messages kept verbatim at the end of the view when summarizing. */
export const SUMMARY_TAIL = 8;

/**
 * The record range a summary should replace: everything between the head and
 * the last `SUMMARY_TAIL` messages, with the tail moved back so it never starts
 * with a tool result (its call would be folded away and the result orphaned).
 */
export function summaryRange(record: readonly ChatMessage[], state: ContextState): SummaryRange | null {
  const from = Math.max(HEAD_LENGTH, (state.summary?.through ?? HEAD_LENGTH - 1) + 1);
  let tailStart = record.length - SUMMARY_TAIL;
  while (tailStart > from && record[tailStart]!.role === 'tool') tailStart--;
  if (tailStart <= from) return null;
  return { from, through: tailStart - 1 };
}
