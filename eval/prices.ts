import { existsSync, readFileSync } from 'node:fs';
import { formatZodError, jsonSyntaxError, UsageError } from 'rein/lib';
import type { Price, Rules } from 'rein/rules';
import { z } from 'zod';

/**
 * The price simulated runs are costed at: the seed's example of $3 input,
 * $0.30 cached input and $15 output per million tokens. Nominal: it makes
 * cost columns comparable between configurations, nothing more.
 */
export const NOMINAL_PRICE: Price = { input: 3, cachedInput: 0.3, output: 15 };

/** Where a run's price came from: the configuration's `model.prices`, a `--prices` file, the nominal price, or none (cost 0). */
export type PriceSource = 'rules' | 'prices-file' | 'nominal' | 'none';

const priceTableSchema = z.record(
  z.string(),
  z
    .object({
      input: z.number().nonnegative(),
      cachedInput: z.number().nonnegative(),
      output: z.number().nonnegative(),
    })
    .strict(),
);

/** A `--prices FILE`: `{ "model-name": { "input": 3, "cachedInput": 0.3, "output": 15 } }`, USD per million tokens. */
export function loadPriceTable(path: string): Record<string, Price> {
  if (!existsSync(path)) throw new UsageError(`--prices: ${path} not found`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--prices: ${path}: not valid JSON: ${jsonSyntaxError(readFileSync(path, 'utf8'), error)}`);
  }
  const parsed = priceTableSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(
      formatZodError(parsed.error, { input: json, schema: priceTableSchema })
        .map((line) => `--prices: ${path}: ${line}`)
        .join('\n'),
    );
  return parsed.data;
}

/**
 * The price for a model under a configuration: the rules' own table wins,
 * then the `--prices` file (by name, or `simulated` for every simulated
 * model), then the nominal price for simulated models.
 *
 * @example choosePrice(rules, 'simulated:flood-context', {}, true) // { price: NOMINAL_PRICE, source: 'nominal' }
 */
export function choosePrice(rules: Rules, model: string, table: Record<string, Price>, simulated: boolean): { price: Price | null; source: PriceSource } {
  const own = rules.model.prices[model];
  if (own) return { price: own, source: 'rules' };
  const listed = table[model] ?? (simulated ? table.simulated : undefined);
  if (listed) return { price: listed, source: 'prices-file' };
  if (simulated) return { price: NOMINAL_PRICE, source: 'nominal' };
  return { price: null, source: 'none' };
}
