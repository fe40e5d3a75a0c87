import {
  type ChatMessage,
  type ContextDecision,
  type ContextRules,
  type ContextState,
  initialContextState,
  manageContext,
  SUMMARY_HEADER,
  type SummaryRange,
  summaryRange,
  totalChars,
  ViewBuilder,
} from 'rein/context';
import { headTail } from 'rein/tools';
import { manageContextStaged, type StagedRules } from './staged-context.js';

/** One policy's figures over a whole simulated session. */
export interface CacheFigures {
  policy: string;
  requests: number;
  /** Share of all request characters that repeat the previous request's prefix byte for byte. */
  prefixReuse: number;
  /** Largest request, as a share of the window. */
  peakShare: number;
  promptTokens: number;
  cachedTokens: number;
  /** Summarizer calls and the prompt tokens they were sent (the folded messages). */
  summaries: number;
  summaryTokens: number;
  /** Agent and summarizer prompt tokens together: what an endpoint without a cache bills. */
  allTokens: number;
  /** USD at $3 per million uncached prompt tokens and $0.30 cached, summarizer prompts included (uncached). */
  estimatedCost: number;
  /** USD at $3 per million for every prompt token: an endpoint without a cache discount. */
  costWithoutCache: number;
}

interface SessionShape {
  steps: number;
  resultChars: number;
  windowTokens: number;
  charsPerToken: number;
}

const PRICE = { input: 3, cachedInput: 0.3 };
/** Providers cache in blocks once a prefix is long enough (OpenAI: 1,024 tokens, then 128-token steps). */
const cacheable = (tokens: number) => (tokens < 1024 ? 0 : Math.floor(tokens / 128) * 128);

/** The record of a long session: each step one tool call and a result of about `resultChars`. */
export function sessionRecord(shape: SessionShape): ChatMessage[] {
  const record: ChatMessage[] = [
    { role: 'system', content: 'You are a software agent.'.repeat(20) },
    { role: 'user', content: 'Fix the failing tests in the parser module.'.repeat(5) },
  ];
  for (let step = 0; step < shape.steps; step++) {
    const id = `call_${step}_0`;
    record.push({
      role: 'assistant',
      content: `Looking at part ${step}.`,
      tool_calls: [{ id, type: 'function', function: { name: 'run', arguments: JSON.stringify({ command: `pytest -k case_${step}` }) } }],
    });
    const body = Array.from(
      { length: Math.ceil(shape.resultChars / 60) },
      (_, line) => `step ${step} line ${line}: assert parse(case_${line}) == expected`,
    ).join('\n');
    record.push({ role: 'tool', tool_call_id: id, content: `exit=1\n${body}`.slice(0, shape.resultChars) });
  }
  return record;
}

/** A deterministic stand-in for the summarizer's model call: a short digest of the folded messages. */
function digest(messages: readonly ChatMessage[]): string {
  const calls = messages.filter((message) => message.role === 'assistant').length;
  return `Earlier: ${calls} commands were run; each failed on parser cases. Work continues on the parser module.`;
}

/** A request as sent (serialized, for byte-identical prefix checks) and its size in content characters (for tokens). */
interface Request {
  body: string;
  chars: number;
  summarizedChars: number;
}

function figures(policy: string, requests: Request[], shape: SessionShape): CacheFigures {
  let total = 0;
  let reused = 0;
  let peak = 0;
  let promptTokens = 0;
  let cachedTokens = 0;
  let previous = '';
  let summaries = 0;
  let summaryTokens = 0;
  for (const { body, chars, summarizedChars } of requests) {
    if (summarizedChars > 0) {
      summaries++;
      summaryTokens += Math.ceil(summarizedChars / shape.charsPerToken);
    }
    const prefix = commonPrefix(previous, body);
    total += body.length;
    reused += prefix;
    const tokens = Math.ceil(chars / shape.charsPerToken);
    promptTokens += tokens;
    // The cached part of the prompt, in tokens, in proportion to the reused share of the body.
    cachedTokens += Math.min(tokens, cacheable(Math.floor((tokens * prefix) / body.length)));
    peak = Math.max(peak, tokens / shape.windowTokens);
    previous = body;
  }
  const estimatedCost = ((promptTokens - cachedTokens + summaryTokens) * PRICE.input + cachedTokens * PRICE.cachedInput) / 1e6;
  const allTokens = promptTokens + summaryTokens;
  return {
    policy,
    requests: requests.length,
    prefixReuse: reused / total,
    peakShare: peak,
    promptTokens,
    cachedTokens,
    summaries,
    summaryTokens,
    allTokens,
    estimatedCost,
    costWithoutCache: (allTokens * PRICE.input) / 1e6,
  };
}

