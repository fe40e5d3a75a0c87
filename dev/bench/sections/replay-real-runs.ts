import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from 'rein/lib';
import { createReplayer } from 'rein/testing';
import { loadRuns } from 'rein-cli/replay/load-runs.js';
import { longestExploration, seedNudges } from 'rein-cli/replay/seed-rules.js';
import { share, summarize } from 'rein-cli/replay/summary.js';
import type { BenchSection } from '../section.js';

/** The dev split of real runs: REIN_REALTRAJ, or ../shared/realtraj beside the checkout (or beside its worktree folder). */
const DEV =
  process.env.REIN_REALTRAJ ??
  [join(packageRoot(), '..', 'shared'), join(packageRoot(), '..', '..', 'shared')].map((dir) => join(dir, 'realtraj', 'dev.jsonl.gz')).find(existsSync) ??
  join(packageRoot(), '..', 'shared', 'realtraj', 'dev.jsonl.gz');
const OLD_DEFAULTS = join(packageRoot(), 'cli', 'replay', 'rules', 'rein-0.1.0-stall.json');

/**
 * The stall rules on real runs: the dev split replayed open loop through the
 * real machine under today's defaults and rein 0.1.0's (replay/rules/), beside
 * the seed's three rules on the same actions, and the replay's speed.
 */
export const replayRealRunsSection: BenchSection = {
  id: 'replay',
  title: 'Stall rules on real runs: the realtraj dev split replayed open loop (rein replay; learning = at least 6 of the last 8 observations new)',
  async run() {
    if (!existsSync(DEV)) return { tables: [], notes: [`${DEV} is missing: set REIN_REALTRAJ to the dev split to measure this section.`] };
    const { readFileSync } = await import('node:fs');
    const { runs, skipped } = loadRuns(DEV);
    const replayer = createReplayer();
    const started = performance.now();
    const cpu = process.cpuUsage();
    const current = runs.map((run) => replayer.replay(run));
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    const oldReplayer = createReplayer({ rules: JSON.parse(readFileSync(OLD_DEFAULTS, 'utf8')) as object });
    const old = runs.map((run) => oldReplayer.replay(run));
    const now = summarize(current);
    const before = summarize(old);
    const resolved = runs.filter((run) => run.resolved === true);
    const seed = resolved.map((run) => seedNudges(run));
    const seedNudged = seed.filter((nudges) => nudges.length > 0).length;
    const seedLearning = seed.filter((nudges) => nudges.some((nudge) => nudge.learning)).length;
    const byRule = (table: Record<string, number>) =>
      Object.entries(table)
        .sort((a, b) => b[1] - a[1])
        .map(([rule, count]) => `${rule} ${count}`)
        .join(', ') || 'none';
    const seedRules: Record<string, number> = {};
    for (const nudges of seed) for (const nudge of nudges) seedRules[nudge.rule] = (seedRules[nudge.rule] ?? 0) + 1;
    const streaks = resolved.map(longestExploration).sort((a, b) => a - b);
    const p99 = streaks[Math.min(streaks.length - 1, Math.floor(streaks.length * 0.99))] ?? 0;
    return {
      tables: [
        {
          headers: ['rules', 'resolved runs nudged', 'nudged while learning', 'nudges on resolved runs by rule', 'runs stopped', 'resolved runs stopped'],
          rows: [
            [
              'rein default (novelty rules)',
              share(now.resolvedNudged, now.resolved),
              share(now.resolvedNudgedLearning, now.resolved),
              byRule(now.resolvedNudgesByRule),
              now.stopped,
              now.falseStops,
            ],
            [
              'rein 0.1.0 default (replay/rules/rein-0.1.0-stall.json)',
              share(before.resolvedNudged, before.resolved),
              share(before.resolvedNudgedLearning, before.resolved),
              byRule(before.resolvedNudgesByRule),
              before.stopped,
              before.falseStops,
            ],
            ["the seed's three rules", share(seedNudged, resolved.length), share(seedLearning, resolved.length), byRule(seedRules), 0, 0],
          ],
        },
        {
          headers: ['system (default rules)', 'runs', 'resolved runs nudged', 'nudged while learning', 'resolved runs stopped'],
          rows: [...new Set(runs.map((run) => run.system ?? '?'))].map((system) => {
            const part = summarize(current.filter((result) => (result.run.system ?? '?') === system));
            return [system, part.runs, share(part.resolvedNudged, part.resolved), share(part.resolvedNudgedLearning, part.resolved), part.falseStops];
          }),
        },
        {
          headers: ['runs', 'actions', 'skipped inputs', 'replay wall time (default rules)', 'replay CPU time', 'actions per CPU second'],
          rows: [
            [
              runs.length,
              now.actions,
              skipped.length,
              `${(ms / 1000).toFixed(2)} s`,
              `${(cpuMs / 1000).toFixed(2)} s`,
              Math.round(now.actions / (cpuMs / 1000)),
            ],
          ],
        },
      ],
      notes: [
        `Longest stretch of reads and searches with no edit in a resolved run: ${streaks.at(-1) ?? 0} (99th percentile ${p99}); the longExploration cap is 50, above the longest.`,
        `Runs stopped on a limit (cost, steps, context, time) under the defaults: ${now.limitRunsStopped}, saving ${now.savedActions} actions.`,
      ],
    };
  },
};
