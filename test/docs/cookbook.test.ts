import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { cookbookRecipes } from '../../dev/docs-sections/docs-sections.js';
import type { StallEvent } from '../../lib/trace/trace-events.js';
import { stateLabel } from '../../machines/introspection.js';
import {
  call,
  createHarnessMachine,
  defaultRules,
  edited,
  loadRules,
  probeHarness,
  type Rules,
  ran,
  read,
  reply,
  runScripted,
  todo as todoResult,
} from '../../testing/index.js';

/** A recipe as a user loads it: the rules file itself, validated like any other. */
async function recipe(file: string): Promise<Rules> {
  return (await loadRules({ configPath: fileURLToPath(new URL(`../../docs/cookbook/${file}`, import.meta.url)) })).rules;
}

const probeAt = (rules: Rules, at: string) => probeHarness(createHarnessMachine(rules), rules, { at });

/** One turn in the probe: tool calls with these results (and a finish at the end if asked). */
function turn(probe: ReturnType<typeof probeHarness>, results: Parameters<ReturnType<typeof probeHarness>['tools']>[0], finish = false) {
  if (probe.state.endsWith('compact')) probe.contextReady();
  probe.reply({
    calls: [...results.map((result) => ({ name: result.name, args: result.args ?? {} })), ...(finish ? [{ name: 'finish', args: { summary: 'done' } }] : [])],
  });
  return probe.tools(results, finish ? { summary: 'done' } : undefined);
}

