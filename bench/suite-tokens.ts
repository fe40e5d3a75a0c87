import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfigurations } from '../eval/configurations.js';
import { runEval } from '../eval/eval-runner.js';
import { PRESETS } from '../rules/presets.js';

/** Per preset, over the offline suite: what it solved and what it spent. */
export interface SuiteTokens {
  preset: string;
  resolved: number;
  tasks: number;
  promptTokens: number;
  cachedShare: number;
  costUsd: number;
  costPerSolved: number;
  wallSeconds: number;
}

/**
 * Runs the offline simulated suite (eval/suite) under every preset and
 * totals tokens and nominal cost per preset. A simulation of the harness's
 * behaviour, not a benchmark of any model.
 */
export async function measureSuiteTokens(parallel: number): Promise<SuiteTokens[]> {
  const outDir = mkdtempSync(join(tmpdir(), 'rein-bench-suite-'));
  const tasksDir = fileURLToPath(new URL('../../eval/suite', import.meta.url));
  const presets = PRESETS.map((preset) => preset.name);
  const result = await runEval({ tasksDir, configurations: parseConfigurations(presets, []), repeat: 1, parallel, outDir, progress: { isTTY: false, write: () => true } });
  const records = result.view.records;
  rmSync(outDir, { recursive: true, force: true });
  return presets.map((preset) => {
    const runs = records.filter((record) => record.config === preset);
    const sum = (pick: (record: (typeof runs)[number]) => number) => runs.reduce((total, record) => total + pick(record), 0);
    const resolved = runs.filter((record) => record.resolved).length;
    const promptTokens = sum((record) => record.promptTokens);
    const costUsd = sum((record) => record.costUsd);
    return {
      preset, resolved, tasks: runs.length, promptTokens,
      cachedShare: promptTokens > 0 ? sum((record) => record.cachedTokens) / promptTokens : 0,
      costUsd, costPerSolved: resolved > 0 ? costUsd / resolved : Number.NaN, wallSeconds: sum((record) => record.wallSeconds),
    };
  });
}