function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  // Requests are hundreds of KB and mostly alike: equal chunks compare natively, halving the chunk where they
  // differ, and only the last few characters are compared one by one.
  for (let chunk = 65_536; chunk >= 64; chunk /= 2) {
    while (index + chunk <= limit && a.slice(index, index + chunk) === b.slice(index, index + chunk)) index += chunk;
  }
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

type Manage = (record: ChatMessage[], state: ContextState, builder: ViewBuilder) => ContextDecision;

/** A context manager over the session as the machine drives it: a summary when asked for, then the manager again. */
function managedRequests(
  record: ChatMessage[],
  shape: SessionShape,
  manage: Manage,
  fold: (slice: ChatMessage[], decision: ContextDecision, builder: ViewBuilder) => SummaryRange,
): Request[] {
  const builder = new ViewBuilder();
  let state: ContextState = initialContextState(shape.charsPerToken);
  const requests: Request[] = [];
  for (let length = 4; length <= record.length; length += 2) {
    const slice = record.slice(0, length);
    let decision = manage(slice, state, builder);
    let summarizedChars = 0;
    if (decision.action === 'summarize') {
      const view = builder.viewFor(slice, decision.state);
      const range = fold(slice, decision, builder);
      summarizedChars = view.messages
        .filter((_, position) => view.sources[position]! >= range.from && view.sources[position]! <= range.through)
        .reduce((sum, message) => sum + (message.content?.length ?? 0), 0);
      state = {
        ...decision.state,
        summary: { text: digest(slice.slice(range.from, range.through + 1)), through: range.through },
        summaries: decision.state.summaries + 1,
        version: decision.state.version + 1,
      };
      decision = manage(slice, state, builder);
    }
    state = decision.state;
    requests.push({ body: JSON.stringify(decision.view.messages), chars: decision.view.chars, summarizedChars });
  }
  return requests;
}

/** rein's context manager over the session: append-only between compactions, each down to the low-water mark. */
function reinRequests(record: ChatMessage[], rules: ContextRules, shape: SessionShape): Request[] {
  return managedRequests(
    record,
    shape,
    (slice, state, builder) => manageContext(slice, state, rules, builder, { force: false, overheadTokens: 0 }),
    (_slice, decision) => decision.state.fold!,
  );
}

/** rein's context manager before it (the baseline "today's design"): staged half-life elision at the soft limit. */
function stagedRequests(record: ChatMessage[], rules: StagedRules, shape: SessionShape): Request[] {
  return managedRequests(
    record,
    shape,
    (slice, state, builder) => manageContextStaged(slice, state, rules, builder, { force: false, overheadTokens: 0 }),
    (slice, decision, builder) =>
      summaryRange(slice, decision.state, { view: builder.viewFor(slice, decision.state), windowTokens: rules.windowTokens, lowWater: 1 })!,
  );
}

/** The seed's reference: every request re-caps every old result by its current age, and re-summarizes. */
function seedRequests(record: ChatMessage[], rules: StagedRules, shape: SessionShape): Request[] {
  const requests: Request[] = [];
  const windowChars = rules.windowTokens * shape.charsPerToken;
  for (let length = 4; length <= record.length; length += 2) {
    let messages = record.slice(0, length).map((message) => ({ ...message }));
    let summarizedChars = 0;
    if (totalChars(messages) >= rules.soft * windowChars) {
      const toolAt = messages.flatMap((message, index) => (message.role === 'tool' ? [index] : []));
      toolAt.reverse().forEach((index, age) => {
        if (age < rules.keepRecent) return;
        const tier = Math.floor(Math.log2(age - rules.keepRecent + 1));
        messages[index] = {
          ...messages[index]!,
          content: headTail(messages[index]!.content ?? '', Math.max(rules.baseCap >> tier, rules.floor)),
        } as ChatMessage;
      });
      if (totalChars(messages) > rules.hard * windowChars) {
        const head = messages.slice(0, 2);
        let middle = messages.slice(2, -8);
        const tail = messages.slice(-8);
        while (middle.length > 0 && middle[0]!.role === 'tool') middle = middle.slice(1);
        if (middle.length > 0) {
          summarizedChars = totalChars(middle);
          messages = [...head, { role: 'user', content: `${SUMMARY_HEADER}\n${digest(middle)}` }, ...tail];
        }
      }
    }
    requests.push({ body: JSON.stringify(messages), chars: totalChars(messages), summarizedChars });
  }
  return requests;
}

