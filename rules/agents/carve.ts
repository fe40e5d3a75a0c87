import type { BudgetRequest, Delegation } from './schema.js';

/** A budget in the four units rein caps: steps, seconds, and (when capped) tokens and dollars. */
export interface BudgetAmounts {
  steps: number;
  seconds: number;
  tokens?: number;
  costUsd?: number;
}

/** What has been used (or set aside) in each unit. */
export interface BudgetUse {
  steps: number;
  seconds: number;
  tokens: number;
  costUsd: number;
}

export const NO_BUDGET_USE: BudgetUse = { steps: 0, seconds: 0, tokens: 0, costUsd: 0 };

export type Carved = { ok: true; caps: BudgetAmounts; left: BudgetAmounts } | { ok: false; reason: string; left: BudgetAmounts };

/**
 * A child's caps, carved from what its parent has left: in each unit, `min(requested, left × share)`, where left is
 * the parent's cap less what the whole tree has spent and less what running children still hold. The sum of the caps
 * of children running at once can therefore never pass the parent's cap, whatever the order they start and spend in.
 * A parent with less than the minimum to give starts nothing, and says which unit ran out.
 *
 * @example carveBudget({ caps: { steps: 40, seconds: 900 }, spent, held, request: { share: 0.5 }, minimum })
 */
export function carveBudget(parts: {
  caps: BudgetAmounts;
  spent: BudgetUse;
  held: BudgetUse;
  request: BudgetRequest;
  minimum: Pick<Delegation, 'minSteps' | 'minTokens'>;
}): Carved {
  const { caps, spent, held, request, minimum } = parts;
  const leftOf = (cap: number, unit: keyof BudgetUse) => Math.max(0, cap - spent[unit] - held[unit]);
  const left: BudgetAmounts = {
    steps: leftOf(caps.steps, 'steps'),
    seconds: leftOf(caps.seconds, 'seconds'),
    ...(caps.tokens !== undefined ? { tokens: leftOf(caps.tokens, 'tokens') } : {}),
    ...(caps.costUsd !== undefined ? { costUsd: leftOf(caps.costUsd, 'costUsd') } : {}),
  };
  const carve = (available: number | undefined, asked: number | undefined, round: (value: number) => number) => {
    const share = available === undefined ? undefined : round(available * request.share);
    if (share === undefined) return asked;
    return asked === undefined ? share : Math.min(asked, share);
  };
  const child: BudgetAmounts = {
    steps: carve(left.steps, request.maxSteps, Math.floor) ?? 0,
    seconds: carve(left.seconds, request.maxSeconds, Math.floor) ?? 0,
  };
  const tokens = carve(left.tokens, request.maxTokens, Math.floor);
  if (tokens !== undefined) child.tokens = tokens;
  const cost = carve(left.costUsd, request.maxCostUsd, (value) => Math.floor(value * 1e6) / 1e6);
  if (cost !== undefined) child.costUsd = cost;
  const short = shortfall(child, minimum);
  return short ? { ok: false, reason: `${short} (the parent has ${describeAmounts(left)} left)`, left } : { ok: true, caps: child, left };
}

function shortfall(child: BudgetAmounts, minimum: Pick<Delegation, 'minSteps' | 'minTokens'>): string | null {
  if (child.steps < minimum.minSteps) return `a child would get ${child.steps} steps, fewer than delegation.minSteps ${minimum.minSteps}`;
  if (child.seconds < 1) return `a child would get less than a second`;
  if (child.tokens !== undefined && child.tokens < minimum.minTokens)
    return `a child would get ${child.tokens} tokens, fewer than delegation.minTokens ${minimum.minTokens}`;
  if (child.costUsd !== undefined && child.costUsd <= 0) return 'a child would get no money to spend';
  return null;
}

/** The amounts in words: `12 steps, 300 s, 20,000 tokens, $0.50`. */
function describeAmounts(amounts: BudgetAmounts): string {
  return [
    `${amounts.steps} steps`,
    `${amounts.seconds} s`,
    ...(amounts.tokens !== undefined ? [`${amounts.tokens.toLocaleString('en-US')} tokens`] : []),
    ...(amounts.costUsd !== undefined ? [`$${amounts.costUsd.toFixed(4)}`] : []),
  ].join(', ');
}

/** The units `use` takes up of a budget (a running child's reservation is its caps less what it has spent). */
export function heldBy(caps: BudgetAmounts, use: BudgetUse): BudgetUse {
  return {
    steps: Math.max(0, caps.steps - use.steps),
    // Time passes for the whole tree at once: children running side by side share the parent's clock, none holds it.
    seconds: 0,
    tokens: caps.tokens === undefined ? 0 : Math.max(0, caps.tokens - use.tokens),
    costUsd: caps.costUsd === undefined ? 0 : Math.max(0, caps.costUsd - use.costUsd),
  };
}

/** Two uses added. */
export function addUse(a: BudgetUse, b: BudgetUse): BudgetUse {
  return { steps: a.steps + b.steps, seconds: a.seconds + b.seconds, tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd };
}
