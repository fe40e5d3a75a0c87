import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedIntake } from '../../../actors/model/model-source.js';
import { createScriptedModel, type Script } from '../../../actors/model/scripted-model.js';
import { extractiveSummary } from '../../../actors/summarizer.js';
import { rulesSchema } from '../../../rules/schema.js';
import { readRecord } from '../../../run/record/transcript.js';
import { applyRewind, planRewind } from '../../../run/snapshots/rewind.js';
import { resumeRun } from '../../../run/start-run.js';
import { call, makeTempDir, reply, runScripted } from '../../../testing/index.js';

const passingTest = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n`;

let previousState: string | undefined;
beforeAll(() => {
  previousState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = makeTempDir('rein-test-state-');
});
afterAll(() => {
  if (previousState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = previousState;
});

/** `rein resume` in process, with a scripted model. */
async function resumeScripted(run: { workspace: string; runDir: string }, script: Script) {
  let intake: ReturnType<typeof scriptedIntake> | null = null;
  const model = createScriptedModel(script, { intake: (answer, step, messages) => (intake ? intake(answer, step, messages) : answer) });
  const handle = await resumeRun({
    workspace: run.workspace,
    task: 'Make the tests pass.',
    testCmd: 'node --test',
    rules: rulesSchema.parse({}),
    runDir: run.runDir,
    fsync: false,
    model: {
      name: 'scripted',
      description: 'scripted test model',
      createActor: (schemas, hooks) => {
        intake = scriptedIntake(schemas, hooks);
        return model.actor;
      },
      summarize: extractiveSummary,
    },
  });
  const output = await handle.done;
  return { output, record: readRecord(join(run.runDir, 'record.jsonl')) };
}

describe('after a rewind, the guards judge the facts of that step', () => {
  async function fixedAndTested() {
    const run = await runScripted({
      files: { 'add.js': 'export const add = (a, b) => a - b;\n', 'add.test.js': passingTest },
      testCmd: 'node --test',
      script: [
        reply(call('edit_file', { path: 'add.js', old: 'a - b', new: 'a + b' })),
        reply(call('run', { command: 'node --test' })),
        reply(call('finish', { summary: 'fixed and tested' })),
      ],
    });
    expect(run.output).toMatchObject({ status: 'done', steps: 3 });
    return run;
  }

  it('rewound to the edit, before the test run: the gate refuses a finish, as it would have then', async () => {
    const run = await fixedAndTested();
    applyRewind(planRewind(run.runDir, 1));
    expect(readFileSync(join(run.workspace, 'add.js'), 'utf8')).toContain('a + b');
    const resumed = await resumeScripted(run, [
      reply(call('finish', { summary: 'again' })),
      reply(call('run', { command: 'node --test' })),
      reply(call('finish', { summary: 'tested' })),
    ]);
    const refusal = resumed.record.find((message) => message.role === 'tool' && message.content.startsWith('Not yet'));
    expect(refusal?.content).toContain('no passing test run after the last edit');
    // Steps are counted on from step 1: the run's step budget spent before the rewind point stays spent.
    expect(resumed.output).toMatchObject({ status: 'done', steps: 4, summary: 'tested' });
  }, 120_000);

  it('rewound to the test run: the same finish passes the gate at once', async () => {
    const run = await fixedAndTested();
    applyRewind(planRewind(run.runDir, 2));
    const resumed = await resumeScripted(run, [reply(call('finish', { summary: 'again' }))]);
    expect(resumed.output).toMatchObject({ status: 'done', steps: 3, summary: 'again' });
  }, 120_000);

  it('rewound to the start: the edit is undone, the tests fail again and the finish is refused', async () => {
    const run = await fixedAndTested();
    applyRewind(planRewind(run.runDir, 0));
    expect(readFileSync(join(run.workspace, 'add.js'), 'utf8')).toContain('a - b');
    const resumed = await resumeScripted(run, [reply(call('run', { command: 'node --test' })), reply(call('finish', { summary: 'nothing fixed' }))]);
    // The test fails again (the workspace is the start's), and the finish is refused for it.
    const results = resumed.record.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatch(/^exit=1/);
    expect(results[1]).toMatch(/^Not yet/);
  }, 120_000);
});