/** Each step's call and result as one request would carry them: serialized bytes and characters. */
function stepPairs(record: ChatMessage[]): Array<{ bytes: number; chars: number }> {
  const pairs: Array<{ bytes: number; chars: number }> = [];
  for (let length = 4; length <= record.length; length += 2) {
    const pair = record.slice(length - 2, length);
    pairs.push({ bytes: JSON.stringify(pair).length, chars: totalChars(pair) });
  }
  return pairs;
}

/** The step pairs a compaction at `step` must keep whole: the newest `keepRecent` up to it. */
function newestWhole<T>(pairs: readonly T[], step: number, keepRecent: number): T[] {
  return pairs.slice(Math.max(0, step - keepRecent + 1), step + 1);
}

const sumOf = (pairs: ReadonlyArray<{ bytes: number; chars: number }>, key: 'bytes' | 'chars') => pairs.reduce((sum, pair) => sum + pair[key], 0);

/**
 * The most prefix reuse any manager that shows the newest result whole can
 * have while sending no more than `bytes` in all: each request carries the
 * newest call and result, which the previous request cannot have held.
 */
export function reuseCeiling(record: ChatMessage[], bytes: number): number {
  return 1 - sumOf(stepPairs(record), 'bytes') / bytes;
}

/** What keeping the newest results whole under a peak costs any manager, at the least. */
export interface CompactingCeiling {
  /** The most prefix reuse possible. */
  reuse: number;
  /** The fewest compactions the peak forces. */
  compactions: number;
}

/** The same with the compactions the byte budget forces too; `compactions` is null (and `reuse` NaN) when no schedule fits. */
export interface BudgetCeiling {
  reuse: number;
  compactions: number | null;
}

/**
 * A tighter ceiling than `reuseCeiling`, for a manager that also keeps the
 * newest `keepRecent` results whole and no request above `peakChars`: once
 * the view would pass the peak, something already sent must change, and the
 * newest results, whole and last, come after the first changed byte, so that
 * request reuses none of them. Compacting as late as possible, down to the
 * head and the newest results alone, takes the fewest compactions; every
 * real schedule takes at least as many, each at least this dear. (It
 * assumes the newest results fit under the peak.)
 *
 * @example compactingCeiling(sessionRecord({ steps: 100, resultChars: 4000, windowTokens: 32_768, charsPerToken: 4 }), 4_035_608, { keepRecent: 4, peakChars: 111_411 }) // { reuse: 0.90002…, compactions: 3 }
 */
export function compactingCeiling(record: ChatMessage[], bytes: number, limits: { keepRecent: number; peakChars: number }): CompactingCeiling {
  const pairs = stepPairs(record);
  const head = totalChars(record.slice(0, 2));
  let lost = 0;
  let view = head;
  let compactions = 0;
  pairs.forEach((pair, step) => {
    lost += pair.bytes;
    view += pair.chars;
    if (view <= limits.peakChars) return;
    compactions++;
    const kept = newestWhole(pairs, step, limits.keepRecent);
    // The newest pair is counted above already; the others kept whole are sent again after the change.
    lost += sumOf(kept.slice(0, -1), 'bytes');
    view = head + sumOf(kept, 'chars');
  });
  return { reuse: 1 - lost / bytes, compactions };
}

/**
 * Tighter still: the fewest compactions any schedule needs to send no more
 * than `bytes` in all while under `peakChars`. A compaction leaves at least
 * the head and the newest results whole, and between compactions the view
 * only grows, so each schedule sends at least what its compactions allow:
 * the fewest compactions whose smallest schedule fits the budget is a floor
 * on every schedule's count. Each is charged the smallest resend of the
 * newest results. `compactions` is null when no schedule fits at all.
 *
 * @example budgetCeiling(record, 4_035_608, { keepRecent: 4, peakChars: 111_411 }) // { reuse: 0.892…, compactions: 6 } (100 steps, 4 chars/token)
 */
