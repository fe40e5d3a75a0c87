import { describe, expect, it } from 'vitest';
import { createHarnessMachine, defaultRules, edited, interrupted, probeHarness, ran, read, rulesSchema, todo } from '../../testing/index.js';

const rules = defaultRules();
const machine = createHarnessMachine(rules);

function atThink(state: string, context = {}) {
  return probeHarness(machine, rules, { at: `${state}.think`, context });
}

describe('phase exits (route), evaluated after each turn', () => {
  it('plan → build when a todo list is written', () => {
    const probe = atThink('plan');
    probe.reply({ calls: [{ name: 'update_todo', args: { items: [] } }] });
    expect(probe.tools([todo([{ task: 'fix', done: false }])]).state).toBe('build.compact');
  });

  it('plan → build on a first edit, even without a plan', () => {
    const probe = atThink('plan');
    probe.reply({ calls: [{ name: 'edit_file', args: {} }] });
    expect(probe.tools([edited('a.py')]).state).toBe('build.compact');
  });

  it('plan stays in plan while the model only reads', () => {
    const probe = atThink('plan');
    probe.reply({ calls: [{ name: 'read_file', args: { path: 'a.py' } }] });
    const step = probe.tools([read('a.py')]);
    expect(step.state).toBe('plan.compact');
    expect(step.context.phase).toBe('plan');
  });

  it('build → verify when the test command passes (and verify keeps it)', () => {
    const probe = atThink('build');
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([ran('npm test', 0, 'ok')]);
    expect(step.state).toBe('verify.compact');
    expect(step.context.facts.lastTestPassed).toBe(true);
  });

  it('build → verify → fix in one turn when the test run fails (verify judges the same run)', () => {
    const probe = atThink('build');
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test -- --verbose' } }] });
    expect(probe.tools([ran('npm test -- --verbose', 1, 'FAIL')]).state).toBe('fix.compact');
  });

  it('build stays in build when a command other than the test command runs', () => {
    const probe = atThink('build');
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    expect(probe.tools([ran('ls', 0, 'a.py')]).state).toBe('build.compact');
  });

  it('a test run cut short by a stop (reported on resume) is no test run: build stays in build', () => {
    const probe = atThink('build');
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([interrupted('npm test')]);
    expect(step.state).toBe('build.compact');
    expect(step.context.facts.testRuns).toBe(0);
  });

  it('verify → fix when the test run fails', () => {
    const probe = atThink('verify');
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    expect(probe.tools([ran('npm test', 2, 'error')]).state).toBe('fix.compact');
  });

  it('verify → build when an edit follows the last test run', () => {
    const probe = atThink('verify');
    probe.reply({ calls: [{ name: 'edit_file', args: {} }] });
    expect(probe.tools([edited('a.py')]).state).toBe('build.compact');
  });

  it('fix → verify after an edit followed by a passing test run', () => {
    const probe = atThink('fix');
    probe.reply({
      calls: [
        { name: 'edit_file', args: {} },
        { name: 'run', args: { command: 'npm test' } },
      ],
    });
    expect(probe.tools([edited('a.py'), ran('npm test', 0)]).state).toBe('verify.compact');
  });

  it('fix stays in fix after an edit and a failing test run (fix → verify → fix)', () => {
    const probe = atThink('fix');
    probe.reply({
      calls: [
        { name: 'edit_file', args: {} },
        { name: 'run', args: { command: 'npm test' } },
      ],
    });
    const step = probe.tools([edited('a.py'), ran('npm test', 1)]);
    expect(step.state).toBe('fix.compact');
    expect(step.context.facts.phaseStartSeq).toBe(step.context.facts.seq);
  });

  it('fix stays in fix on a test run without an edit first', () => {
    const probe = atThink('fix');
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    expect(probe.tools([ran('npm test', 1)]).state).toBe('fix.compact');
  });

  it('counts a test pass only with the configured exit code and output pattern', () => {
    const strict = rulesSchema.parse({ verification: { passPattern: '\\d+ passed' } });
    const probe = probeHarness(createHarnessMachine(strict), strict, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([ran('npm test', 0, 'no tests ran')]);
    expect(step.context.facts.lastTestPassed).toBe(false);
    expect(step.state).toBe('fix.compact');
  });
});
