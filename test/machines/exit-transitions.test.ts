import { describe, expect, it } from 'vitest';
import { createHarnessMachine, probeHarness, type Rules, ran, read, rulesSchema, todo } from '../../testing/index.js';

// How a phase exit from the rules becomes a transition (machines/phase/exits.ts, exitTransition and conditionGuard):
// the reason an exit that ends the run gives, the actions an exit runs, the parameters its guard receives, and
// where a settling exit lands.

const rulesWith = (input: unknown): Rules => rulesSchema.parse(input);

describe('exits that end the run', () => {
  it('an exit to a final state without a reason ends the run with one naming the phase and the final state', () => {
    const rules = rulesWith({ phases: { build: { exits: [{ guard: 'testFailed', to: 'step_limit' }] } } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([ran('npm test', 1, 'FAIL')]);
    expect(step.state).toBe('step_limit');
    expect(step.context.reason).toBe('An exit rule of the build phase ended the run (to step_limit).');
    expect(step.notes.at(-1)).toMatchObject({ kind: 'end', status: 'step_limit', reason: 'An exit rule of the build phase ended the run (to step_limit).' });
  });

  it("an exit to a final state with a reason ends the run with the rule's own words", () => {
    const rules = rulesWith({ phases: { build: { exits: [{ guard: 'testFailed', to: 'step_limit', reason: 'One failing run is enough here.' }] } } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([ran('npm test', 1, 'FAIL')]);
    expect(step.state).toBe('step_limit');
    expect(step.context.reason).toBe('One failing run is enough here.');
  });
});

describe('the actions an exit runs', () => {
  it("an exit's actions run when it is taken, with the parameters the rule gives them", () => {
    const rules = rulesWith({ phases: { plan: { exits: [{ guard: 'todoWritten', to: 'build', actions: [{ action: 'notify', text: 'Plan done.' }] }] } } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'plan.think' });
    probe.reply({ calls: [{ name: 'update_todo', args: { items: [] } }] });
    const step = probe.tools([todo([{ task: 'fix', done: false }])]);
    expect(step.state).toBe('build.compact');
    expect(step.notes).toContainEqual({ kind: 'rule_action', action: 'notify', step: 1, notices: ['Plan done.'] });
    expect(step.appended.at(-1)).toEqual({ role: 'user', content: '[harness] Plan done.' });
  });
});

describe("an exit's condition as a guard", () => {
  it('a condition built in TypeScript with its unused forms left undefined decides like the plain one', () => {
    // A rules module may spread optional parts into a rule; the schema keeps the keys, with undefined values.
    const rules = rulesWith({
      phases: { build: { exits: [{ guard: 'testRun', all: undefined, any: undefined, not: undefined, actions: undefined, reason: undefined, to: 'verify' }] } },
    });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    expect(probe.tools([ran('npm test', 0, 'ok')]).state).toBe('verify.compact');
  });

  it("a built-in guard's parameters take their defaults when the rule leaves them out (todoProgress counts 1)", () => {
    const rules = rulesWith({ phases: { plan: { exits: [{ guard: 'todoProgress', to: 'build' }] } } });
    const machine = createHarnessMachine(rules);
    const open = probeHarness(machine, rules, { at: 'plan.think' });
    open.reply({ calls: [{ name: 'update_todo', args: { items: [] } }] });
    expect(open.tools([todo([{ task: 'fix', done: false }])]).state).toBe('plan.compact');
    const ticked = probeHarness(machine, rules, { at: 'plan.think' });
    ticked.reply({ calls: [{ name: 'update_todo', args: { items: [] } }] });
    expect(ticked.tools([todo([{ task: 'fix', done: true }])]).state).toBe('build.compact');
  });

  it("a guard that replaces a built-in receives the rule's own parameters, not the built-in's defaults", () => {
    const rules = rulesWith({ phases: { plan: { exits: [{ guard: 'todoProgress', to: 'build' }] } } });
    const seen: unknown[] = [];
    const machine = createHarnessMachine(rules, {
      guards: {
        todoProgress: {
          override: true,
          test: (_view, params) => {
            seen.push(params);
            return false;
          },
        },
      },
    });
    const probe = probeHarness(machine, rules, { at: 'plan.think' });
    probe.reply({ content: 'reading' });
    expect(seen).toEqual([{}]);
  });
});

describe('where an exit lands', () => {
  it('a settle is one hop: a phase entered from a settle starts its next turn, even when its exit asks to settle', () => {
    // build → verify settles; verify's settling exit sends the failing run on to fix, which would (if it judged the
    // same turn again) send it to plan. One turn is judged by at most two phases.
    const rules = rulesWith({
      phases: { verify: { exits: [{ guard: 'testFailed', to: 'fix', settle: true }] }, fix: { exits: [{ guard: 'testFailed', to: 'plan' }] } },
    });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([ran('npm test', 1, 'FAIL')]);
    expect(step.state).toBe('fix.compact');
    expect(step.context.phase).toBe('fix');
  });

  it("from the route, an exit that asks to settle does: fix judges verify's failing run once more", () => {
    const rules = rulesWith({
      phases: { verify: { exits: [{ guard: 'testFailed', to: 'fix', settle: true }] }, fix: { exits: [{ guard: 'testFailed', to: 'plan' }] } },
    });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'verify.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    expect(probe.tools([ran('npm test', 1, 'FAIL')]).state).toBe('plan.compact');
  });

  it('an exit into its own phase enters it again: its onEnter actions run and its step count starts over', () => {
    const rules = rulesWith({ phases: { build: { maxSteps: 2, onMaxSteps: 'build', onEnter: [{ action: 'notify', text: 'Step back: re-read the task.' }] } } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    const entries: number[] = [];
    for (let turn = 1; turn <= 5; turn += 1) {
      const step = probe.reply({ calls: [{ name: 'read_file', args: { path: `f${turn}.py` } }] });
      const after = probe.tools([read(`f${turn}.py`)]);
      expect(after.state).toBe('build.compact');
      if ([...step.notes, ...after.notes].some((note) => note.kind === 'rule_action')) entries.push(turn);
      probe.contextReady();
    }
    expect(entries).toEqual([2, 4]);
    expect(probe.context.facts.phaseStartStep).toBe(4);
  });

  it('an exit into its own phase that asks to settle still enters it afresh, and gives the phase no settle state', () => {
    const rules = rulesWith({ phases: { build: { exits: [{ guard: 'testFailed', to: 'build', settle: true }] } } });
    const machine = createHarnessMachine(rules);
    expect(Object.keys(machine.root.states.build?.states ?? {})).not.toContain('settle');
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([ran('npm test', 1, 'FAIL')]);
    expect(step.state).toBe('build.compact');
    expect(step.context.facts.phaseStartStep).toBe(1);
  });

  it('a turn that takes no exit stays in the phase without entering it again', () => {
    const rules = rulesWith({ phases: { build: { onEnter: [{ action: 'notify', text: 'Entered build.' }] } } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    for (let turn = 1; turn <= 3; turn += 1) {
      probe.reply({ calls: [{ name: 'read_file', args: { path: `f${turn}.py` } }] });
      const after = probe.tools([read(`f${turn}.py`)]);
      expect(after.state).toBe('build.compact');
      expect(after.notes.filter((note) => note.kind === 'rule_action')).toEqual([]);
      probe.contextReady();
    }
    expect(probe.context.facts.phaseStartStep).toBe(0);
  });
});
