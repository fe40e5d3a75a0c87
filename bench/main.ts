import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { compareCachePolicies } from './prefix-cache.js';
import { measureHarnessPrefix } from './harness-prefix.js';
import { measureOverhead } from './overhead.js';
import { measureViewConstruction } from './view-construction.js';
import { defaultRules } from '../rules/schema.js';
import { formatTable } from './table.js';
import { measureSuiteTokens } from './suite-tokens.js';
import { measureQueueScaling } from './eval-queue.js';

/** Long runs whose per-step windows are compared; their median is reported. */
const LONG_RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * `npm run bench`: the harness's own cost per step, view construction
 * against the seed's, and prompt-cache reuse against the seed's elision.
 * Figures are measured side by side in one run; compare ratios, not times.
 */
async function main(): Promise<void> {
  const written: string[] = [];
  const out = (text: string) => { written.push(text); process.stdout.write(text + '\n'); };
  // A blank line after each table, so Markdown does not run two tables together.
  const table = (...args: Parameters<typeof formatTable>) => out(`${formatTable(...args)}\n`);
  if (process.argv.includes('--queue-only')) {
    await queueSection(out, table);
    if (process.argv.includes('--write')) writeFigures(written.join('\n'), '5');
    return;
  }
  out(`rein benchmarks — node ${process.version}, ${new Date().toISOString()}\n`);

  await measureOverhead(1000); // warm up: module loading and JIT, so the first measured run is not the slow one
  const sizes = [100, 1000, 5000];
  // Per-step cost at record lengths 100, 1,000 and 5,000, read from long runs so warm-up does not blur it. A window
  // of 100 steps can catch a garbage collection or not: the median of three runs keeps one pause from deciding it.
  const longRuns: Awaited<ReturnType<typeof measureOverhead>>[] = [];
  for (let run = 0; run < LONG_RUNS; run++) longRuns.push(await measureOverhead(5000, { windows: sizes }));
  const atLength = Object.fromEntries(sizes.map((length) => [length, median(longRuns.map((run) => run.atLength[length]!))]));
  const base = atLength[100]!;
  out('1. Harness overhead per step (instant model, free tool; transitions, view, trace, record, token estimates)');
  table([`record length (steps)`, `ms/step there (median of ${LONG_RUNS} runs)`, 'vs length 100'], sizes.map((length) => [length, atLength[length]!.toFixed(3), `${(atLength[length]! / base).toFixed(2)}x`]));
  const overhead = [];
  for (const steps of sizes) overhead.push(await measureOverhead(steps));
  table(['whole run of', 'mean ms/step', 'retained heap bytes/step', 'peak heap MB', 'trace lines/step'], overhead.map((row) => [
    `${row.steps} steps`, row.msPerStep.toFixed(3), Math.max(0, Math.round(row.heapBytesPerStep)), row.peakHeapMb.toFixed(1), (row.traceLines / row.steps).toFixed(1),
  ]));
  const saving = await measureOverhead(1000, { saveState: true, fsync: false });
  const durable = await measureOverhead(200, { saveState: true, fsync: true });
  table(['with state saved for resume', 'ms/step', 'vs no saving (1000 steps)'], [
    ['write + rename every step', saving.msPerStep.toFixed(3), `${(saving.msPerStep / overhead[1]!.msPerStep).toFixed(2)}x`],
    ['write + fsync + rename every step', durable.msPerStep.toFixed(3), `${(durable.msPerStep / overhead[1]!.msPerStep).toFixed(2)}x`],
  ]);

  out('2. View construction per step: rein (incremental) vs seed (rebuild and re-measure every step)');
  const views = sizes.map((steps) => measureViewConstruction(steps));
  table(['steps', 'rein µs/step', 'seed µs/step', 'seed / rein'], views.map((row) => [
    row.steps, row.reinMicros.toFixed(2), row.seedMicros.toFixed(2), `${(row.seedMicros / row.reinMicros).toFixed(1)}x`,
  ]));

  out('3. Prompt-cache reuse, ~4,000-char tool results, 32K-token window, $3/M uncached, $0.30/M cached');
  const rules = { ...defaultRules().context, windowTokens: 32_768 };
  const rows = [];
  for (const steps of [100, 300, 500]) {
    for (const figures of compareCachePolicies({ steps, resultChars: 4000, windowTokens: 32_768, charsPerToken: 4 }, rules)) {
      rows.push([steps, figures.policy, `${(figures.prefixReuse * 100).toFixed(1)}%`, `${(figures.peakShare * 100).toFixed(1)}%`, figures.promptTokens, figures.cachedTokens, figures.summaries, `$${figures.estimatedCost.toFixed(2)}`]);
    }
  }
  table(['steps', 'context manager', 'prefix reuse', 'peak / window', 'prompt tokens', 'cached tokens', 'summaries', 'est. cost'], rows);
  out('3b. The same session through the real harness (statechart, context manager, tool schemas, calibration from reported prompt_tokens)');
  const endToEnd = [];
  for (const providerCharsPerToken of [4, 2.5]) {
    for (const steps of [100, 300]) endToEnd.push(await measureHarnessPrefix(steps, { providerCharsPerToken }));
  }
  table(['steps', 'provider chars/token', 'prefix reuse', 'requests reusing < 50%', 'peak / window', 'elision passes', 'summaries'], endToEnd.map((row) => [
    row.steps, row.providerCharsPerToken, `${(row.prefixReuse * 100).toFixed(1)}%`, row.breaks, `${(row.peakShare * 100).toFixed(1)}%`, row.elisions, row.summaries,
  ]));

  if (!process.argv.includes('--no-suite')) await suiteSection(out, table);
  if (!process.argv.includes('--no-queue')) await queueSection(out, table);
  if (process.argv.includes('--write')) writeFigures(written.join('\n'));
}

