import type { ContextState } from './context-state.js';
import { floorCaps, sameCaps } from './elision.js';
import { type MessageRecord, messageChars } from './messages.js';
import { HEAD_LENGTH, type View, type ViewBuilder } from './view-builder.js';

/** The context-manager rules the machine is built with (see `rules/schema.ts`). */
export interface ContextRules {
  enabled: boolean;
  windowTokens: number;
  /** Share of the window the view never grows past without a compaction. */
  soft: number;
  /** Share of the window above which the newest results are shortened too, when nothing else is left. */
  hard: number;
  /** Share of the window the view may grow by, append-only, between compactions. */
  growth: number;
  /** Share of the window a compaction leaves at most; above it the oldest part is summarized. */
  lowWater: number;
  keepRecent: number;
  floor: number;
  summarize: boolean;
}

/** What one pass of the context manager decided. */
export interface ContextDecision {
  state: ContextState;
  view: View;
  /** Estimated prompt tokens of the view (messages only; the caller adds fixed overhead). */
  tokens: number;
  /** `elided`: results were capped; `summarize`: stage 2 is needed; `overflow`: nothing fits. */
  action: 'none' | 'elided' | 'summarize' | 'overflow';
  before: { chars: number; tokens: number };
}

/** Summaries that failed or did not shrink the view before the manager stops asking for one. */
export const MAX_SUMMARY_FAILURES = 2;

/**
 * One pass of the context manager (seed component 4, Fan et al.'s T4),
 * built so that most requests are the previous one plus the new messages,
 * byte for byte (the provider's prompt cache keeps the prefix), while the
 * view stays small. Between compactions the view is append-only. A
 * compaction is due when the view has grown by `growth` of the window since
 * the last one, or reaches `soft`: every result older than the newest
 * `keepRecent` that is still whole goes to the floor (one block; everything
 * before it stays as it was), and if the view is still above `lowWater`, the
 * oldest part is summarized, so the next requests start from a short prefix.
 * Results stay whole for several steps after they arrive, then shrink once.
 *
 * @example const decision = manageContext(record, state, rules, builder, { force: false, overheadTokens: 600 });
 */
export function manageContext(
  record: MessageRecord,
  state: ContextState,
  rules: ContextRules,
  builder: ViewBuilder,
  options: { force: boolean; overheadTokens: number },
): ContextDecision {
  const tokensOf = (view: View) => Math.ceil(view.chars / state.charsPerToken) + options.overheadTokens;
  let view = builder.viewFor(record, state);
  const before = { chars: view.chars, tokens: tokensOf(view) };
  const window = Math.min(rules.windowTokens, state.windowCap ?? Number.POSITIVE_INFINITY);
  if (!rules.enabled) {
    return { state, view, tokens: before.tokens, action: before.tokens > rules.windowTokens ? 'overflow' : 'none', before };
  }
  // The view's size right after the last compaction. A state changed since (a summary applied) is settled here and now.
  const settled = state.settled?.version === state.version ? state.settled.chars : view.chars;
  const grown = (view.chars - settled) / state.charsPerToken;
  if (!options.force && before.tokens < rules.soft * window && grown < rules.growth * window) {
    return { state: settle(state, settled), view, tokens: before.tokens, action: 'none', before };
  }

  // Stage 1: the block of results that left the newest `keepRecent` since the last pass goes to the floor.
  // A forced pass (the provider rejected the prompt) floors every older result, wherever it is.
  const toolIndices = toolIndicesInView(view);
  let next = state;
  // Stryker disable next-line UnaryOperator: freezing through index 1 freezes nothing more than through -1: indices 0 and 1 are the head (system prompt, task), never results
  const caps = floorCaps(state.caps, toolIndices, rules, options.force ? -1 : state.caps.through);
  if (!sameCaps(caps, state.caps)) {
    next = { ...state, caps, version: state.version + 1, compactions: state.compactions + 1 };
    view = builder.viewFor(record, next);
  }
  let tokens = tokensOf(view);
  // Stage 2: still above the low-water mark, so the oldest part is folded into a summary (a model call).
  const summaryExhausted = state.summaryFailures >= MAX_SUMMARY_FAILURES || !rules.summarize;
  const fold =
    tokens > rules.lowWater * window && !summaryExhausted ? summaryRange(record, next, { view, windowTokens: window, lowWater: rules.lowWater }) : null;
  if (fold) return { state: { ...next, fold }, view, tokens, action: 'summarize', before };
  // Last resort, above the hard limit with nothing left to summarize (a window too small to hold the newest
  // results whole): shorten them too, the newest last, rather than end the run.
  // Stryker disable next-line ArithmeticOperator: stage 1 has floored every result older than the newest keepRecent, so keeping keepRecent + 1 or keepRecent gives the caps in force and the loop moves on
  for (let keep = rules.keepRecent - 1; keep >= 0 && tokens > rules.hard * window; keep--) {
    const harder = floorCaps(next.caps, toolIndices, { ...rules, keepRecent: keep });
    if (sameCaps(harder, next.caps)) continue;
    next = { ...next, caps: harder, version: next.version + 1, compactions: state.compactions + 1 };
    view = builder.viewFor(record, next);
    tokens = tokensOf(view);
  }
  // Overflow is judged against the rules' window: under a learnt (smaller) one the best effort is sent, and the provider decides.
  // A pass that only moved the caps past results already shorter than the floor changed nothing the model sees.
  const action = tokens > rules.windowTokens ? 'overflow' : view.chars < before.chars ? 'elided' : 'none';
  return { state: settle(next, view.chars), view, tokens, action, before };
}

