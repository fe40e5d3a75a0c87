import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costOf } from '../../machines/budgets.js';
import { ATIF_SCHEMA_VERSION, type AtifTrajectory, atifTrajectorySchema } from '../../telemetry/atif/atif-schema.js';
import { exportRunAsAtif } from '../../telemetry/atif/export-run.js';
import { call, makeTempDir, reply, runScripted } from '../../testing/index.js';
import { fieldPaths, harborAcceptedPaths } from '../helpers/atif-verdicts.js';

const PRICE = { input: 3, cachedInput: 0.3, output: 15 };
const passingTest = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n`;

const accepted = harborAcceptedPaths();

/**
 * Exports and validates against the ATIF model independently of the exporter's own check, and holds the export to
 * fields Harbor's own validator has accepted in a real trajectory (test/fixtures/atif/harbor-verdicts.jsonl).
 */
function exported(runDir: string): AtifTrajectory {
  const trajectory = exportRunAsAtif(runDir);
  expect(atifTrajectorySchema.safeParse(JSON.parse(JSON.stringify(trajectory))).success).toBe(true);
  expect([...fieldPaths(trajectory)].filter((path) => !accepted.has(path))).toEqual([]);
  return trajectory;
}

const reinOf = (value: { extra?: Record<string, unknown> | null }) => value.extra?.rein as Record<string, unknown>;

describe('ATIF export of a rein run', () => {
  it('binds each reply to its own step whatever ids the provider gave its calls (short ids are renamed in the record)', async () => {
    // Ids like Ollama's, LM Studio's or a scripted model's: under 16 characters, so the record holds call_<step>_<index> instead.
    const ids = ['call_3_0', 'call_0', '1', 'call_3_0'];
    let n = 0;
    const run = await runScripted({
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 4 }, stall: { maxNudges: 100 }, model: { prices: { scripted: PRICE } } },
      script: () => {
        const id = ids[n % ids.length]!;
        n++;
        return reply(call('read_file', { path: n % 2 ? 'a.txt' : 'b.txt' }, id));
      },
    });
    const trajectory = exported(run.runDir);
    expect(trajectory.schema_version).toBe(ATIF_SCHEMA_VERSION);
    const models = run.lines('model');
    const agents = trajectory.steps.filter((step) => step.source === 'agent');
    expect(agents).toHaveLength(models.length);
    agents.forEach((step, index) => {
      const usage = models[index]!.usage as { promptTokens: number; completionTokens: number };
      expect(reinOf(step)).toMatchObject({
        step: index + 1,
        phase: expect.any(String),
        tools: [expect.objectContaining({ id: step.tool_calls![0]!.tool_call_id })],
      });
      expect(reinOf(step).no_trace_line).toBeUndefined();
      expect(step.metrics).toMatchObject({ prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens });
      expect(step.llm_call_count).toBe(1);
      expect(step.timestamp).toBe(new Date(Math.round((models[index]!.t as number) * 1000)).toISOString());
    });
    expect(reinOf(trajectory).discarded_replies).toEqual([]);
    expect(trajectory.notes).toBeUndefined();
  });

  it('gives every run its own session id, a UUID, even when run directories share a name (as every run under Harbor does)', async () => {
    const runIn = (parent: string) =>
      runScripted({
        files: { 'a.txt': 'a\n' },
        testCmd: 'true',
        runDir: join(parent, 'rein-run'),
        rules: { budgets: { maxSteps: 1 } },
        script: [reply(call('read_file', { path: 'a.txt' }))],
      });
    const first = await runIn(makeTempDir('rein-atif-a-'));
    const second = await runIn(makeTempDir('rein-atif-b-'));
    const a = exported(first.runDir);
    const b = exported(second.runDir);
    expect(a.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.session_id).not.toBe(a.session_id);
    // The same run exported again keeps its id.
    expect(exported(first.runDir).session_id).toBe(a.session_id);
  });

  it('a run that recorded no message still has the one step ATIF needs', () => {
    const dir = makeTempDir('rein-atif-empty-');
    // Killed between its start line and the record's first message (a start line from a trace that names no task).
    const lines = [
      { i: 0, t: 1_700_000_000, kind: 'start', version: 1, model: 'm', runDir: dir },
      { i: 1, t: 1_700_000_001, kind: 'crash', error: 'died before starting' },
    ];
    writeFileSync(join(dir, 'trace.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    writeFileSync(join(dir, 'record.jsonl'), '');
    const trajectory = exported(dir);
    expect(trajectory.steps).toEqual([expect.objectContaining({ step_id: 1, source: 'system', message: 'The run recorded no messages.' })]);
    expect(reinOf(trajectory).outcome).toEqual({ status: 'crashed', error: 'died before starting' });
  });

  it('has a step per message and model call, calls tied to their results, per-step tokens and cost, totals and gate decisions', async () => {
    const run = await runScripted({
      files: { 'add.js': 'export const add = (a, b) => a - b;\n', 'add.test.js': passingTest },
      testCmd: 'node --test',
      rules: { model: { prices: { scripted: PRICE } } },
      script: [
        reply(call('edit_file', { path: 'add.js', old: 'a - b', new: 'a + b' })),
        reply(call('finish', { summary: 'fixed' })),
        reply(call('run', { command: 'node --test' })),
        reply(call('finish', { summary: 'fixed and tested' })),
      ],
    });
    const trajectory = exported(run.runDir);
    expect(trajectory.agent).toMatchObject({ name: 'rein', model_name: 'scripted', extra: { rules: { model: { prices: { scripted: PRICE } } } } });
    expect(trajectory.steps.map((step) => step.source)).toEqual(['system', 'user', 'agent', 'agent', 'agent', 'agent']);
    expect(trajectory.steps[1]!.message).toContain('Make the tests pass.');
    const models = run.lines('model');
    const agents = trajectory.steps.filter((step) => step.source === 'agent');
    agents.forEach((step, index) => {
      const usage = models[index]!.usage as { promptTokens: number; completionTokens: number; cachedTokens: number };
      expect(step.metrics).toMatchObject({ prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, cached_tokens: usage.cachedTokens });
      expect(step.metrics!.cost_usd).toBeCloseTo(costOf(usage, PRICE), 12);
      // Every call has exactly its result, tied by id.
      expect(step.observation!.results.map((result) => result.source_call_id)).toEqual(step.tool_calls!.map((toolCall) => toolCall.tool_call_id));
    });
    expect(agents.some((step) => (step.metrics!.cached_tokens ?? 0) > 0)).toBe(true);
    expect(agents[0]!.tool_calls![0]).toMatchObject({ function_name: 'edit_file', arguments: { path: 'add.js', old: 'a - b', new: 'a + b' } });
    expect(agents[1]!.observation!.results[0]!.content).toMatch(/^Not yet/);
    expect(reinOf(agents[1]!).gate).toEqual([expect.objectContaining({ allowed: false, why: 'no passing test run after the last edit' })]);
    expect(reinOf(agents[0]!).phase).toBe('plan');
    const end = run.lines('end')[0]!.usage as { promptTokens: number; completionTokens: number; cachedTokens: number; costUsd: number };
    expect(trajectory.final_metrics).toMatchObject({
      total_prompt_tokens: end.promptTokens,
      total_completion_tokens: end.completionTokens,
      total_cached_tokens: end.cachedTokens,
      total_steps: 6,
    });
    expect(trajectory.final_metrics!.total_cost_usd).toBeCloseTo(end.costUsd, 12);
    expect(reinOf(trajectory).outcome).toMatchObject({ status: 'done', summary: 'fixed and tested' });
  }, 90_000);

  it('a stall nudge is a user step marked as a harness notice, and the stall is under the step that fired it', async () => {
    const run = await runScripted({
      files: { 'x.txt': 'x' },
      testCmd: 'node --test',
      rules: { budgets: { maxSteps: 30 } },
      script: () => reply(call('run', { command: 'cat missing.txt' })),
    });
    expect(run.output.status).toBe('stalled');
    const trajectory = exported(run.runDir);
    const notices = trajectory.steps.filter((step) => step.source === 'user' && reinOf(step)?.kind === 'harness_notice');
    expect(notices.length).toBeGreaterThan(0);
    expect(notices[0]!.message).toContain('Do something different');
    const stalled = trajectory.steps.filter((step) => Array.isArray(reinOf(step)?.stalls));
    expect(stalled).toHaveLength(run.lines('stall').length);
    expect(reinOf(trajectory).stall_nudges).toHaveLength(run.lines('stall').length);
    expect(reinOf(trajectory).outcome).toMatchObject({ status: 'stalled' });
  });

  it('a compacted run still exports every message of the record, with the compactions under extra', async () => {
    const big = 'line of a rather large file that fills the window\n'.repeat(120);
    let n = 0;
    const run = await runScripted({
      files: Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`f${index}.txt`, big])),
      testCmd: 'true',
      rules: { budgets: { maxSteps: 8 }, context: { windowTokens: 6_000, summarize: false }, stall: { maxNudges: 100 } },
      script: () => reply(call('read_file', { path: `f${n++ % 8}.txt` })),
    });
    expect(run.lines('context').length).toBeGreaterThan(0);
    const trajectory = exported(run.runDir);
    const results = trajectory.steps.flatMap((step) => step.observation?.results ?? []);
    expect(results).toHaveLength(run.record.filter((message) => message.role === 'tool').length);
    // The record is the full history: results shortened in the model's view are whole here.
    expect(results.every((result) => (result.content ?? '').length > big.length / 2)).toBe(true);
    expect((reinOf(trajectory).compactions as unknown[]).length).toBe(run.lines('context').length);
    expect(trajectory.steps.some((step) => Array.isArray(reinOf(step)?.compactions))).toBe(true);
  });

  it('a run killed mid-write (a cut trace line, a cut record) exports what it holds, says so, and has no end', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'a\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 4 }, stall: { maxNudges: 100 } },
      script: () => reply(call('read_file', { path: 'a.txt' })),
    });
    const tracePath = join(run.runDir, 'trace.jsonl');
    const lines = readFileSync(tracePath, 'utf8').split('\n');
    const secondModel = lines.findIndex(
      (line, index) => line.includes('"kind":"model"') && lines.slice(0, index).some((before) => before.includes('"kind":"model"')),
    );
    writeFileSync(tracePath, `${lines.slice(0, secondModel + 1).join('\n')}\n{"i":999,"t":1,"kind":"to`);
    const recordPath = join(run.runDir, 'record.jsonl');
    const record = readFileSync(recordPath, 'utf8').split('\n');
    writeFileSync(recordPath, `${record.slice(0, 5).join('\n')}\n{"role":"tool","tool_c`);
    const trajectory = exported(run.runDir);
    expect(trajectory.steps.map((step) => step.source)).toEqual(['system', 'user', 'agent', 'agent']);
    expect(trajectory.steps[3]!.observation).toBeUndefined();
    expect(trajectory.notes).toMatch(/1 trace line\(s\) did not parse/);
    expect(reinOf(trajectory).outcome).toEqual({ status: 'unfinished' });
    expect(trajectory.final_metrics!.extra).toMatchObject({ model_calls: 2 });
  });

  it('a reply the trace holds but the record lost is not a step: it is listed as discarded, and its tokens still count', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'a\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 3 }, stall: { maxNudges: 100 } },
      script: () => reply(call('read_file', { path: 'a.txt' })),
    });
    const recordPath = join(run.runDir, 'record.jsonl');
    const record = readFileSync(recordPath, 'utf8').trim().split('\n');
    // As after a resume from the state of step 2: the record is cut back to it, the trace keeps step 3's reply.
    writeFileSync(recordPath, `${record.slice(0, 6).join('\n')}\n`);
    const trajectory = exported(run.runDir);
    expect(trajectory.steps.filter((step) => step.source === 'agent')).toHaveLength(2);
    expect(reinOf(trajectory).discarded_replies).toEqual([expect.objectContaining({ step: 3 })]);
    const total = run.lines('model').reduce((sum, line) => sum + (line.usage as { promptTokens: number }).promptTokens, 0);
    expect(trajectory.final_metrics!.total_prompt_tokens).toBe(total);
  });

  it('bad tool-call JSON from the model exports as empty arguments with the raw text kept under extra', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'a\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 } },
      // Beyond repair (a cut-off tail alone would be repaired before the call runs).
      script: [reply(call('read_file', '{"path": "a.txt", :}'))],
    });
    const step = exported(run.runDir).steps.find((entry) => entry.source === 'agent')!;
    expect(step.tool_calls![0]!.arguments).toEqual({});
    expect(step.tool_calls![0]!.extra).toEqual({ raw_arguments: '{"path": "a.txt", :}' });
  });

  it('a trace kept alone (no record beside it) still exports: the task, each reply and its results as the trace cut them, said in notes', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'a\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 2 }, stall: { maxNudges: 100 } },
      script: () => reply(call('read_file', { path: 'a.txt' })),
    });
    const alone = join(makeTempDir('rein-atif-alone-'), 'kept.jsonl');
    copyFileSync(join(run.runDir, 'trace.jsonl'), alone);
    // A trace kept elsewhere (--trace) finds its record through the run directory its start line names…
    expect(exported(alone).steps.map((step) => step.source)).toEqual(['system', 'user', 'agent', 'agent']);
    // …and without that directory it is rebuilt from the trace alone.
    rmSync(run.runDir, { recursive: true, force: true });
    const trajectory = exported(alone);
    expect(trajectory.steps.map((step) => step.source)).toEqual(['user', 'agent', 'agent']);
    expect(trajectory.notes).toMatch(/no record\.jsonl/);
    expect(trajectory.steps[1]!.observation!.results[0]).toMatchObject({ source_call_id: trajectory.steps[1]!.tool_calls![0]!.tool_call_id });
    expect(trajectory.steps[1]!.observation!.results[0]!.content).toContain('[a.txt');
  });
});
