import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { DEMO_TASK, DEMO_TEST_CMD, demoScript } from '../../cli/demo/demo-model.js';
import { checkPairing } from '../../context/pairing.js';
import { call, reply, runScripted } from '../../testing/index.js';
import { demoRepoFiles } from '../helpers/demo-files.js';

const passingTest = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n`;

describe('a whole run with real tools and a scripted model', () => {
  it('the demo walks plan → build → verify → fix → verify → done, with a refused finish and a rejected edit', async () => {
    const run = await runScripted({ files: demoRepoFiles(), task: DEMO_TASK, testCmd: DEMO_TEST_CMD, script: demoScript });
    expect(run.output.status).toBe('done');
    const phases = run
      .lines('transition')
      .map((line) => String(line.to).split('.')[0])
      .filter((phase, index, all) => phase !== all[index - 1]);
    expect(phases).toEqual(['plan', 'build', 'verify', 'fix', 'verify', 'done']);
    expect(run.lines('finish').map((line) => line.allowed)).toEqual([false, true]);
    expect(run.lines('tool').some((line) => String(line.result).startsWith('Edit rejected, file unchanged. Syntax error'))).toBe(true);
    expect(readFileSync(join(run.workspace, 'stats.js'), 'utf8')).toContain('.sort((a, b) => a - b)');
    expect(checkPairing(run.record)).toEqual([]);
    // Without compaction, every request is exactly the record up to that model call.
    const assistantAt = run.record.flatMap((message, index) => (message.role === 'assistant' ? [index] : []));
    run.model.requests.forEach((request, call) => {
      expect(request).toEqual(run.record.slice(0, assistantAt[call]));
    });
    expect(run.model.requests[0]!.map((message) => message.role)).toEqual(['system', 'user']);
    expect(run.lines('end')[0]).toMatchObject({ status: 'done', steps: 9 });
    expect(JSON.parse(readFileSync(join(run.workspace, '.rein', 'progress.json'), 'utf8')).todo.every((item: { done: boolean }) => item.done)).toBe(true);
  });

  it('finish is refused until a test run passes after the last edit (seed behaviour 3)', async () => {
    const run = await runScripted({
      files: { 'add.js': 'export const add = (a, b) => a - b;\n', 'add.test.js': passingTest },
      testCmd: 'node --test',
      script: [
        reply(call('edit_file', { path: 'add.js', old: 'a - b', new: 'a + b' })),
        reply(call('finish', { summary: 'fixed' })),
        reply(call('run', { command: 'node --test' })),
        reply(call('finish', { summary: 'fixed and tested' })),
      ],
    });
    expect(run.output).toMatchObject({ status: 'done', steps: 4, summary: 'fixed and tested' });
    const refusal = run.record.find((message) => message.role === 'tool' && message.content.startsWith('Not yet'));
    expect(refusal?.content).toBe(
      'Not yet: no passing test run after the last edit. Before finishing: run `node --test`, read the full output, and check the result against the original task (not against your code). Cover edge cases, not just the happy path.',
    );
    run.model.assertDone();
  });

  it('a repeated failing command is nudged and then ends the run as stalled, not at the step limit', async () => {
    const run = await runScripted({
      files: { 'x.txt': 'x' },
      testCmd: 'node --test',
      rules: { budgets: { maxSteps: 30 } },
      script: () => reply(call('run', { command: 'cat missing.txt' })),
    });
    expect(run.output.status).toBe('stalled');
    expect(run.lines('stall').length).toBe(3);
    expect(run.output.steps).toBeLessThan(30);
    const nudgeIndex = run.record.findIndex((message) => message.role === 'user' && message.content.includes('Do something different'));
    expect(run.record[nudgeIndex - 1]?.role).toBe('tool');
  });

  it("a model that keeps calling finish without a passing test is a stall: nudged, then stalled; a refused summary is not the run's", async () => {
    let attempt = 0;
    const run = await runScripted({
      files: { 'x.txt': 'x' },
      testCmd: 'node --test',
      rules: { budgets: { maxSteps: 30 } },
      script: () => reply(call('finish', { summary: `looks right to me (${attempt++})` })),
    });
    expect(run.output.status).toBe('stalled');
    expect(run.output.steps).toBeLessThan(15);
    expect(run.lines('stall').map((line) => line.rule)).toContain('repeatedAction');
    expect(run.output.summary).toBe('');
    expect(run.lines('finish').every((line) => line.allowed === false && line.why === 'no passing test run yet')).toBe(true);
  });

  // JSON the lenient parser can mend (a cut-off tail) is repaired and traced (test/actors/text-calls.test.ts); this one it cannot.
  it('model mistakes become observations: unknown tool, bad JSON, missing and extra arguments', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'hello\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 2 } },
      script: [
        reply(call('delete_everything', {}), call('read_file', '{"path": "a.txt", :}'), call('read_file', {}), call('read_file', { path: 'a.txt', mode: 'x' })),
        reply(call('read_file', { path: 'a.txt' })),
      ],
    });
    expect(run.output.status).toBe('step_limit');
    const results = run.record.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results[0]).toMatch(/^Tool error: unknown tool "delete_everything"/);
    // Refused calls are traced with their arguments parsed when they are JSON, raw when they are not.
    expect(
      run
        .lines('tool')
        .slice(0, 4)
        .map((line) => line.args),
    ).toEqual([{}, '{"path": "a.txt", :}', {}, { path: 'a.txt', mode: 'x' }]);
    expect(results[1]).toMatch(/^Tool error: .*JSON/i);
    expect(results[2]).toMatch(/^Tool error: .*path/);
    expect(results[3]).toMatch(/^Tool error: .*mode/);
    expect(results[4]).toContain('[a.txt: lines 1-1 of 1; 0 above, 0 below]');
  });

  it('the time budget aborts the in-flight model call and ends the run as timeout', async () => {
    const clock = new SimulatedClock();
    let aborted = false;
    const pending = runScripted({
      files: { 'a.txt': 'a' },
      testCmd: 'true',
      rules: { budgets: { maxSeconds: 60 } },
      clock,
      script: (_messages, context) =>
        context.call === 0
          ? reply(call('read_file', { path: 'a.txt' }))
          : new Promise((_, reject) => {
              setTimeout(() => clock.increment(60_000), 20);
              setTimeout(() => {
                aborted = true;
                reject(new Error('should have been aborted first'));
              }, 5000);
            }),
    });
    const run = await pending;
    expect(run.output.status).toBe('timeout');
    expect(run.lines('budget_warning')).toHaveLength(1);
    expect(aborted).toBe(false);
  });

  it('a todo list written in one run is read at the start of the next run on the same workspace', async () => {
    const first = await runScripted({
      files: { 'a.txt': 'a' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 } },
      script: [
        reply(
          call('update_todo', {
            items: [
              { task: 'step one', done: true },
              { task: 'step two', done: false },
            ],
          }),
        ),
      ],
    });
    expect(existsSync(join(first.workspace, '.rein', 'progress.json'))).toBe(true);
    // rein's state ignores itself, so it never shows up as a change in the user's repository.
    expect(readFileSync(join(first.workspace, '.rein', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const second = await runScripted({
      workspace: first.workspace,
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 } },
      script: [reply(call('read_file', { path: 'a.txt' }))],
    });
    expect(second.model.requests[0]![1]!.content).toContain('[x] step one\n[ ] step two');
  });
});
