import type { BudgetName } from '../lib/trace/trace-events.js';
import { type CallUsage, NO_USAGE, type Usage } from '../lib/usage.js';
import type { Price, Rules } from '../rules/schema.js';
import type { HarnessContext } from './types.js';
import { fillTemplate, type Update } from './update.js';

export { NO_USAGE };

/**
 * Budgets (seed component 10): steps, time, tokens and cost. Each ends the
 * run when spent (`step_limit`, `timeout`, `budget`) and warns the model once
 * when its share `budgets.warnAt` is used, by one mechanism: steps, tokens
 * and cost are checked at the start of each turn, time by the clock's
 * warning event; the text names the budget and the share.
 */

/** The caps the token and cost guard compares against. */
export interface BudgetCaps {
  maxTokens?: number;
  maxCostUsd?: number;
  maxCompletionTokens: number;
  /** The model's context window: prompt and completion together must fit in it. */
  windowTokens?: number;
}

/** The budget caps of a rules set: one place, so the guard and the request's `max_tokens` agree. */
export function budgetCapsOf(rules: Rules): BudgetCaps {
  const { maxTokens, maxCostUsd } = rules.budgets;
  return {
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    maxCompletionTokens: rules.model.maxCompletionTokens,
    windowTokens: rules.context.windowTokens,
  };
}

/** One warning a budget gives: at `share` of `limit`. */
export interface WarningRule {
  budget: BudgetName;
  share: number;
  limit: number;
}

/** The warnings a rules set gives: steps always, time always, tokens and cost when capped. */
export function warningRulesOf(rules: Rules): { perTurn: WarningRule[]; time: WarningRule } {
  const { budgets } = rules;
  const perTurn: WarningRule[] = [{ budget: 'steps', share: budgets.stepWarnAt ?? budgets.warnAt, limit: budgets.maxSteps }];
  if (budgets.maxTokens !== undefined) perTurn.push({ budget: 'tokens', share: budgets.warnAt, limit: budgets.maxTokens });
  if (budgets.maxCostUsd !== undefined) perTurn.push({ budget: 'cost', share: budgets.warnAt, limit: budgets.maxCostUsd });
  return { perTurn, time: { budget: 'time', share: budgets.warnAt, limit: budgets.maxSeconds } };
}

/** How much of a budget is used: steps taken, seconds, tokens, dollars. */
export function budgetUsed(context: Pick<HarnessContext, 'step' | 'elapsedMs' | 'usage' | 'delegated'>, budget: BudgetName): number {
  if (budget === 'steps') return context.step + (context.delegated?.steps ?? 0);
  if (budget === 'time') return Math.round(context.elapsedMs / 1000);
  if (budget === 'tokens') return context.usage.promptTokens + context.usage.completionTokens;
  return context.usage.costUsd;
}

/** The per-turn warnings now due: past their share and not given yet. */
export function dueWarnings(context: HarnessContext, warnings: readonly WarningRule[]): WarningRule[] {
  return warnings.filter((rule) => !context.warned[rule.budget] && budgetUsed(context, rule.budget) >= Math.ceil(rule.limit * rule.share * 1e6) / 1e6);
}

const UNITS: Record<BudgetName, { name: string; format(value: number): string }> = {
  steps: { name: 'step', format: (value) => `${value} steps` },
  time: { name: 'time', format: (value) => `${value} s` },
  tokens: { name: 'token', format: (value) => `${Math.round(value).toLocaleString('en-US')} tokens` },
  cost: { name: 'cost', format: (value) => `$${value.toFixed(2)}` },
};

