import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentUsageRows } from '../../eval/agent-usage.js';
import { type RunRecord, runRecordSchema } from '../../eval/run-record.js';
import { createSimulatedReviewer } from '../../eval/simulated/reviewer.js';
import { simulationSchema } from '../../eval/simulated/simulation-schema.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, runCli } from '../helpers/cli.js';

const simulation = simulationSchema.parse({
  fixes: [
    { path: 'cart.js', old: 'sum + line.price, 0)', new: 'sum + line.price * line.qty, 0)', todo: 'subtotal: price times quantity' },
    { path: 'lib/coupon.js', old: 'return amount - coupon.value;', new: 'return Math.max(0, amount - coupon.value);', todo: 'never below zero' },
  ],
});

/** Drives the reviewer: each read is answered with the given file's text, as read_file shows it. */
function review(files: Record<string, string>): string {
  const reviewer = createSimulatedReviewer(simulation);
  let results: string[] = [];
  for (let call = 0; call < 5; call++) {
    const reply = reviewer([], { call, lastResults: results });
    if (reply instanceof Error) throw reply;
    const [first] = reply.calls ?? [];
    const args = first!.args as { path?: string; summary?: string };
    if (first!.name === 'finish') return String(args.summary);
    expect(first!.name).toBe('read_file');
    results = [`[${args.path}: lines 1-1 of 1]\n     1  ${files[args.path!] ?? ''}`];
  }
  throw new Error('the reviewer never finished');
}

describe('the simulated reviewer (eval/simulated/reviewer.ts)', () => {
  it('reads each file the fixes touch, approves when every fix is in, rejects quoting the line still to change', () => {
    expect(review({ 'cart.js': 'sum + line.price * line.qty, 0)', 'lib/coupon.js': 'return Math.max(0, amount - coupon.value);' })).toBe(
      'APPROVE: every requirement of the task is in the code.',
    );
    expect(review({ 'cart.js': 'sum + line.price * line.qty, 0)', 'lib/coupon.js': 'return amount - coupon.value;' })).toBe(
      'REJECT: lib/coupon.js: never below zero (it still has `return amount - coupon.value;`)',
    );
  });
});

describe('usage per agent in eval reports (eval/agent-usage.ts)', () => {
  const record = (config: string, costUsd: number, agents?: RunRecord['agents']) =>
    runRecordSchema.parse({ task: 't', config, repeat: 0, resolved: true, status: 'done', steps: 4, costUsd, ...(agents ? { agents } : {}) });
  it('splits each delegating configuration by agent, a run without a split counting as all main; shares add up', () => {
    const agents = [
      { agent: 'main', runs: 1, steps: 4, promptTokens: 100, completionTokens: 10, costUsd: 0.03 },
      { agent: 'reviewer', runs: 2, steps: 4, promptTokens: 40, completionTokens: 4, costUsd: 0.01 },
    ];
    const rows = agentUsageRows([record('plain', 0.02), record('recipe', 0.04, agents), record('recipe', 0.04)], ['plain', 'recipe']);
    expect(rows).toEqual([
      ['recipe', 'main', '-', '4.0', '55', '$0.0350', '88%'],
      ['recipe', 'reviewer', '1.0', '2.0', '22', '$0.0050', '13%'],
    ]);
  });
});

describe('rein eval: the reviewer recipe against the same rules without it, paired (the offline suite)', () => {
  it('the reviewer catches what no-plan misses, at a cost the report splits by agent', { timeout: 120_000 }, async () => {
    const out = makeTempDir('rein-eval-reviewer-');
    const result = await runCli(
      [
        'eval',
        'eval/suite',
        '--preset',
        'no-plan',
        '--config',
        'no-plan:docs/cookbook/reviewer-agent.json',
        '--task',
        'js-cart',
        '--task',
        'py-temperature',
        '--out',
        out,
        '--parallel',
        '2',
        '--json',
      ],
      { env: cleanEnv(), timeoutMs: 110_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as { comparisons: Array<{ onlyA: string[]; onlyB: string[]; pValue: number }> };
    expect(json.comparisons[0]).toMatchObject({ onlyA: [], onlyB: ['js-cart', 'py-temperature'], pValue: 0.5 });
    const records = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => runRecordSchema.parse(JSON.parse(line)));
    for (const reviewed of records.filter((entry) => entry.config === 'no-plan:reviewer-agent')) {
      expect(reviewed.agents?.map((entry) => entry.agent)).toEqual(['main', 'reviewer']);
      expect(reviewed.agents!.reduce((sum, entry) => sum + entry.costUsd, 0)).toBeCloseTo(reviewed.costUsd, 10);
    }
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('## Usage per agent');
  });
});
