import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { simulatedModelSource } from '../../eval/simulated/model-source.js';
import { simulationSchema } from '../../eval/simulated/simulation-schema.js';
import { rulesSchema } from '../../rules/schema.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { startRun } from '../../run/start-run.js';
import { makeTempDir, removeTempDirs } from '../../testing/index.js';

afterEach(() => removeTempDirs());

const TEST_CMD = 'node --test';

async function simulatedRun(name: string, recoverToolCalls: boolean) {
  const workspace = makeTempDir('rein-shapes-ws-');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'calc.js'), 'export function add(a, b) {\n  return a - b;\n}\n');
  writeFileSync(
    join(workspace, 'calc.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './calc.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
  );
  const rules = rulesSchema.parse({ verification: { command: TEST_CMD }, budgets: { maxSteps: 12 }, model: { recoverToolCalls } });
  const simulation = simulationSchema.parse({ inspect: ['calc.js'], fixes: [{ path: 'calc.js', old: 'return a - b;', new: 'return a + b;' }] });
  const model = await simulatedModelSource({ kind: 'registry', names: [name], simulation }, rules, { prompt: 'Fix add.', testCmd: TEST_CMD });
  const handle = await startRun({ workspace, task: 'Fix add.', testCmd: TEST_CMD, rules, model, runDir: makeTempDir('rein-shapes-run-'), fsync: false });
  const output = await handle.done;
  return { output, trace: readJsonLines<{ kind: string }>(handle.tracePath).values };
}

describe('simulated models that speak like endpoints without a tool parser', () => {
  it('text-calls solves the task with recovery on and not with it off: the effect an eval comparison measures', async () => {
    const on = await simulatedRun('text-calls', true);
    expect(on.output.status).toBe('done');
    expect(on.trace.filter((line) => line.kind === 'calls_recovered').length).toBeGreaterThan(2);
    const off = await simulatedRun('text-calls', false);
    expect(off.output.status).not.toBe('done');
    expect(off.trace.filter((line) => line.kind === 'tool')).toEqual([]);
  });

  it('mangled-arguments solves the task, every repair traced', async () => {
    const run = await simulatedRun('mangled-arguments', true);
    expect(run.output.status).toBe('done');
    expect(run.trace.filter((line) => line.kind === 'arguments_repaired').length).toBeGreaterThan(2);
  });
});
