import { defaultRules } from '../../rules/schema.js';
import { compareCachePolicies, type CacheFigures } from '../prefix-cache.js';
import { grouped, listed, percent, type BenchSection } from '../section.js';

const STEPS = [100, 300, 500];
const SHAPE = { resultChars: 4000, windowTokens: 32_768, charsPerToken: 4 };

/** rein's staged context manager against the seed's per-step half-life schedule, on one long scripted session. */
export const promptCacheSection: BenchSection = {
  id: 'prompt-cache',
  title: 'Prompt-cache reuse, ~4,000-char tool results, 32K-token window, $3/M uncached, $0.30/M cached',
  async run() {
    const rules = { ...defaultRules().context, windowTokens: SHAPE.windowTokens };
    const pairs = STEPS.map((steps) => {
      const [rein, seed] = compareCachePolicies({ steps, ...SHAPE }, rules);
      return { steps, rein: rein!, seed: seed! };
    });
    const row = (steps: number, figures: CacheFigures) => [
      steps, figures.policy, percent(figures.prefixReuse), percent(figures.peakShare), figures.promptTokens, figures.cachedTokens, figures.summaries,
      `$${figures.estimatedCost.toFixed(2)}`, `$${figures.costWithoutCache.toFixed(2)}`,
    ];
    return {
      tables: [{
        headers: ['steps', 'context manager', 'prefix reuse', 'peak / window', 'prompt tokens', 'cached tokens', 'summaries', 'est. cost', 'cost without cache'],
        rows: pairs.flatMap(({ steps, rein, seed }) => [row(steps, rein), row(steps, seed)]),
      }],
      notes: describeCachePairs(pairs),
    };
  },
};

/**
 * The comparison in words, every row of it: reuse, prompt tokens and cost, and where rein sends more.
 *
 * @example describeCachePairs([{ steps: 100, rein, seed }])[0] // "rein against the seed's schedule, 100 steps: 91.2% vs 40.0% reuse, …"
 */
export function describeCachePairs(pairs: Array<{ steps: number; rein: CacheFigures; seed: CacheFigures }>): string[] {
  const perLength = pairs.map(({ steps, rein, seed }) => `${steps} steps: ${percent(rein.prefixReuse)} vs ${percent(seed.prefixReuse)} reuse, `
    + `${grouped(rein.promptTokens)} vs ${grouped(seed.promptTokens)} prompt tokens`);
  const moreTokens = pairs.filter(({ rein, seed }) => rein.promptTokens > seed.promptTokens).map(({ steps }) => `${steps}`);
  const cheaper = pairs.filter(({ rein, seed }) => rein.estimatedCost < seed.estimatedCost).map(({ steps }) => `${steps}`);
  const dearerUncached = pairs.filter(({ rein, seed }) => rein.costWithoutCache > seed.costWithoutCache).map(({ steps }) => `${steps}`);
  const notes = [`rein against the seed's schedule, ${perLength.join('; ')}.`];
  notes.push(moreTokens.length > 0
    ? `rein sends more prompt tokens than the seed's schedule at ${listed(moreTokens)} steps (below the soft limit it leaves old results whole, where the seed's schedule shortens them every step).`
    : 'rein sends fewer prompt tokens than the seed\'s schedule at every length.');
  notes.push(`Its estimated cost is lower at ${cheaper.length > 0 ? `${listed(cheaper)} steps` : 'no length'} with the cache discount`
    + (dearerUncached.length > 0 ? `; without a prompt cache it would cost more at ${listed(dearerUncached)} steps.` : ', and without a prompt cache too.'));
  return notes;
}