async function queueSection(out: (text: string) => void, table: (...args: Parameters<typeof formatTable>) => void): Promise<void> {
  out(`5. Eval wall time on the offline suite (eval/suite, preset default): local pool vs a Redis job queue with 1, 2 and 4 workers on this machine (${availableParallelism()} CPUs)`);
  const measured = await measureQueueScaling();
  if (!measured) { out('skipped: redis-server is not installed\n'); return; }
  const { rows, overhead } = measured;
  const [single] = rows;
  table(['setup', 'runs (2 rounds)', 'resolved', 'not done', 'wall seconds, mean', 'round 1, round 2', 'vs local pool, 1 process'], rows.map((row) => [
    row.setup, row.jobs, `${row.resolved}/${row.jobs}`, Object.entries(row.notDone).map(([status, count]) => `${count} ${status}`).join(', ') || '-',
    row.wallSeconds.toFixed(1), row.rounds.map((seconds) => seconds.toFixed(1)).join(', '), `${(row.wallSeconds / single!.wallSeconds).toFixed(2)}x`,
  ]));
  table(['queue overhead per job, 1 worker (median ms)', 'worker: fetch, check, pack', 'result back on disk', 'worker takes the next job', 'total'], [[
    'measured per job', overhead.workerMs.toFixed(0), overhead.returnMs.toFixed(0), overhead.pickupMs.toFixed(0), overhead.totalMs.toFixed(0),
  ]]);
}

async function suiteSection(out: (text: string) => void, table: (...args: Parameters<typeof formatTable>) => void): Promise<void> {
  out('4. Tokens per solved task on the offline simulated suite (eval/suite; a simulation of the harness, not a model benchmark; nominal $3/$0.30/$15 per M)');
  const suite = await measureSuiteTokens(2);
  table(['preset', 'resolved', 'prompt tokens', 'cached share', 'est. cost', 'cost per solved task', 'agent seconds'], suite.map((row) => [
    row.preset, `${row.resolved}/${row.tasks}`, row.promptTokens, `${(row.cachedShare * 100).toFixed(1)}%`, `$${row.costUsd.toFixed(3)}`,
    Number.isNaN(row.costPerSolved) ? '-' : `$${row.costPerSolved.toFixed(4)}`, Math.round(row.wallSeconds),
  ]));
}

/**
 * `--write`: puts this run's tables into BENCHMARKS.md between its figure markers; with `section`
 * (`--queue-only`), only that section's tables, from its heading to the next one or the end marker.
 */
function writeFigures(text: string, section?: string): void {
  const path = new URL('../../BENCHMARKS.md', import.meta.url);
  const document = readFileSync(path, 'utf8');
  const figures = text.replace(/^(\d[a-z]?\. .*)$/gm, '### $1');
  const updated = section
    ? document.replace(new RegExp(`### ${section}\\. [\\s\\S]*?(?=### |<!-- figures:end -->)|(?=<!-- figures:end -->)`), figures + '\n')
    : document.replace(/<!-- figures:start -->[\s\S]*<!-- figures:end -->/, `<!-- figures:start -->\n${figures}\n<!-- figures:end -->`);
  writeFileSync(path, updated);
  process.stdout.write('BENCHMARKS.md: figures updated\n');
}

await main();