export function budgetCeiling(record: ChatMessage[], bytes: number, limits: { keepRecent: number; peakChars: number }): BudgetCeiling {
  const pairs = stepPairs(record);
  const steps = pairs.length;
  const head = { bytes: JSON.stringify(record.slice(0, 2)).length, chars: totalChars(record.slice(0, 2)) };
  // The smallest view right after a compaction at each step: the head and the newest results whole.
  const kept = pairs.map((_, step) => newestWhole(pairs, step, limits.keepRecent));
  const after = kept.map((whole) => ({ bytes: head.bytes + sumOf(whole, 'bytes'), chars: head.chars + sumOf(whole, 'chars') }));
  // Until a result older than the newest ones exists, nothing sent may change: no compaction before step keepRecent.
  const possible = (step: number) => step >= limits.keepRecent;
  const resend = Math.min(...kept.filter((_, step) => possible(step)).map((whole) => sumOf(whole.slice(0, -1), 'bytes')), Number.POSITIVE_INFINITY);
  // Prefix sums, so the bytes of a run of append-only requests cost O(1): bytesTo[t] and charsTo[t] sum pairs 0..t-1,
  // grownTo[t] sums bytesTo[1..t].
  const bytesTo = [0];
  const charsTo = [0];
  const grownTo = [0];
  pairs.forEach((pair, step) => {
    bytesTo.push(bytesTo[step]! + pair.bytes);
    charsTo.push(charsTo[step]! + pair.chars);
    grownTo.push(grownTo[step]! + bytesTo[step + 1]!);
  });
  // Bytes of the requests of steps from+1 .. to-1, growing append-only from `start` (the view at step `from`); null past the peak.
  const grown = (start: { bytes: number; chars: number }, from: number, to: number): number | null => {
    if (to - 1 <= from) return 0;
    if (start.chars + charsTo[to]! - charsTo[from + 1]! > limits.peakChars) return null;
    // Request t (from < t < to) is start plus pairs from+1..t: start.bytes + bytesTo[t+1] - bytesTo[from+1].
    return (to - 1 - from) * (start.bytes - bytesTo[from + 1]!) + (grownTo[to]! - grownTo[from + 1]!);
  };
  const fresh = sumOf(pairs, 'bytes');
  // least[k]: the fewest bytes up to a compaction at step k (its request included), with the current count of compactions.
  let least = pairs.map((_, step) => {
    const before = possible(step) ? grown(head, -1, step) : null;
    return before === null ? Number.POSITIVE_INFINITY : before + after[step]!.bytes;
  });
  const fits = (compactions: number) =>
    compactions === 0
      ? (grown(head, -1, steps) ?? Number.POSITIVE_INFINITY) <= bytes
      : least.some((sent, step) => sent + (grown(after[step]!, step, steps) ?? Number.POSITIVE_INFINITY) <= bytes);
  for (let compactions = 0; compactions <= steps; compactions++) {
    if (fits(compactions)) return { reuse: 1 - (fresh + compactions * (compactions > 0 ? resend : 0)) / bytes, compactions };
    if (compactions === 0) continue;
    least = pairs.map((_, to) => {
      let best = Number.POSITIVE_INFINITY;
      if (!possible(to)) return best;
      // A compaction only moves closer to the peak the longer the run since the last one, so the search stops where it passes.
      for (let from = to - 1; from >= 0; from--) {
        const between = grown(after[from]!, from, to);
        if (between === null) break;
        best = Math.min(best, least[from]! + between + after[to]!.bytes);
      }
      return best;
    });
  }
  return { reuse: Number.NaN, compactions: null };
}

/** rein's context manager with some of its rules changed, as one more row of the comparison. */
export interface ReinVariant {
  policy: string;
  rules: Partial<ContextRules>;
}

/**
 * The three policies over the same session, side by side (with any `variants`
 * of rein's rules after rein), and the reuse ceilings: at the seed's request
 * bytes, and at the bytes of whichever sends fewer, the seed or rein before (a
 * manager cheaper than both without a cache discount sends no more than that),
 * also with the compactions that keeping the newest results whole under the
 * `hard` peak forces.
 */
export function compareCachePolicies(
  shape: SessionShape,
  rules: ContextRules & StagedRules,
  variants: readonly ReinVariant[] = [],
): {
  policies: CacheFigures[];
  ceiling: number;
  cheapestCeiling: number;
  compacting: CompactingCeiling;
  budget: BudgetCeiling;
} {
  const record = sessionRecord(shape);
  const seed = seedRequests(record, rules, shape);
  const staged = stagedRequests(record, rules, shape);
  const bytes = (requests: Request[]) => requests.reduce((sum, request) => sum + request.body.length, 0);
  const cheapest = Math.min(bytes(seed), bytes(staged));
  const peakChars = rules.hard * shape.windowTokens * shape.charsPerToken;
  return {
    policies: [
      figures('rein (append-only, compacted to a low-water mark)', reinRequests(record, rules, shape), shape),
      ...variants.map((variant) => figures(variant.policy, reinRequests(record, { ...rules, ...variant.rules }, shape), shape)),
      figures('rein before (staged at the soft limit)', staged, shape),
      figures('seed (half-life re-capped every step)', seed, shape),
    ],
    ceiling: reuseCeiling(record, bytes(seed)),
    cheapestCeiling: reuseCeiling(record, cheapest),
    compacting: compactingCeiling(record, cheapest, { keepRecent: rules.keepRecent, peakChars }),
    budget: budgetCeiling(record, cheapest, { keepRecent: rules.keepRecent, peakChars }),
  };
}
