import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../eval/run-record.js';
import { loadInstances } from '../../eval/swebench/instance.js';
import { atifTrajectorySchema } from '../../telemetry/atif/atif-schema.js';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeSweBenchFixture, type SweBenchFixture } from '../helpers/swebench-fixtures.js';

/** Where a command git ran on rein's behalf (outside the sandbox) would leave its mark. */
const MARKER = join(makeTempDir('rein-swebench-marker-', { until: 'exit' }), 'pwned');

/** A model that fixes the calc instance (and writes its own copy of the hidden test, which must not reach the patch) and gives up on strs. */
function policy(request: StubRequest) {
  const task = String(request.messages[1]?.content ?? '');
  const last = request.messages.at(-1)!;
  const text = typeof last.content === 'string' ? last.content : '';
  const id = `call_${request.messages.length}`;
  const act = (name: string, args: unknown) => ({ toolCalls: [{ id, name, arguments: args }] });
  const asked = request.messages.at(-2);
  const lastCommand = asked?.role === 'assistant' ? (asked.tool_calls?.[0]?.function.arguments ?? '') : '';
  if (task.includes('whisper')) {
    // A hostile agent: it configures a command for git to run when rein next looks at the workspace.
    if (!request.messages.some((message) => message.role === 'tool')) return act('run', { command: `git config core.fsmonitor 'touch ${MARKER}'` });
    // The sandbox keeps .git/config read-only, so the command may fail there: either way rein's own git must not run it.
    if (lastCommand.includes('git config')) return act('run', { command: 'node --test' });
    if (text.startsWith('exit=0')) return act('finish', { summary: 'Could not find the bug.' });
    return { content: `unexpected: ${text.slice(0, 60)}` };
  }
  if (!request.messages.some((message) => message.role === 'tool')) return act('read_file', { path: 'calc.js' });
  if (text.startsWith('[calc.js')) return act('edit_file', { path: 'calc.js', old: 'mul = (a, b) => a + b', new: 'mul = (a, b) => a * b' });
  if (text.startsWith('Edit applied')) return act('run', { command: "echo '// my own test' > test/mul.test.js" });
  if (text.startsWith('exit=0') && lastCommand.includes('echo')) return act('run', { command: 'node --test' });
  if (text.startsWith('exit=0')) return act('finish', { summary: 'mul() multiplies.' });
  return { content: `unexpected: ${text.slice(0, 60)}` };
}

