import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RulesInput } from 'rein/rules';
import { parseConfigurations } from 'rein-eval/configurations.js';
import { runEval } from 'rein-eval/eval-runner.js';
import type { RunRecord } from 'rein-eval/run-record.js';
import { inCheckout } from './checkout.js';
import { inProcessRunner } from './in-process-runner.js';

/** Per configuration, over the offline suite: what it solved and what it spent. */
export interface SuiteTokens {
  config: string;
  resolved: number;
  tasks: number;
  /** Task ids it solved. */
  solved: string[];
  promptTokens: number;
  cachedShare: number;
  costUsd: number;
  costPerSolved: number;
  wallSeconds: number;
}

/** A configuration of the suite run: a preset, or a preset with rules layered on top (written to a temp rules file). */
export interface SuiteConfiguration {
  label: string;
  preset: string;
  rules?: RulesInput;
}

/**
 * Runs the offline simulated suite (eval/suite) under each configuration,
 * optionally on some tasks only, and totals tokens and nominal cost per
 * configuration. The runs are the eval's own jobs, run in this process
 * (`inProcessRunner`) rather than a process each. A simulation of the harness's behaviour, not a benchmark of
 * any model.
 *
 * @example const rows = await measureSuiteTokens([{ label: 'default', preset: 'default' }], { parallel: 2 });
 */
export async function measureSuiteTokens(
  configurations: readonly SuiteConfiguration[],
  options: { parallel: number; only?: string[] },
): Promise<SuiteTokens[]> {
  const outDir = mkdtempSync(join(tmpdir(), 'rein-bench-suite-'));
  try {
    const tasksDir = inCheckout('eval', 'suite');
    const layered = configurations
      .filter((configuration) => configuration.rules)
      .map((configuration) => {
        const path = join(outDir, `${configuration.label}.json`);
        writeFileSync(path, JSON.stringify(configuration.rules));
        return `${configuration.preset}:${path}`;
      });
    const plain = configurations.filter((configuration) => !configuration.rules);
    const parsed = parseConfigurations(
      plain.map((configuration) => configuration.preset),
      layered,
    );
    const result = await runEval({
      tasksDir,
      configurations: parsed,
      repeat: 1,
      parallel: options.parallel,
      runner: inProcessRunner(options.parallel),
      outDir: join(outDir, 'eval'),
      ...(options.only ? { only: options.only } : {}),
      progress: { isTTY: false, write: () => true },
    });
    // parseConfigurations keeps the order it was given (presets, then rules files), and labels a layered one
    // `preset:file`: map each back to the label asked for.
    const ordered = [...plain, ...configurations.filter((configuration) => configuration.rules)];
    const labelOf = new Map(parsed.map((configuration, index) => [configuration.label, ordered[index]!.label]));
    return configurations.map((configuration) =>
      totals(
        configuration.label,
        result.view.records.filter((record) => labelOf.get(record.config) === configuration.label),
      ),
    );
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

function totals(config: string, runs: readonly RunRecord[]): SuiteTokens {
  const sum = (pick: (record: RunRecord) => number) => runs.reduce((total, record) => total + pick(record), 0);
  const solved = runs
    .filter((record) => record.resolved)
    .map((record) => record.task)
    .sort();
  const promptTokens = sum((record) => record.promptTokens);
  const costUsd = sum((record) => record.costUsd);
  return {
    config,
    resolved: solved.length,
    tasks: runs.length,
    solved,
    promptTokens,
    cachedShare: promptTokens > 0 ? sum((record) => record.cachedTokens) / promptTokens : 0,
    costUsd,
    costPerSolved: solved.length > 0 ? costUsd / solved.length : Number.NaN,
    wallSeconds: sum((record) => record.wallSeconds),
  };
}