/** Warns once for each budget given: a notice for the model and a trace note. */
export function warningUpdate(context: HarnessContext, warnings: readonly WarningRule[], template: string): Update {
  const notices: string[] = [];
  const notes: Update['notes'] = [];
  const warned = { ...context.warned };
  for (const rule of warnings) {
    const unit = UNITS[rule.budget];
    const used = rule.budget === 'time' ? Math.round(rule.limit * rule.share) : budgetUsed(context, rule.budget);
    const name = unit.name;
    notices.push(
      fillTemplate(template, {
        budget: name,
        Budget: name.charAt(0).toUpperCase() + name.slice(1),
        percent: Math.round(rule.share * 100),
        used: unit.format(used),
        limit: unit.format(rule.limit),
      }),
    );
    notes.push({ kind: 'budget_warning', budget: rule.budget, step: context.step, share: rule.share, used, limit: rule.limit });
    warned[rule.budget] = true;
  }
  return { context: { warned, notices: [...context.notices, ...notices] }, notes };
}

/** Chars a token assumed for the caps until the provider has reported a prompt size: dense tokenizers get near 2. */
const UNCALIBRATED_CHARS_PER_TOKEN = 2;
/** Headroom on a calibrated estimate: the next request's new text can tokenize denser than the last one's. */
const CALIBRATED_MARGIN = 1.1;

/**
 * Prompt tokens the caps must allow for: the view's estimate corrected by
 * what the provider reported for the last request (with a margin), or,
 * before any report, as if the tokenizer packed 2 characters a token. The
 * context manager keeps the plain estimate; only the caps need to err high.
 */
export function promptTokensForCaps(
  context: Pick<HarnessContext, 'viewTokens'> & { contextState?: { charsPerToken: number; reportedRatio?: number } },
): number {
  const state = context.contextState;
  const factor = !state
    ? 1
    : state.reportedRatio !== undefined
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
export function costOf(usage: CallUsage, price: Price): number {
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
  caps: BudgetCaps,
  price: Price,
): number {
  let allowance = caps.maxCompletionTokens;
  const prompt = promptTokensForCaps(context);
  // Servers such as vLLM reject a request whose prompt plus max_tokens exceeds the window (or the smaller one a
  // rejection taught us). The window never takes the limit below a useful answer: keeping the prompt small is the
  // context manager's job, and a provider that still refuses says so (and the prompt is compacted).
  const window = Math.min(caps.windowTokens ?? Number.POSITIVE_INFINITY, context.contextState?.windowCap ?? Number.POSITIVE_INFINITY);
  if (Number.isFinite(window) && context.viewTokens > 0) allowance = Math.min(allowance, Math.max(MIN_COMPLETION_TOKENS, window - prompt));
  const used: Usage = context.usage;
  if (caps.maxTokens !== undefined) {
    allowance = Math.min(allowance, caps.maxTokens - used.promptTokens - used.completionTokens - prompt);
  }
  if (caps.maxCostUsd !== undefined) {
    const left = caps.maxCostUsd - used.costUsd - (prompt * price.input) / 1e6;
    // Output that costs nothing can be as long as it likes once the prompt fits the cap.
    if (price.output > 0) allowance = Math.min(allowance, Math.floor((left * 1e6) / price.output));
    else if (left < 0) allowance = 0;
  }
  return Math.max(0, Math.floor(allowance));
}

/** Whether the next call cannot be made within the token or cost cap. */
export function budgetSpent(context: HarnessContext, caps: BudgetCaps): boolean {
  return completionAllowance(context, caps, context.price) < Math.min(MIN_COMPLETION_TOKENS, caps.maxCompletionTokens);
}

/** Which caps a budget end came from, in the rules' own words. */
export function capReason(caps: BudgetCaps): string {
  const named = [
    ...(caps.maxTokens !== undefined ? [`maxTokens ${caps.maxTokens}`] : []),
    ...(caps.maxCostUsd !== undefined ? [`maxCostUsd ${caps.maxCostUsd}`] : []),
  ];
  return `The next call could exceed the ${named.length > 0 ? named.join(' / ') : 'token or cost'} cap, counting its whole prompt as uncached; rein stopped before it.`;
}

export function addUsage(total: Usage, call: CallUsage, price: Price): Usage {
  return {
    calls: total.calls + 1,
    promptTokens: total.promptTokens + call.promptTokens,
    completionTokens: total.completionTokens + call.completionTokens,
    cachedTokens: total.cachedTokens + call.cachedTokens,
    costUsd: total.costUsd + costOf(call, price),
  };
}
