import { describe, expect, it } from 'vitest';
import { compareRecords } from '../../eval/comparison.js';
import { outcomesByTask } from '../../eval/outcomes.js';
import { type RunRecord, runRecordSchema } from '../../eval/run-record.js';
import { makeTempDir } from '../../testing/temp-dir.js';

function run(task: string, config: string, resolved: boolean, extra: Partial<RunRecord> = {}): RunRecord {
  return runRecordSchema.parse({ task, config, repeat: 0, resolved, status: resolved ? 'done' : 'step_limit', ...extra });
}

describe('pairing runs by task', () => {
  it('pairs only the tasks both sides ran, and names the ones missing on either side', () => {
    const a = ['t1', 't2', 't3', 't4', 't5'].map((task) => run(task, 'A', true));
    const b = [run('t2', 'B', true), run('t3', 'B', false), run('t4', 'B', false), run('t5', 'B', true), run('t6', 'B', true)];
    const comparison = compareRecords(a, b, 'A', 'B');
    expect(comparison.tasks).toEqual(['t2', 't3', 't4', 't5']);
    expect(comparison.missingInB).toEqual(['t1']);
    expect(comparison.missingInA).toEqual(['t6']);
    expect(comparison.onlyA).toEqual(['t3', 't4']);
    expect(comparison.onlyB).toEqual([]);
    expect([comparison.resolvedA, comparison.resolvedB]).toEqual([4, 2]);
    expect(comparison.pValue).toBe(0.5);
    expect(comparison.byMajority).toBe(false);
  });

  it('folds repeats into one outcome per task by strict majority (a tie is unsolved)', () => {
    const records = [
      run('two-of-three', 'A', true, { repeat: 0 }),
      run('two-of-three', 'A', true, { repeat: 1 }),
      run('two-of-three', 'A', false, { repeat: 2 }),
      run('tie', 'A', true, { repeat: 0 }),
      run('tie', 'A', false, { repeat: 1 }),
      run('one-of-three', 'A', false, { repeat: 0 }),
      run('one-of-three', 'A', true, { repeat: 1 }),
      run('one-of-three', 'A', false, { repeat: 2 }),
    ];
    const outcomes = outcomesByTask(records);
    expect(outcomes.get('two-of-three')).toMatchObject({ resolved: true, runs: 3, resolvedRuns: 2 });
    expect(outcomes.get('tie')).toMatchObject({ resolved: false, runs: 2, resolvedRuns: 1 });
    expect(outcomes.get('one-of-three')?.resolved).toBe(false);
    const comparison = compareRecords(
      records,
      records.map((record) => ({ ...record, config: 'B', resolved: true })),
      'A',
      'B',
    );
    expect(comparison.byMajority).toBe(true);
    expect(comparison.onlyB).toEqual(['one-of-three', 'tie']);
  });

  it('reports mean cost, steps and tokens per task over paired tasks, with B − A deltas', () => {
    const a = [
      run('t1', 'A', true, { costUsd: 0.02, steps: 10, promptTokens: 900, completionTokens: 100 }),
      run('t2', 'A', true, { costUsd: 0.04, steps: 20, promptTokens: 1800, completionTokens: 200 }),
    ];
    const b = [
      run('t1', 'B', false, { costUsd: 0.01, steps: 4, promptTokens: 400, completionTokens: 100 }),
      run('t2', 'B', true, { costUsd: 0.01, steps: 6, promptTokens: 500, completionTokens: 100 }),
    ];
    const comparison = compareRecords(a, b, 'A', 'B');
    expect(comparison.cost.a).toBeCloseTo(0.03);
    expect(comparison.cost.delta).toBeCloseTo(-0.02);
    expect(comparison.steps).toEqual({ a: 15, b: 5, delta: -10 });
    expect(comparison.tokens).toEqual({ a: 1500, b: 550, delta: -950 });
  });
});

describe('rein compare on one eval output folder', () => {
  it('takes the configurations in the order the eval was asked for them, not the order runs finished', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { cleanEnv, runCli } = await import('../helpers/cli.js');
    const dir = makeTempDir('rein-compare-order-', { until: 'exit' });
    // The ablation's runs happened to finish first.
    const records = [run('t1', 'no-verification-gate', false), run('t1', 'default', true), run('t2', 'no-verification-gate', true), run('t2', 'default', true)];
    writeFileSync(join(dir, 'results.jsonl'), records.map((record) => JSON.stringify(record)).join('\n') + '\n');
    writeFileSync(join(dir, 'eval.json'), JSON.stringify({ version: 1, configurations: [{ label: 'default' }, { label: 'no-verification-gate' }] }));
    const result = await runCli(['compare', dir], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/default vs no-verification-gate/);
    expect(result.stdout).toMatch(/only_a \(default solved, no-verification-gate failed\): 1: t1/);
    // Given the results file itself, the same order.
    const byFile = await runCli(['compare', join(dir, 'results.jsonl')], { env: cleanEnv() });
    expect(byFile.stdout).toMatch(/default vs no-verification-gate/);
  });
});
