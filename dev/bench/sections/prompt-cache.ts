import { defaultRules } from 'rein/rules';
import { type BudgetCeiling, type CacheFigures, type CompactingCeiling, compareCachePolicies, type ReinVariant } from '../prefix-cache.js';
import { type BenchSection, grouped, listed, percent, times } from '../section.js';

const STEPS = [100, 300, 500];
const DENSITIES = [4, 2.5];
const SHAPE = { resultChars: 4000, windowTokens: 32_768 };
/** rein with the view let grow further between compactions: more of each prompt cached, bigger prompts. */
const TUNED_FOR_REUSE: ReinVariant = { policy: 'rein, tuned for reuse (growth 0.4, soft 0.8)', rules: { growth: 0.4, soft: 0.8 } };

interface Compared {
  steps: number;
  charsPerToken: number;
  policies: CacheFigures[];
  ceiling: number;
  cheapestCeiling: number;
  compacting: CompactingCeiling;
  budget: BudgetCeiling;
}

/** rein's context manager (now and before) against the seed's per-step half-life schedule, on one long scripted session. */
export const promptCacheSection: BenchSection = {
  id: 'prompt-cache',
  title: 'Prompt tokens and cache reuse: one session of ~4,000-char tool results, 32K-token window, $3/M uncached, $0.30/M cached, summarizer prompts counted',
  async run() {
    // The seed's schedule and rein's earlier one both cap results just outside the newest at 2,000 characters (the seed's base_cap).
    const rules = { ...defaultRules().context, windowTokens: SHAPE.windowTokens, baseCap: 2000 };
    const compared: Compared[] = [];
    for (const charsPerToken of DENSITIES) {
      for (const steps of STEPS) compared.push({ steps, charsPerToken, ...compareCachePolicies({ steps, charsPerToken, ...SHAPE }, rules, [TUNED_FOR_REUSE]) });
    }
    const ratio = (a: number, b: number) => times(a / b);
    return {
      tables: [
        {
          headers: [
            'steps',
            'chars/token',
            'context manager',
            'prefix reuse',
            'peak / window',
            'prompt tokens',
            'vs seed',
            'summaries',
            'est. cost',
            'vs seed',
            'cost, no cache discount',
            'vs seed',
          ],
          rows: compared.flatMap(({ steps, charsPerToken, policies }) => {
            const seed = policies.at(-1)!;
            return policies.map((figures) => [
              steps,
              charsPerToken,
              figures.policy,
              percent(figures.prefixReuse),
              percent(figures.peakShare),
              figures.allTokens,
              ratio(figures.allTokens, seed.allTokens),
              figures.summaries,
              `$${figures.estimatedCost.toFixed(2)}`,
              ratio(figures.estimatedCost, seed.estimatedCost),
              `$${figures.costWithoutCache.toFixed(2)}`,
              ratio(figures.costWithoutCache, seed.costWithoutCache),
            ]);
          }),
        },
        {
          headers: [
            'steps',
            'chars/token',
            'most reuse possible without sending more than the seed',
            'without sending more than the seed or rein before, whichever sends less',
            `the same, keeping the newest ${rules.keepRecent} results whole and every request under ${percent(rules.hard)} of the window`,
            'compactions that forces, at the least',
            'the same, with the compactions sending no more bytes than that forces',
            'compactions that forces',
          ],
          rows: compared.map((row) => [
            row.steps,
            row.charsPerToken,
            percent(row.ceiling, 2),
            percent(row.cheapestCeiling, 2),
            percent(row.compacting.reuse, 2),
            row.compacting.compactions,
            row.budget.compactions === null ? 'none fits' : percent(row.budget.reuse, 2),
            row.budget.compactions ?? '-',
          ]),
        },
      ],
      notes: [
        ...describeCachePairs(compared.map(({ steps, charsPerToken, policies }) => ({ steps, charsPerToken, rein: policies[0]!, seed: policies.at(-1)! }))),
        describeReuseTarget(
          // The tighter of the two ceilings (NaN, no schedule fits, compares as not below the target, so the peak's stands).
          compared.map(({ steps, charsPerToken, compacting, budget }) => ({ steps, charsPerToken, ceiling: Math.min(compacting.reuse, budget.reuse) })),
          rules.keepRecent,
        ),
        describeReuseTrade(
          compared.map(({ steps, charsPerToken, policies }) => ({ steps, charsPerToken, rein: policies[0]!, tuned: policies[1]! })),
          `context.growth ${TUNED_FOR_REUSE.rules.growth} and context.soft ${TUNED_FOR_REUSE.rules.soft} instead of ${rules.growth} and ${rules.soft}`,
        ),
      ],
    };
  },
};