/** The state with the view's size after this pass recorded (and no summary pending). */
function settle(state: ContextState, chars: number): ContextState {
  const { fold: _done, ...rest } = state;
  return { ...rest, settled: { version: state.version, chars } };
}

function toolIndicesInView(view: View): number[] {
  const indices: number[] = [];
  view.sources.forEach((source, position) => {
    // The summary note (source -1) is a user message.
    if (view.messages[position]!.role === 'tool') indices.push(source);
  });
  return indices;
}

/** Messages a summary may fold: after the head (and any earlier summary), before the tail. */
export interface SummaryRange {
  /** First record index folded (an earlier summary's text is folded in too). */
  from: number;
  /** Last record index folded. */
  through: number;
}

/** Messages kept verbatim at the end of the view when summarizing, at the least. */
const SUMMARY_TAIL = 8;
/** Share of the low-water mark the messages after a summary may fill: the newest results whole, with room to grow before the next compaction. */
const SUMMARY_KEEP = 0.35;

/** The view a summary range is judged on, to keep more than `SUMMARY_TAIL` messages when they fit. */
interface SummaryKeep {
  view: View;
  windowTokens: number;
  /** Share of the window the view may fill after a compaction (`ContextRules.lowWater`). */
  lowWater: number;
}

/**
 * The record range a summary should replace: the oldest messages after the
 * head (and any earlier summary), keeping verbatim the newest messages that
 * fit in `SUMMARY_KEEP` of the low-water mark (at least `SUMMARY_TAIL` of
 * them; only those without `keep`). The kept part never starts with a tool
 * result, whose call would be folded away.
 *
 * @example summaryRange(record, state, { view, windowTokens: 32_768, lowWater: 0.45 }) // { from: 2, through: 41 }
 */
export function summaryRange(record: MessageRecord, state: ContextState, keep?: SummaryKeep): SummaryRange | null {
  const from = Math.max(HEAD_LENGTH, (state.summary?.through ?? HEAD_LENGTH - 1) + 1);
  let tailStart = record.length - SUMMARY_TAIL;
  if (keep) {
    const budget = keep.windowTokens * state.charsPerToken * keep.lowWater * SUMMARY_KEEP;
    tailStart = Math.min(tailStart, keptFrom(keep.view, budget, from));
  }
  // Stryker disable next-line EqualityOperator: stepping below from changes nothing, as the next line returns null for any tailStart <= from
  while (tailStart > from && record.at(tailStart)!.role === 'tool') tailStart--;
  if (tailStart <= from) return null;
  return { from, through: tailStart - 1 };
}

/** The earliest record index of the newest view messages that fit in `budget` characters. */
function keptFrom(view: View, budget: number, from: number): number {
  let used = 0;
  let earliest = Number.POSITIVE_INFINITY;
  // Stryker disable next-line EqualityOperator: position 0 is the system prompt, whose source 0 is below from (HEAD_LENGTH at least), so the loop has stopped before it
  for (let position = view.messages.length - 1; position >= 0; position--) {
    const source = view.sources[position]!;
    // Stryker disable next-line ConditionalExpression: reaching a source below from means every message from `from` on fits; earliest is then at most from, and summaryRange returns null either way
    if (source < from) break;
    used += messageChars(view.messages[position]!);
    if (used > budget) break;
    earliest = source;
  }
  return earliest;
}
