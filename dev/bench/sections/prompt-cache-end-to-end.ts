import { type HarnessPrefixFigures, measureHarnessPrefix } from '../harness-prefix.js';
import { type BenchSection, listed, percent } from '../section.js';

const DENSITIES = [4, 2.5];
const STEPS = [100, 300];

/** Prefix reuse measured on the requests the real harness sends, as a provider would count them. */
export const promptCacheEndToEndSection: BenchSection = {
  id: 'prompt-cache-harness',
  title: 'The same session through the real harness (statechart, context manager, tool schemas, calibration from reported prompt_tokens)',
  async run() {
    const rows: HarnessPrefixFigures[] = [];
    for (const providerCharsPerToken of DENSITIES) {
      for (const steps of STEPS) rows.push(await measureHarnessPrefix(steps, { providerCharsPerToken }));
    }
    return {
      tables: [
        {
          headers: ['steps', 'provider chars/token', 'prefix reuse', 'requests reusing < 50%', 'peak / window', 'prompt tokens', 'elision passes', 'summaries'],
          rows: rows.map((row) => [
            row.steps,
            row.providerCharsPerToken,
            percent(row.prefixReuse),
            row.breaks,
            percent(row.peakShare),
            row.promptTokens,
            row.elisions,
            row.summaries,
          ]),
        },
      ],
      notes: [
        `Prefix reuse end to end: ${listed(rows.map((row) => `${percent(row.prefixReuse)} at ${row.steps} steps and ${row.providerCharsPerToken} characters a token`))}.`,
      ],
    };
  },
};
