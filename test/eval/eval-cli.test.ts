import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../eval/run-record.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, reinBin, repoRoot, runCli } from '../helpers/cli.js';
import { checkHtml, writeTaskSet } from './eval-fixtures.js';

/** A temp dir kept for every test of this file. */
function tempDir(prefix: string): string {
  return makeTempDir(prefix, { until: 'exit' });
}

function results(out: string): RunRecord[] {
  return readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunRecord);
}

function find(records: RunRecord[], task: string, config: string): RunRecord {
  const record = records.find((entry) => entry.task === task && entry.config === config);
  if (!record) throw new Error(`no record for ${task} × ${config}`);
  return record;
}

describe('rein eval', () => {
  it('runs every task under every configuration in child processes; a crash and a hang are recorded and the rest finish', async () => {
    const tasks = writeTaskSet(['add', 'shout', 'crash', 'hang'], { broken: true });
    const out = join(tempDir('rein-eval-out-'), 'out');
    const result = await runCli(['eval', tasks, '--preset', 'default', '--preset', 'no-verification-gate', '--out', out, '--parallel', '4', '--json'], {
      env: cleanEnv(),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('skipped task broken: task.json: check_cmd');

    const records = results(out);
    expect(records).toHaveLength(8);
    expect(find(records, 'add', 'default')).toMatchObject({ resolved: true, status: 'done', price: 'nominal', model: 'simulated:finish-without-verifying' });
    expect(find(records, 'add', 'default').gateRefusals).toBeGreaterThan(0);
    expect(find(records, 'add', 'default').costUsd).toBeGreaterThan(0);
    expect(find(records, 'add', 'no-verification-gate')).toMatchObject({ resolved: false, status: 'done', gateRefusals: 0 });
    expect(find(records, 'shout', 'no-verification-gate').resolved).toBe(true);
    expect(find(records, 'crash', 'default')).toMatchObject({ resolved: false, status: 'crash' });
    expect(find(records, 'crash', 'default').reason).toContain('SIGKILL');
    expect(find(records, 'hang', 'default')).toMatchObject({ resolved: false, status: 'timeout' });
    expect(find(records, 'hang', 'default').reason).toMatch(/killed: no result after the agent phase's 1 s limit/);
    for (const record of records) expect(existsSync(join(out, record.tracePath)), record.tracePath).toBe(true);
    // The killed workers could not remove their temp workspaces; the parent did.
    expect(readdirSync(tmpdir()).filter((name) => /^rein-eval-(crash|hang)-/.test(name))).toEqual([]);

    const json = JSON.parse(result.stdout) as { comparisons: Array<{ onlyA: string[]; onlyB: string[]; pValue: number }>; skipped: Array<{ id: string }> };
    expect(json.comparisons[0]).toMatchObject({ onlyA: ['add'], onlyB: [], pValue: 1 });
    expect(json.skipped.map((entry) => entry.id)).toEqual(['broken']);

    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('| default | 2/4 (50.0%)');
    expect(summary).toContain('| no-verification-gate | 4 | 2 → 1 | 1 | 0 | 1.0000 |');
    expect(summary).toMatch(/crash/);
    const report = readFileSync(join(out, 'report.html'), 'utf8');
    const tags = checkHtml(report);
    expect(tags).toContain('svg');
    expect(report).toContain('class="fail flip"');
    expect(report).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(report).not.toContain('<script');

    const compare = await runCli(['compare', `${out}#default`, `${out}#no-verification-gate`, '--json'], { env: cleanEnv() });
    expect(compare.code, compare.stderr).toBe(0);
    expect(JSON.parse(compare.stdout)).toMatchObject({ tasks: 4, only_a: 1, only_b: 0, only_a_tasks: ['add'], p_value: 1 });
  }, 60_000);

  it('resumes after the eval was killed: finished runs are kept, the missing ones run', async () => {
    const tasks = writeTaskSet(['shout']);
    const out = join(tempDir('rein-eval-resume-'), 'out');
    const args = ['eval', tasks, '--preset', 'default', '--preset', 'no-verification-gate', '--out', out, '--parallel', '1'];
    const child = spawn(process.execPath, [reinBin, ...args], { cwd: repoRoot, env: cleanEnv(), stdio: 'ignore' });
    const file = join(out, 'results.jsonl');
    for (let waited = 0; waited < 40_000 && !(existsSync(file) && readFileSync(file, 'utf8').trim().length > 0); waited += 50) await sleep(50);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await sleep(2_000); // the orphaned worker notices its parent is gone and stops
    const before = readFileSync(file, 'utf8');
    const kept = before.trim().split('\n');
    expect(kept).toHaveLength(1);

    const rerun = await runCli(args, { env: cleanEnv(), timeoutMs: 60_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain('resumed: kept 1 finished runs, ran 1');
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const keys = results(out).map((record) => `${record.task}/${record.config}/${record.repeat}`);
    expect(keys.sort()).toEqual(['shout/default/0', 'shout/no-verification-gate/0']);

    const again = await runCli(args, { env: cleanEnv() });
    expect(again.stderr).toContain('resumed: kept 2 finished runs, ran 0');
  }, 90_000);

  it('a --task re-run into the same folder keeps the other tasks in summary.md and report.html', async () => {
    const tasks = writeTaskSet(['add', 'shout']);
    const out = join(tempDir('rein-eval-subset-'), 'out');
    const first = await runCli(['eval', tasks, '--preset', 'default', '--out', out, '--parallel', '2'], { env: cleanEnv(), timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    const subset = await runCli(['eval', tasks, '--preset', 'default', '--out', out, '--task', 'shout'], { env: cleanEnv(), timeoutMs: 60_000 });
    expect(subset.code, subset.stderr).toBe(0);
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toMatch(/\badd\b/);
    expect(summary).toMatch(/\bshout\b/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toMatch(/\badd\b/);
  }, 90_000);
});

describe('rein compare', () => {
  function resultsFile(config: string, solved: boolean[]): string {
    const path = join(tempDir('rein-compare-'), 'results.jsonl');
    writeFileSync(
      path,
      solved.map((resolved, index) => JSON.stringify({ task: `t${index}`, config, repeat: 0, resolved, status: 'done', steps: 10, costUsd: 0.01 })).join('\n') +
        '\n',
    );
    return path;
  }

  it("reproduces the seed's sanity checks: 8 flips one way p = 0.0078; 5 and 3 p = 0.7266", async () => {
    const a = resultsFile(
      'before',
      Array.from({ length: 12 }, () => true),
    );
    const b = resultsFile(
      'after',
      Array.from({ length: 12 }, (_, index) => index >= 8),
    );
    const eight = await runCli(['compare', a, b], { env: cleanEnv() });
    expect(eight.code, eight.stderr).toBe(0);
    expect(eight.stdout).toContain('only_a (before solved, after failed): 8');
    expect(eight.stdout).toContain('exact McNemar p = 0.0078');

    const c = resultsFile('x', [true, true, true, true, true, false, false, false, true, true]);
    const d = resultsFile('y', [false, false, false, false, false, true, true, true, true, false]);
    const split = JSON.parse((await runCli(['compare', c, d, '--json'], { env: cleanEnv() })).stdout) as Record<string, unknown>;
    expect(split).toMatchObject({ tasks: 10, only_a: 6, only_b: 3, p_value: 0.5078 });
    const fiveThree = resultsFile('y', [false, false, false, false, false, true, true, true, true, true]);
    expect(JSON.parse((await runCli(['compare', c, fiveThree, '--json'], { env: cleanEnv() })).stdout)).toMatchObject({
      only_a: 5,
      only_b: 3,
      p_value: 0.7266,
    });
  });

  it('says what is wrong when a side holds several configurations or none match', async () => {
    const a = resultsFile('before', [true]);
    const mixed = join(tempDir('rein-compare-'), 'results.jsonl');
    writeFileSync(mixed, readFileSync(a, 'utf8') + JSON.stringify({ task: 't0', config: 'other', repeat: 0, resolved: false, status: 'done' }) + '\n');
    const result = await runCli(['compare', mixed, a], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('holds 2 configurations (before, other)');
    const both = await runCli(['compare', mixed, '--json'], { env: cleanEnv() });
    expect(JSON.parse(both.stdout)).toMatchObject({ a: { label: 'before' }, b: { label: 'other' }, only_a: 1 });
  });

  it('a file that holds no run records says so, and how many lines it could not read', async () => {
    const garbage = join(tempDir('rein-compare-bad-'), 'results.jsonl');
    writeFileSync(garbage, 'hello\n{"not":"a run"}\n');
    const result = await runCli(['compare', garbage, garbage], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no run records in .*results\.jsonl: 2 line\(s\) are not rein eval results/);
  });

  it("a task's own rules may narrow the configuration's, never widen them: one that turns the sandbox off is refused, the others run", async () => {
    const tasks = writeTaskSet(['add', 'shout']);
    const taskFile = join(tasks, 'add', 'task.json');
    writeFileSync(taskFile, JSON.stringify({ ...JSON.parse(readFileSync(taskFile, 'utf8')), rules: { permissions: { sandbox: 'none' } } }));
    const shoutFile = join(tasks, 'shout', 'task.json');
    writeFileSync(shoutFile, JSON.stringify({ ...JSON.parse(readFileSync(shoutFile, 'utf8')), rules: { budgets: { maxSteps: 30 } } }));
    const out = join(tempDir('rein-eval-task-rules-'), 'out');
    const result = await runCli(['eval', tasks, '--preset', 'default', '--out', out], { env: cleanEnv(), timeoutMs: 60_000 });
    const add = find(results(out), 'add', 'default');
    expect(add).toMatchObject({ status: 'crash', resolved: false });
    expect(add.reason).toMatch(/task add: its task\.json rules loosen the configuration's[\s\S]*permissions\.sandbox/);
    expect(find(results(out), 'shout', 'default').status).not.toBe('crash');
    expect(result.stderr).not.toMatch(/TypeError|at .*\.js:\d+/);
  }, 90_000);
});
