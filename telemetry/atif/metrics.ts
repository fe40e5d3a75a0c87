import type { TraceRecord } from 'rein/formats';
import { costOf } from 'rein/machines';
import { z } from 'zod';
import type { ModelLine } from './conversation.js';
import { lastOf } from './run-facts.js';

export const usageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative(),
});
const priceSchema = z.object({ input: z.number(), cachedInput: z.number(), output: z.number() });

export type AtifPrice = z.infer<typeof priceSchema>;

/** The model's price from the rules the run was started with, if they name one. */
export function priceFor(start: TraceRecord | undefined, model: string | undefined): AtifPrice | null {
  if (!model) return null;
  const rules = start?.rules as { model?: { prices?: Record<string, unknown> } } | undefined;
  const parsed = priceSchema.safeParse(rules?.model?.prices?.[model]);
  return parsed.success ? parsed.data : null;
}

/** Totals over every model call the trace holds (the discarded ones were paid for too). */
export function finalMetrics(lines: readonly TraceRecord[], models: readonly ModelLine[], price: AtifPrice | null, stepCount: number) {
  const total = { prompt: 0, completion: 0, cached: 0, cost: 0 };
  for (const line of models) {
    const usage = usageSchema.safeParse(line.usage);
    if (!usage.success) continue;
    total.prompt += usage.data.promptTokens;
    total.completion += usage.data.completionTokens;
    total.cached += Math.min(usage.data.cachedTokens, usage.data.promptTokens);
    if (price) total.cost += costOf(usage.data, price);
  }
  const end = lastOf(lines, 'end');
  return {
    total_prompt_tokens: total.prompt,
    total_completion_tokens: total.completion,
    total_cached_tokens: total.cached,
    ...(price ? { total_cost_usd: total.cost } : {}),
    total_steps: stepCount,
    extra: { model_calls: models.length, ...(typeof end?.steps === 'number' ? { rein_steps: end.steps } : {}) },
  };
}
