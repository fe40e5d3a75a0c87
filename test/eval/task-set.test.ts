import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigurations } from '../../eval/configurations.js';
import { loadTaskSet } from '../../eval/task.js';
import { UsageError } from '../../lib/errors.js';
import { makeTempDir } from '../../testing/temp-dir.js';

function taskSet(tasks: Record<string, unknown>): string {
  const root = makeTempDir('rein-taskset-', { until: 'exit' });
  for (const [id, task] of Object.entries(tasks)) {
    mkdirSync(join(root, id, 'repo'), { recursive: true });
    if (task !== undefined) writeFileSync(join(root, id, 'task.json'), typeof task === 'string' ? task : JSON.stringify(task));
  }
  return root;
}

const good = {
  prompt: 'Fix add.',
  test_cmd: 'node --test',
  check_cmd: 'node --test',
  simulated_model: 'careful',
  simulation: { fixes: [{ path: 'add.js', old: 'a - b', new: 'a + b' }] },
};

describe('task sets', () => {
  it('validates each task with zod, reports bad ones and keeps the rest', () => {
    const root = taskSet({
      good,
      'no-check': { prompt: 'x', test_cmd: 'y' },
      'bad-json': '{ "prompt": ',
      'typo-field': { ...good, tiemout_s: 5 },
      'unknown-model': { ...good, simulated_model: 'omniscient' },
      'gate-model-without-reveal': { ...good, simulated_model: 'finish-without-verifying' },
      'no-task-json': undefined,
      'bad-rules': { ...good, rules: { budgets: { maxSteps: -1 } } },
    });
    const { tasks, problems } = loadTaskSet(root);
    expect(tasks.map((task) => task.id)).toEqual(['good']);
    expect(tasks[0]).toMatchObject({ timeout_s: 600, check_timeout_s: 120, simulated: { kind: 'registry', names: ['careful'] } });
    const byId = Object.fromEntries(problems.map((entry) => [entry.id, entry.problem]));
    expect(Object.keys(byId).sort()).toEqual(['bad-json', 'bad-rules', 'gate-model-without-reveal', 'no-check', 'no-task-json', 'typo-field', 'unknown-model']);
    expect(byId['no-check']).toContain('check_cmd');
    expect(byId['bad-json']).toContain('not valid JSON');
    expect(byId['typo-field']).toContain('tiemout_s');
    expect(byId['unknown-model']).toContain('unknown simulated model "omniscient"');
    expect(byId['gate-model-without-reveal']).toContain('reveal');
    expect(byId['bad-rules']).toContain('budgets.maxSteps');
  });

  it('a task may name a prompt file in its folder (a task too long for task.json); one outside it, a missing or empty one, or both forms, are refused', () => {
    const long = `Fix add.\n${'The report says: the sum is off by the second operand. '.repeat(4000)}`;
    const { prompt: _prompt, ...rest } = good;
    const root = taskSet({
      'from-file': { ...rest, prompt_file: 'ISSUE.md' },
      outside: { ...rest, prompt_file: '../from-file/ISSUE.md' },
      missing: { ...rest, prompt_file: 'NOPE.md' },
      empty: { ...rest, prompt_file: 'EMPTY.md' },
      both: { ...good, prompt_file: 'ISSUE.md' },
      neither: rest,
    });
    writeFileSync(join(root, 'from-file', 'ISSUE.md'), long);
    writeFileSync(join(root, 'empty', 'EMPTY.md'), ' \n');
    writeFileSync(join(root, 'both', 'ISSUE.md'), 'x');
    const { tasks, problems } = loadTaskSet(root);
    expect(tasks.map((task) => [task.id, task.prompt])).toEqual([['from-file', long]]);
    const byId = Object.fromEntries(problems.map((entry) => [entry.id, entry.problem]));
    expect(byId).toEqual({
      outside: 'task.json prompt_file: ../from-file/ISSUE.md is outside the task folder',
      missing: 'task.json prompt_file: NOPE.md not found in the task folder',
      empty: 'task.json prompt_file: EMPTY.md is empty',
      both: expect.stringContaining('give the task as `prompt` or as `prompt_file`, one of them'),
      neither: expect.stringContaining('give the task as `prompt` or as `prompt_file`, one of them'),
    });
  });

  it('is a usage error only when the directory is missing or holds no task folders', () => {
    expect(() => loadTaskSet('/nonexistent/tasks')).toThrow(UsageError);
    const empty = makeTempDir('rein-empty-', { until: 'exit' });
    expect(() => loadTaskSet(empty)).toThrow(UsageError);
  });
});

describe('configurations', () => {
  it('makes one configuration per --preset and per --config, in order, labelled by name', () => {
    expect(parseConfigurations([], [])).toEqual([{ label: 'default', preset: 'default' }]);
    const list = parseConfigurations(['default', 'no-plan'], ['rules/small-window.json', 'strict:rules/tight.json']);
    expect(list.map((config) => [config.label, config.preset])).toEqual([
      ['default', 'default'],
      ['no-plan', 'no-plan'],
      ['small-window', 'default'],
      ['strict:tight', 'strict'],
    ]);
    expect(list[2]!.configPath).toMatch(/rules\/small-window\.json$/);
    expect(() => parseConfigurations(['nope'], [])).toThrow(UsageError);
    expect(() => parseConfigurations(['default', 'default'], [])).toThrow(/twice/);
  });
});
