import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { call, loadRules, removeTempDirs, reply, runScripted } from '../../testing/index.js';

afterEach(() => removeTempDirs());

const files = {
  'add.js': 'export function add(a, b) {\n  return a - b;\n}\n',
  'add.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
};

const review = reply(call('delegate', { tasks: [{ agent: 'reviewer', task: 'Task: make add() add. Review the change in add.js.' }] }));
const finish = reply(call('finish', { summary: 'add() adds' }));

describe('the reviewer recipe (docs/cookbook/reviewer-agent.json): a child that reviews, whose verdict is one more guard', () => {
  it('the gate wants the passing tests and the reviewer’s approval after the last edit; a rejection’s reasons reach the model', async () => {
    const { rules } = await loadRules({ configPath: fileURLToPath(new URL('../../docs/cookbook/reviewer-agent.json', import.meta.url)) });
    const run = await runScripted({
      files,
      rules,
      testCmd: 'node --test',
      script: [
        reply(call('edit_file', { path: 'add.js', old: 'a - b', new: 'a + b' })),
        reply(call('run', { command: 'node --test' })),
        finish,
        review,
        finish,
        reply(call('edit_file', { path: 'add.js', old: 'export function add', new: '/** Adds two numbers. */\nexport function add' })),
        reply(call('run', { command: 'node --test' })),
        finish,
        review,
        finish,
      ],
      agentScripts: {
        reviewer: [
          reply(call('read_file', { path: 'add.js' })),
          reply(call('finish', { summary: 'REJECT: add() has no doc comment; say what it does.' })),
          reply(call('finish', { summary: 'APPROVE: correct, tested, documented.' })),
        ],
      },
    });
    expect(run.output.status).toBe('done');
    const refusals = run.lines('finish').filter((line) => line.allowed === false);
    // Tests passed each time; the gate and the reviewer disagreed three times, and the trace says how.
    expect(refusals.map((line) => line.why)).toEqual([
      expect.stringContaining('no reviewer has reviewed the change yet'),
      expect.stringContaining('reviewer rejected the change: REJECT: add() has no doc comment'),
      expect.stringContaining("the change was edited after reviewer's review"),
    ]);
    expect(run.lines('finish').at(-1)).toMatchObject({ allowed: true });
    // Two reviews, each a child with the recipe's caps, charged to the run.
    expect(run.output.agents?.find((entry) => entry.agent === 'reviewer')).toMatchObject({ runs: 2, steps: 3 });
    expect(
      run
        .lines('agent')
        .filter((line) => line.event === 'start')
        .every((line) => (line.caps as { steps: number }).steps <= 12),
    ).toBe(true);
    run.agentModels.reviewer?.assertDone();
  });
});