/** Prefix reuse the context manager is asked to reach. */
const REUSE_TARGET = 0.9;

/** The 90% reuse target against the tightest ceiling: where no context manager can meet it. */
export function describeReuseTarget(rows: Array<{ steps: number; charsPerToken: number; ceiling: number }>, keepRecent: number): string {
  const out = rows.filter((row) => row.ceiling < REUSE_TARGET).map((row) => `${row.steps} steps at ${row.charsPerToken} chars/token`);
  if (out.length === 0) return `The tightest ceiling is at or above ${percent(REUSE_TARGET)} in every case.`;
  return (
    `At ${listed(out)} the tightest ceiling is below ${percent(REUSE_TARGET)}: no context manager that keeps the newest ${keepRecent} results whole ` +
    `and stays under the peak reuses ${percent(REUSE_TARGET)} of its prompts while sending no more than the cheaper of the seed and rein before.`
  );
}

/**
 * What more reuse costs, in words: rein with rules that let the view grow further between compactions against rein
 * with its defaults, in reuse and in cost with and without a cache discount.
 *
 * @example describeReuseTrade([{ steps: 300, charsPerToken: 4, rein, tuned }], 'context.growth 0.4 …') // 'Tuned for reuse (context.growth 0.4 …), rein reuses 93.8% …'
 */
export function describeReuseTrade(pairs: Array<{ steps: number; charsPerToken: number; rein: CacheFigures; tuned: CacheFigures }>, change: string): string {
  const range = (values: number[], show: (value: number) => string) => {
    const [low, high] = [Math.min(...values), Math.max(...values)].map(show);
    return low === high ? low : `${low} to ${high}`;
  };
  const reaching = pairs.filter((pair) => pair.tuned.prefixReuse >= REUSE_TARGET).map((pair) => `${pair.steps} steps at ${pair.charsPerToken} chars/token`);
  const withCache = pairs.map((pair) => pair.tuned.estimatedCost / pair.rein.estimatedCost);
  const withoutCache = pairs.map((pair) => pair.tuned.costWithoutCache / pair.rein.costWithoutCache);
  const dearer = [...withCache, ...withoutCache].every((ratio) => ratio > 1);
  return (
    `Tuned for reuse (${change}), rein reuses ${range(
      pairs.map((pair) => pair.tuned.prefixReuse),
      (value) => percent(value),
    )} of its prompts (${percent(REUSE_TARGET)} or more ${reaching.length > 0 ? `at ${listed(reaching)}` : 'in no case'}), ` +
    `at ${range(withCache, times)} the cost of its defaults with the cache discount and ${range(withoutCache, times)} without` +
    (dearer ? ': the defaults cost less in every case, with a prompt cache and without one.' : '.')
  );
}

/**
 * The comparison in words, every row of it: reuse, prompt tokens and cost, and where rein sends more.
 *
 * @example describeCachePairs([{ steps: 100, charsPerToken: 4, rein, seed }])[0] // "rein against the seed's schedule: 100 steps at 4 chars/token: 91.2% vs 40.0% reuse, …"
 */
export function describeCachePairs(pairs: Array<{ steps: number; charsPerToken: number; rein: CacheFigures; seed: CacheFigures }>): string[] {
  const name = ({ steps, charsPerToken }: { steps: number; charsPerToken: number }) => `${steps} steps at ${charsPerToken} chars/token`;
  const perLength = pairs.map(
    (pair) =>
      `${name(pair)}: ${percent(pair.rein.prefixReuse)} vs ${percent(pair.seed.prefixReuse)} reuse, ` +
      `${grouped(pair.rein.allTokens)} vs ${grouped(pair.seed.allTokens)} prompt tokens`,
  );
  const moreTokens = pairs.filter(({ rein, seed }) => rein.allTokens > seed.allTokens).map(name);
  const cheaper = pairs.filter(({ rein, seed }) => rein.estimatedCost < seed.estimatedCost).map(name);
  const dearerUncached = pairs.filter(({ rein, seed }) => rein.costWithoutCache > seed.costWithoutCache).map(name);
  const notes = [`rein against the seed's schedule: ${perLength.join('; ')}.`];
  notes.push(
    moreTokens.length > 0
      ? `rein sends more prompt tokens than the seed's schedule at ${listed(moreTokens)}.`
      : "rein sends fewer prompt tokens than the seed's schedule in every case.",
  );
  notes.push(
    `Its estimated cost is lower ${cheaper.length === pairs.length ? 'in every case' : cheaper.length > 0 ? `at ${listed(cheaper)}` : 'in no case'} with the cache discount` +
      (dearerUncached.length > 0 ? `; without a prompt cache it would cost more at ${listed(dearerUncached)}.` : ', and without a prompt cache too.'),
  );
  return notes;
}
