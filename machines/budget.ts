import type { Price, Rules } from '../rules/schema.js';
import type { HarnessContext, Usage } from './types.js';

/** Budget rules the guards compare against. */
export interface BudgetRules {
  maxTokens?: number;
  maxCostUsd?: number;
  maxCompletionTokens: number;
  /** The model's context window: prompt and completion together must fit in it. */
  windowTokens?: number;
}

/** The budget rules of a rules set: one place, so the guard and the request's `max_tokens` agree. */
export function budgetRulesOf(rules: Rules): BudgetRules {
  return { ...rules.budgets, maxCompletionTokens: rules.model.maxCompletionTokens, windowTokens: rules.context.windowTokens };
}

/** Chars a token assumed for the caps until the provider has reported a prompt size: dense tokenizers get near 2. */
export const UNCALIBRATED_CHARS_PER_TOKEN = 2;
/** Headroom on a calibrated estimate: the next request's new text can tokenize denser than the last one's. */
export const CALIBRATED_MARGIN = 1.1;

/**
 * Prompt tokens the caps must allow for: the view's estimate corrected by
 * what the provider reported for the last request (with a margin), or,
 * before any report, as if the tokenizer packed 2 characters a token. The
 * context manager keeps the plain estimate; only the caps need to err high.
 */
export function promptTokensForCaps(context: Pick<HarnessContext, 'viewTokens'> & { contextState?: { charsPerToken: number; reportedRatio?: number } }): number {
  const state = context.contextState;
  const factor = !state ? 1 : state.reportedRatio !== undefined
    ? state.reportedRatio * CALIBRATED_MARGIN
    : Math.max(CALIBRATED_MARGIN, state.charsPerToken / UNCALIBRATED_CHARS_PER_TOKEN);
  // Rounded first so float noise (1,000 × 1.1 = 1,100.0000000001) does not add a token.
  return Math.ceil(Math.round(context.viewTokens * factor * 1000) / 1000);
}

/** Fewest completion tokens worth making a call for; below it the budget is spent. */
export const MIN_COMPLETION_TOKENS = 256;

const ZERO_PRICE: Price = { input: 0, cachedInput: 0, output: 0 };

/** The price of `model` in the table, or zero for unknown models (stated in the trace). */
export function priceOf(prices: Record<string, Price>, model: string): Price {
  return prices[model] ?? ZERO_PRICE;
}

/** Cost of one call's usage; cached prompt tokens are billed at the cached price. */
export function costOf(usage: { promptTokens: number; completionTokens: number; cachedTokens: number }, price: Price): number {
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  return ((usage.promptTokens - cached) * price.input + cached * price.cachedInput + usage.completionTokens * price.output) / 1e6;
}

/**
 * Completion tokens the next call may use so that, even if none of its
 * prompt is cached, neither the token cap nor the cost cap can be exceeded.
 * The cap holds because the call is made with `max_tokens` set to this.
 */
export function completionAllowance(
  context: Pick<HarnessContext, 'usage' | 'viewTokens'> & { contextState?: { charsPerToken: number; reportedRatio?: number; windowCap?: number } },
  rules: BudgetRules, price: Price,
): number {
  let allowance = rules.maxCompletionTokens;
  const prompt = promptTokensForCaps(context);
  // Servers such as vLLM reject a request whose prompt plus max_tokens exceeds the window (or the smaller one a
  // rejection taught us). The window never takes the limit below a useful answer: keeping the prompt small is the
  // context manager's job, and a provider that still refuses says so (and the prompt is compacted).
  const window = Math.min(rules.windowTokens ?? Number.POSITIVE_INFINITY, context.contextState?.windowCap ?? Number.POSITIVE_INFINITY);
  if (Number.isFinite(window) && context.viewTokens > 0) allowance = Math.min(allowance, Math.max(MIN_COMPLETION_TOKENS, window - prompt));
  const used: Usage = context.usage;
  if (rules.maxTokens !== undefined) {
    allowance = Math.min(allowance, rules.maxTokens - used.promptTokens - used.completionTokens - prompt);
  }
  if (rules.maxCostUsd !== undefined && price.output > 0) {
    const promptCost = (prompt * price.input) / 1e6;
    allowance = Math.min(allowance, Math.floor(((rules.maxCostUsd - used.costUsd - promptCost) * 1e6) / price.output));
  } else if (rules.maxCostUsd !== undefined && used.costUsd + (prompt * price.input) / 1e6 > rules.maxCostUsd) {
    allowance = 0;
  }
  return Math.max(0, Math.floor(allowance));
}

export function addUsage(total: Usage, call: { promptTokens: number; completionTokens: number; cachedTokens: number }, price: Price): Usage {
  return {
    calls: total.calls + 1,
    promptTokens: total.promptTokens + call.promptTokens,
    completionTokens: total.completionTokens + call.completionTokens,
    cachedTokens: total.cachedTokens + call.cachedTokens,
    costUsd: total.costUsd + costOf(call, price),
  };
}

export const NO_USAGE: Usage = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
