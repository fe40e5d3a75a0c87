import { fixed, usd, whole } from './format.js';
import type { RunRecord } from './run-record.js';

/** The columns of the per-agent usage table. */
export const AGENT_USAGE_HEADERS = ['configuration', 'agent', 'children per run', 'mean steps', 'mean tokens', 'mean cost', 'share of cost'];

/**
 * Each configuration's usage split by agent, averaged over all its runs (a run that did not delegate is all `main`): `main`, the run itself, then each agent the rules declare. Only configurations whose runs
 * delegated have rows. The shares of a configuration add up to 100% of its mean cost.
 *
 * @example agentUsageRows(records, ['default', 'reviewer-agent'])[0] // ['reviewer-agent', 'main', '-', '10.0', '9,120', '$0.0110', '68%']
 */
export function agentUsageRows(records: readonly RunRecord[], configs: readonly string[]): string[][] {
  return configs.flatMap((config) => {
    const runs = records.filter((record) => record.config === config);
    if (!runs.some((record) => record.agents && record.agents.length > 1)) return [];
    const names = [...new Set(runs.flatMap((record) => (record.agents ?? []).map((entry) => entry.agent)))];
    const totalCost = runs.reduce((sum, record) => sum + record.costUsd, 0);
    return names.map((agent) => {
      const entries = runs.flatMap((record) => (record.agents ?? mainOnly(record)).filter((entry) => entry.agent === agent));
      const mean = (pick: (entry: (typeof entries)[number]) => number) => entries.reduce((sum, entry) => sum + pick(entry), 0) / runs.length;
      const cost = entries.reduce((sum, entry) => sum + entry.costUsd, 0);
      return [
        config,
        agent,
        agent === 'main' ? '-' : fixed(mean((entry) => entry.runs)),
        fixed(mean((entry) => entry.steps)),
        whole(mean((entry) => entry.promptTokens + entry.completionTokens)),
        usd(cost / runs.length),
        totalCost > 0 ? `${Math.round((cost / totalCost) * 100)}%` : '-',
      ];
    });
  });
}

/** A run without a split (it delegated nothing): all its usage is the run's own. */
function mainOnly(record: RunRecord): NonNullable<RunRecord['agents']> {
  return [
    { agent: 'main', runs: 1, steps: record.steps, promptTokens: record.promptTokens, completionTokens: record.completionTokens, costUsd: record.costUsd },
  ];
}
