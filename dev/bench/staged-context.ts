import {
  type CapSteps,
  type ChatMessage,
  type ContextDecision,
  type ContextState,
  capAt,
  MAX_SUMMARY_FAILURES,
  sameCaps,
  summaryRange,
  type View,
  type ViewBuilder,
} from 'rein/context';

/** The staged manager's rules: the soft and hard thresholds and the seed's half-life schedule. */
export interface StagedRules extends HalfLifeParams {
  enabled: boolean;
  windowTokens: number;
  soft: number;
  hard: number;
  summarize: boolean;
}

/** Parameters of the half-life schedule (seed component 4, stage 1). */
interface HalfLifeParams {
  keepRecent: number;
  baseCap: number;
  floor: number;
}

/**
 * Character cap for a tool result of the given age (0 = newest), or null when
 * it is one of the newest `keepRecent` and stays whole. As a result's age
 * doubles its cap halves: tiers 0,1,1,2,2,2,2,… of `baseCap >> tier`, never
 * below `floor`. `shift` tightens every tier for a harder pass.
 *
 * @example halfLifeCap(4, { keepRecent: 4, baseCap: 2000, floor: 120 }) // 2000
 */
export function halfLifeCap(age: number, params: HalfLifeParams, shift = 0): number | null {
  if (age < params.keepRecent) return null;
  const tier = Math.floor(Math.log2(age - params.keepRecent + 1)) + shift;
  return Math.max(params.baseCap >> Math.min(tier, 30), params.floor);
}

/**
 * Half-life caps for the tool results at `toolIndices` (record indices,
 * oldest first), merged with the caps already in force by taking the smaller:
 * an elided result never grows back, so elision only ever changes the prefix
 * when a threshold is crossed. With `frozenThrough`, only results after that
 * record index are capped (by their age in the whole list).
 */
function tightenCaps(previous: CapSteps, toolIndices: readonly number[], params: HalfLifeParams, shift = 0, frozenThrough = -1): CapSteps {
  const pairs: Array<[number, number]> = [];
  const count = toolIndices.length;
  let through = previous.through;
  for (let position = 0; position < count; position++) {
    const index = toolIndices[position]!;
    const old = capAt(previous, index);
    // Results up to `frozenThrough` keep what they have, so the prompt prefix they form stays byte-identical.
    if (index <= frozenThrough) {
      if (old !== null) pairs.push([index, old]);
      continue;
    }
    const fresh = halfLifeCap(count - 1 - position, params, shift);
    const cap = fresh === null ? old : old === null ? fresh : Math.min(old, fresh);
    if (cap === null) continue;
    pairs.push([index, cap]);
    through = Math.max(through, index);
  }
  return { steps: compressSteps(pairs), through };
}

function compressSteps(pairs: Array<[number, number]>): Array<[number, number]> {
  const steps: Array<[number, number]> = [];
  for (const [index, cap] of pairs) {
    const last = steps[steps.length - 1];
    if (last && last[1] === cap) continue;
    steps.push([index, cap]);
  }
  return steps;
}

/** Share of the window a block-only pass must free below `soft`, so the next pass is many steps away. */
const BLOCK_HEADROOM = 0.15;
/** Most tightening passes; after about 5 every cap sits at the floor. */
const MAX_SHIFT = 8;
/**
 * rein's context manager before the low-water design, kept as the
 * benchmark's baseline ("today's design" in docs/benchmarks.md): one pass, built
 * to keep the provider's prompt cache warm. Below `soft` the view is
 * append-only, so every request starts with the previous one byte for byte.
 * Crossing `soft` caps old results by the half-life schedule: first only the
 * results added since the last pass (the prefix before them is untouched),
 * and if that leaves too little headroom, all of them by their current age,
 * tighter if needed. When elision is not enough (over `hard`, or every old
 * result at its floor) the middle is summarized; after 2 failed summaries,
 * every old result goes to the floor instead.
 *
 * @example const decision = manageContextStaged(record, state, rules, builder, { force: false, overheadTokens: 600 });
 */
export function manageContextStaged(
  record: readonly ChatMessage[],
  state: ContextState,
  rules: StagedRules,
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
      if (tokensOf(blockView) < (rules.soft - BLOCK_HEADROOM) * window)
        return { state: blockState, view: blockView, tokens: tokensOf(blockView), action: 'elided', before };
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

function toolIndicesInView(view: View, record: readonly ChatMessage[]): number[] {
  const indices: number[] = [];
  for (const source of view.sources) if (source >= 0 && record[source]!.role === 'tool') indices.push(source);
  return indices;
}

function canSummarize(record: readonly ChatMessage[], state: ContextState): boolean {
  return summaryRange(record, state) !== null;
}
