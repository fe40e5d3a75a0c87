import { NOMINAL_PRICE } from './prices.js';
import type { RunRecord } from './run-record.js';

/** The report's line on the model. */
export function describeModel(endpoint: { model: string; baseURL?: string } | undefined, where?: string): string {
  if (endpoint) return `Model: ${endpoint.model} at ${where ?? endpoint.baseURL ?? 'https://api.openai.com/v1'}.`;
  return "Model: each task's simulated model, offline. This is a simulation that tests the harness; it is not a benchmark of any model.";
}

/** The report's line on prices, from where the runs' prices came from. */
export function describePrices(records: readonly RunRecord[]): string {
  const sources = new Set(records.map((record) => record.price));
  const parts: string[] = [];
  if (sources.has('nominal')) {
    parts.push(
      `Costs of simulated runs use a nominal price ($${NOMINAL_PRICE.input} input / $${NOMINAL_PRICE.cachedInput.toFixed(2)} cached input / $${NOMINAL_PRICE.output} output per million tokens, the seed's example): they compare configurations, they are not a bill.`,
    );
  }
  if (sources.has('rules') || sources.has('prices-file')) parts.push('Costs use the price table of the configuration (model.prices) or the --prices file.');
  if (sources.has('none')) parts.push('Some runs had no price for their model, so their cost is 0: set model.prices in a --config file or pass --prices FILE.');
  return parts.join(' ') || 'No runs.';
}