describe('the cookbook (docs/rules.md): each rules file does what its title says, run through the machine', () => {
  it('lists at least eight recipes, each a file that loads', async () => {
    const recipes = cookbookRecipes();
    expect(recipes.length).toBeGreaterThanOrEqual(8);
    for (const entry of recipes) await expect(recipe(entry.file)).resolves.toBeDefined();
  });

  it('tests-pass-twice: one passing run after the edit is refused, two are accepted', async () => {
    const rules = await recipe('tests-pass-twice.json');
    expect(turn(probeAt(rules, 'fix.think'), [edited('a.py'), ran('npm test', 0)], true).state).not.toBe('done');
    expect(turn(probeAt(rules, 'fix.think'), [edited('a.py'), ran('npm test', 0), ran('npm test', 0)], true).state).toBe('done');
  });

  it('plan-at-most-3-steps: three turns of reading in plan, and the run is in build', async () => {
    const rules = await recipe('plan-at-most-3-steps.json');
    const probe = probeAt(rules, 'plan.think');
    const states = [1, 2, 3].map((index) => turn(probe, [read(`f${index}.py`)]).state);
    expect(states).toEqual(['plan.compact', 'plan.compact', 'build.compact']);
    const unchanged = probeAt(defaultRules(), 'plan.think');
    expect([1, 2, 3].map((index) => turn(unchanged, [read(`f${index}.py`)]).state).at(-1)).toBe('plan.compact');
  });

  it('skip-plan: a run starts in build', async () => {
    const rules = await recipe('skip-plan.json');
    const [snapshot] = initialTransition(createHarnessMachine(rules), { task: 't', testCmd: 'npm test' });
    expect(stateLabel(snapshot.value)).toMatch(/^build\./);
  });

  it('todo-before-build: plan refuses edits and commands, and only a todo list leads to build', async () => {
    const rules = await recipe('todo-before-build.json');
    const run = await runScripted({
      files: { 'a.py': 'x = 1\n' },
      testCmd: 'true',
      rules: { ...rules, budgets: { ...rules.budgets, maxSteps: 3 } },
      script: [
        reply(call('edit_file', { path: 'a.py', old: 'x = 1', new: 'x = 2' })),
        reply(call('update_todo', { items: [{ task: 'change x', done: false }] })),
        reply(call('edit_file', { path: 'a.py', old: 'x = 1', new: 'x = 2' })),
      ],
    });
    const results = run.record.filter((message) => message.role === 'tool').map((message) => String(message.content).split('\n')[0]);
    expect(results[0]).toBe('Tool error: edit_file is not allowed in the plan phase. Allowed here: read_file, grep, update_todo, finish.');
    expect(results[2]).toBe('Edit applied.');
  });

  it('stricter-stall-in-fix: the same failure twice is nudged in fix, not in build', async () => {
    const rules = await recipe('stricter-stall-in-fix.json');
    const nudges = (phase: string) => {
      const probe = probeAt(rules, `${phase}.think`);
      return [1, 2].flatMap(() =>
        turn(probe, [ran('make', 2, 'error: x')])
          .notes.filter((note): note is StallEvent => note.kind === 'stall')
          .map((note) => note.rule),
      );
    };
    expect(nudges('fix')).toEqual(['repeatedAction']);
    expect(nudges('build')).toEqual([]);
  });

  it("refusal-message: the model reads the refusal in the rules' words, with what is missing", async () => {
    const rules = await recipe('refusal-message.json');
    const step = turn(probeAt(rules, 'build.think'), [edited('a.py')], true);
    expect(step.appended.find((message) => message.role === 'tool' && String(message.content).startsWith('Refused'))?.content).toBe(
      'Refused: no passing test run after the last edit. Run `npm test` and quote the summary line of its output before you call finish again.',
    );
  });

  it("end-after-refusals: the third refused finish ends the run as failed, with the rule's reason; verify keeps its own exits", async () => {
    const rules = await recipe('end-after-refusals.json');
    const probe = probeAt(rules, 'build.think');
    turn(probe, [], true);
    turn(probe, [], true);
    const third = turn(probe, [], true);
    expect(third.state).toBe('failed');
    expect(third.context.status).toBe('failed');
    expect(third.context.reason).toBe('The model called finish three times without a passing test run.');
    expect(rules.phases.verify!.exits.slice(1)).toEqual(defaultRules().phases.verify!.exits);
  });

  it('review-before-finish: passing tests lead from verify to review; finish there wants the "reviewed" item, and says so', async () => {
    const rules = await recipe('review-before-finish.json');
    const verify = probeAt(rules, 'verify.think');
    // verify may not finish: the tool runner refuses it, so the gate never sees it there (no gate state in verify).
    expect(createHarnessMachine(rules).root.states.verify!.states.gate).toBeUndefined();
    expect(turn(verify, [edited('a.py'), ran('npm test', 0)]).state).toBe('review.compact');
    const review = probeAt(rules, 'review.think');
    const refused = turn(review, [], true);
    expect(refused.state).toBe('review.compact');
    expect(refused.notes.find((note) => note.kind === 'finish')).toMatchObject({
      allowed: false,
      why: 'no passing test run yet; no todo item "reviewed" (add it with update_todo, then tick it off)',
    });
    const ticked = probeAt(rules, 'review.think');
    turn(ticked, [ran('npm test', 0)]);
    const done = turn(ticked, [{ ...todoResult([{ task: 'Reviewed', done: true }]) }], true);
    expect(done.state).toBe('done');
    // The look-alike: without the recipe, the same finish after a passing run is accepted with no todo list at all.
    const plain = probeAt(defaultRules(), 'verify.think');
    expect(turn(plain, [ran('npm test', 0)], true).state).toBe('done');
  });

  it("fix-back-to-plan: three failing runs in a row in fix lead back to plan, with the rule's notice", async () => {
    const rules = await recipe('fix-back-to-plan.json');
    const probe = probeAt(rules, 'fix.think');
    const steps = [1, 2, 3].map((index) =>
      turn(probe, [edited('a.py', { before: `v${index}`, after: `v${index + 1}` }), ran('npm test', 1, `${index} failing`)]),
    );
    expect(steps.map((step) => step.state)).toEqual(['fix.compact', 'fix.compact', 'plan.compact']);
    expect(steps[2]!.appended.at(-1)?.content).toBe(
      '[harness] Three fixes in a row failed. Re-read the task and write a new plan with update_todo before editing again.',
    );
  });

  it('lint-before-finish: the tests alone are refused; with a clean lint run finish is accepted', async () => {
    const rules = await recipe('lint-before-finish.json');
    expect(turn(probeAt(rules, 'fix.think'), [edited('a.py'), ran('npm test', 0)], true).state).not.toBe('done');
    expect(turn(probeAt(rules, 'fix.think'), [edited('a.py'), ran('npm test', 0), ran('npm run lint', 0, '0 problems')], true).state).toBe('done');
  });
});