const records = (out: string): RunRecord[] =>
  readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('SWE-bench instances in rein eval, against local repositories', () => {
  let stub: OpenAIStub;
  let fixture: SweBenchFixture;
  let out: string;
  let result: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    stub = await startOpenAIStub(policy);
    fixture = makeSweBenchFixture();
    out = join(makeTempDir('rein-swebench-out-', { until: 'exit' }), 'out');
    result = await runCli(
      [
        'eval',
        fixture.instancesFile,
        '--repos',
        fixture.reposDir,
        '--model',
        'stub-model',
        '--preset',
        'default',
        '--preset',
        'no-plan',
        '--out',
        out,
        '--parallel',
        '2',
        '--atif',
        '--json',
      ],
      { env: cleanEnv({ OPENAI_BASE_URL: stub.url }), timeoutMs: 120_000 },
    );
  }, 150_000);
  afterAll(async () => {
    await stub.close();
  });

  it('reads SWE-bench records (test lists as JSON strings), skipping a missing commit and a broken line with reasons', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/skipped task acme__calc-3: .*does not have base_commit f{40}/);
    expect(result.stderr).toMatch(/skipped task line 4: not valid JSON/);
    const { instances } = loadInstances(fixture.instancesFile);
    expect(instances[0]!.FAIL_TO_PASS).toEqual(['test/mul.test.js']);
  });

  it('grades by FAIL_TO_PASS and PASS_TO_PASS with the test patch applied over the agent’s work', () => {
    const all = records(out);
    expect(all).toHaveLength(4);
    for (const config of ['default', 'no-plan']) {
      const calc = all.find((record) => record.task === 'acme__calc-1' && record.config === config)!;
      expect(calc).toMatchObject({
        resolved: true,
        status: 'done',
        failToPass: { passed: ['test/mul.test.js'], failed: [] },
        passToPass: { passed: ['test/add.test.js'] },
      });
      const strs = all.find((record) => record.task === 'acme__strs-2' && record.config === config)!;
      expect(strs).toMatchObject({
        resolved: false,
        failToPass: { passed: [], failed: ['test/whisper.test.js'] },
        passToPass: { passed: ['test/shout.test.js'] },
      });
      expect(strs.checkOutput).toContain('FAIL_TO_PASS 0/1 pass');
    }
  });

  it('writes predictions.jsonl as the official harness takes it: the diff against base_commit, without tests or rein’s files, that applies to a fresh checkout', () => {
    const lines = readFileSync(join(out, 'predictions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => Object.keys(line).sort())).toEqual([
      ['instance_id', 'model_name_or_path', 'model_patch'],
      ['instance_id', 'model_name_or_path', 'model_patch'],
    ]);
    const calc = lines.find((line) => line.instance_id === 'acme__calc-1')!;
    expect(calc.model_name_or_path).toBe('rein/default/stub-model');
    expect(calc.model_patch).toContain('diff --git a/calc.js b/calc.js');
    expect(calc.model_patch).toContain('+export const mul = (a, b) => a * b;');
    expect(calc.model_patch).not.toContain('test/mul.test.js');
    expect(calc.model_patch).not.toContain('.rein/');
    expect(lines.find((line) => line.instance_id === 'acme__strs-2')!.model_patch).toBe('');
    // The patch applies at base_commit in a clean clone, as the harness will apply it.
    const clone = mkdtempSync(join(makeTempDir('rein-swebench-apply-'), 'c'));
    execFileSync('git', ['clone', '-q', join(fixture.reposDir, 'acme__calc'), clone]);
    execFileSync('git', ['checkout', '-q', fixture.calcBase], { cwd: clone });
    writeFileSync(join(clone, 'model.patch'), calc.model_patch);
    execFileSync('git', ['apply', '--check', 'model.patch'], { cwd: clone });
    const other = readFileSync(join(out, 'predictions-no-plan.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(other.map((line) => line.model_name_or_path)).toEqual(['rein/no-plan/stub-model', 'rein/no-plan/stub-model']);
  });

  it('never runs a command the agent configured in its checkout’s git config when it diffs and grades', () => {
    const strs = records(out).filter((record) => record.task === 'acme__strs-2');
    expect(strs.map((record) => record.status)).toEqual(['done', 'done']);
    expect(existsSync(MARKER)).toBe(false);
  });

  it('leaves the source repositories untouched and writes an ATIF trajectory beside each run', () => {
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: join(fixture.reposDir, 'acme__calc'), encoding: 'utf8' })).toBe('');
    expect(execFileSync('git', ['branch', '--format=%(refname:short)'], { cwd: join(fixture.reposDir, 'acme__calc'), encoding: 'utf8' }).trim()).toBe('main');
    for (const record of records(out)) {
      const trajectory = atifTrajectorySchema.parse(JSON.parse(readFileSync(join(out, record.tracePath, '..', 'trajectory.json'), 'utf8')));
      expect(trajectory.steps[1]!.message).toContain(record.task === 'acme__calc-1' ? 'mul(2, 3) returns 5' : 'whisper');
    }
  });

  it('the paired comparison works on these results (rein compare, exact McNemar)', async () => {
    const compared = await runCli(['compare', out, '--json']);
    expect(compared.code, compared.stderr).toBe(0);
    expect(JSON.parse(compared.stdout)).toMatchObject({
      tasks: 2,
      only_a: 0,
      only_b: 0,
      p_value: 1,
      resolved_a: 1,
      resolved_b: 1,
      paired_tasks: ['acme__calc-1', 'acme__strs-2'],
    });
  });

  it('says what is missing: --repos for an instance file; --queue is refused for one', async () => {
    const noRepos = await runCli(['eval', fixture.instancesFile, '--model', 'stub-model', '--out', join(out, '..', 'x')], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(noRepos.code).toBe(2);
    expect(noRepos.stderr).toMatch(/is a SWE-bench instance file: pass --repos DIR/);
    const queued = await runCli(['eval', fixture.instancesFile, '--repos', fixture.reposDir, '--model', 'm', '--queue', 'redis://127.0.0.1:9'], {
      env: cleanEnv(),
    });
    expect(queued.code).toBe(2);
    expect(queued.stderr).toMatch(/drop --queue/);
    const noModel = await runCli(['eval', fixture.instancesFile, '--repos', fixture.reposDir], { env: cleanEnv() });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/pass --model NAME/);
  });
});
