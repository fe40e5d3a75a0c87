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
    probe.reply({ calls: [{ name: 'edit_file', args: {} }, { name: 'run', args: { command: 'npm test' } }] });
    expect(probe.tools([edited('a.py'), ran('npm test', 0)]).state).toBe('verify.compact');
  });

  it('fix stays in fix after an edit and a failing test run (fix → verify → fix)', () => {
    const probe = atThink('fix');
    probe.reply({ calls: [{ name: 'edit_file', args: {} }, { name: 'run', args: { command: 'npm test' } }] });
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

describe('the verification gate', () => {
  it('refuses finish with no test run after the last edit; the refusal is that call\'s result; build → verify', () => {
    const probe = atThink('build');
    probe.reply({ calls: [{ name: 'edit_file', args: {}, id: 'call_edit_000000001' }, { name: 'finish', args: { summary: 's' }, id: 'call_finish_00000001' }] });
    const step = probe.tools([edited('a.py')], { summary: 's' });
    expect(step.state).toBe('verify.compact');
    const refusal = step.appended.find((message) => message.role === 'tool' && message.tool_call_id === 'call_finish_00000001');
    expect(refusal?.content).toBe('Not yet. Before finishing: run `npm test`, read the full output, and check the result against the original task (not against your code). Cover edge cases, not just the happy path.');
    expect(step.notes).toContainEqual({ kind: 'finish', data: expect.objectContaining({ allowed: false }) });
  });

  it('accepts finish after a passing test run that follows the last edit, even within one turn', () => {
    const probe = atThink('fix');
    probe.reply({ calls: [{ name: 'edit_file', args: {} }, { name: 'run', args: { command: 'npm test' } }, { name: 'finish', args: { summary: 'fixed' } }] });
    const step = probe.tools([edited('a.py'), ran('npm test', 0)], { summary: 'fixed' });
    expect(step.state).toBe('done');
    expect(step.context.status).toBe('done');
    expect(step.context.summary).toBe('fixed');
    expect(step.appended.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual(['Edit applied.\n[a.py]', 'exit=0\n', 'Finished.']);
  });

  it('counts only a real run of the test command: echo, || true and a pipe into tail do not pass the gate', () => {
    for (const command of ['echo npm test', 'npm test || true', 'npm test | tail -5', 'npm test -- --grep nothing']) {
      const probe = atThink('fix');
      probe.reply({ calls: [{ name: 'edit_file', args: {} }, { name: 'run', args: { command } }, { name: 'finish', args: { summary: 'fixed' } }] });
      const step = probe.tools([edited('a.py'), ran(command, 0)], { summary: 'fixed' });
      expect(step.state, command).not.toBe('done');
    }
    for (const command of ['  npm   test ', 'npm test 2>&1', 'cd /work/repo && npm test']) {
      const probe = atThink('fix');
      probe.reply({ calls: [{ name: 'edit_file', args: {} }, { name: 'run', args: { command } }, { name: 'finish', args: { summary: 'fixed' } }] });
      expect(probe.tools([edited('a.py'), ran(command, 0)], { summary: 'fixed' }).state, command).toBe('done');
    }
  });

  it('refuses when the last test run passed but an edit came after it; the edit sends the agent back to build', () => {
    const probe = atThink('verify');
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }, { name: 'edit_file', args: {} }, { name: 'finish', args: { summary: 's' } }] });
    const step = probe.tools([ran('npm test', 0), edited('a.py')], { summary: 's' });
    expect(step.context.facts.gateRefusals).toBe(1);
    expect(step.notes).toContainEqual({ kind: 'finish', data: expect.objectContaining({ allowed: false }) });
    expect(step.state).toBe('build.compact');
  });

  it('after a refusal the remaining calls of the turn still run', () => {
    const probe = atThink('build');
    probe.reply({ calls: [{ name: 'finish', args: { summary: 's' } }, { name: 'run', args: { command: 'npm test' } }] });
    const step = probe.tools([], { summary: 's' });
    expect(step.state).toBe('build.act');
    expect(step.context.cursor).toBe(1);
    expect(probe.tools([ran('npm test', 0)]).state).toBe('verify.compact');
  });

  it('closes calls after an accepted finish so the record stays well-formed', () => {
    const probe = atThink('verify', { facts: { ...probeHarness(machine, rules).context.facts, lastPassSeq: 3, lastEditSeq: 2, seq: 3 } });
    probe.reply({ calls: [{ name: 'finish', args: { summary: 'done' }, id: 'call_finish_00000002' }, { name: 'run', args: { command: 'ls' }, id: 'call_late_0000000003' }] });
    const step = probe.tools([], { summary: 'done' });
    expect(step.state).toBe('done');
    expect(step.appended).toEqual([
      { role: 'tool', tool_call_id: 'call_finish_00000002', content: 'Finished.' },
      { role: 'tool', tool_call_id: 'call_late_0000000003', content: 'Not run: the run finished.' },
    ]);
  });

  it('with the gate off, finish is accepted at once', () => {
    const open = rulesSchema.parse({ verification: { gate: false } });
    const probe = probeHarness(createHarnessMachine(open), open, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'finish', args: { summary: 'trust me' } }] });
    expect(probe.tools([], { summary: 'trust me' }).state).toBe('done');
  });
});
