import { describe, expect, it } from 'vitest';
import { createHarnessMachine, defaultRules, edited, probeHarness, ran, rulesSchema } from '../../testing/index.js';

const rules = defaultRules();
const machine = createHarnessMachine(rules);

function atThink(state: string, context = {}) {
  return probeHarness(machine, rules, { at: `${state}.think`, context });
}

describe('the verification gate', () => {
  it("refuses finish with no test run after the last edit; the refusal is that call's result; build → verify", () => {
    const probe = atThink('build');
    probe.reply({
      calls: [
        { name: 'edit_file', args: {}, id: 'call_edit_000000001' },
        { name: 'finish', args: { summary: 's' }, id: 'call_finish_00000001' },
      ],
    });
    const step = probe.tools([edited('a.py')], { summary: 's' });
    expect(step.state).toBe('verify.compact');
    const refusal = step.appended.find((message) => message.role === 'tool' && message.tool_call_id === 'call_finish_00000001');
    expect(refusal?.content).toBe(
      'Not yet: no passing test run after the last edit. Before finishing: run `npm test`, read the full output, and check the result against the original task (not against your code). Cover edge cases, not just the happy path.',
    );
    expect(step.notes).toContainEqual({
      kind: 'finish',
      allowed: false,
      step: 1,
      refusals: 1,
      why: 'no passing test run after the last edit',
      guard: 'testsPassedSinceLastEdit',
    });
  });

  it('accepts finish after a passing test run that follows the last edit, even within one turn', () => {
    const probe = atThink('fix');
    probe.reply({
      calls: [
        { name: 'edit_file', args: {} },
        { name: 'run', args: { command: 'npm test' } },
        { name: 'finish', args: { summary: 'fixed' } },
      ],
    });
    const step = probe.tools([edited('a.py'), ran('npm test', 0)], { summary: 'fixed' });
    expect(step.state).toBe('done');
    expect(step.context.status).toBe('done');
    expect(step.context.summary).toBe('fixed');
    expect(step.appended.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'Edit applied.\n[a.py]',
      'exit=0\n',
      'Finished.',
    ]);
  });

  it('counts only a real run of the test command: echo, || true and a pipe into tail do not pass the gate', () => {
    for (const command of ['echo npm test', 'npm test || true', 'npm test | tail -5', 'npm test -- --grep nothing']) {
      const probe = atThink('fix');
      probe.reply({
        calls: [
          { name: 'edit_file', args: {} },
          { name: 'run', args: { command } },
          { name: 'finish', args: { summary: 'fixed' } },
        ],
      });
      const step = probe.tools([edited('a.py'), ran(command, 0)], { summary: 'fixed' });
      expect(step.state, command).not.toBe('done');
    }
    for (const command of ['  npm   test ', 'npm test 2>&1', 'cd /work/repo && npm test']) {
      const probe = atThink('fix');
      probe.reply({
        calls: [
          { name: 'edit_file', args: {} },
          { name: 'run', args: { command } },
          { name: 'finish', args: { summary: 'fixed' } },
        ],
      });
      expect(probe.tools([edited('a.py'), ran(command, 0)], { summary: 'fixed' }).state, command).toBe('done');
    }
  });

  it('refuses when the last test run passed but an edit came after it; the edit sends the agent back to build', () => {
    const probe = atThink('verify');
    probe.reply({
      calls: [
        { name: 'run', args: { command: 'npm test' } },
        { name: 'edit_file', args: {} },
        { name: 'finish', args: { summary: 's' } },
      ],
    });
    const step = probe.tools([ran('npm test', 0), edited('a.py')], { summary: 's' });
    expect(step.context.facts.gateRefusals).toBe(1);
    expect(step.notes).toContainEqual(expect.objectContaining({ kind: 'finish', allowed: false }));
    expect(step.state).toBe('build.compact');
  });

  it('after a refusal the remaining calls of the turn still run', () => {
    const probe = atThink('build');
    probe.reply({
      calls: [
        { name: 'finish', args: { summary: 's' } },
        { name: 'run', args: { command: 'npm test' } },
      ],
    });
    const step = probe.tools([], { summary: 's' });
    expect(step.state).toBe('build.act');
    expect(step.context.cursor).toBe(1);
    expect(probe.tools([ran('npm test', 0)]).state).toBe('verify.compact');
  });

  it('closes calls after an accepted finish so the record stays well-formed', () => {
    const passed = {
      ...probeHarness(machine, rules).context.facts,
      lastPassSeq: 3,
      lastEditSeq: 2,
      seq: 3,
      checks: { tests: { passesSinceEdit: 1, lastRunSeq: 3, lastPassed: true } },
    };
    const probe = atThink('verify', { facts: passed });
    probe.reply({
      calls: [
        { name: 'finish', args: { summary: 'done' }, id: 'call_finish_00000002' },
        { name: 'run', args: { command: 'ls' }, id: 'call_late_0000000003' },
      ],
    });
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

describe('what the gate wants is declared in the rules', () => {
  /** A turn that edits, runs these commands (exit codes), then calls finish; returns the finish's result. */
  function editRunFinish(gated: ReturnType<typeof rulesSchema.parse>, commands: Array<[string, number]>) {
    const probe = probeHarness(createHarnessMachine(gated), gated, { at: 'fix.think' });
    probe.reply({
      calls: [
        { name: 'edit_file', args: {} },
        ...commands.map(([command]) => ({ name: 'run', args: { command } })),
        { name: 'finish', args: { summary: 'done' } },
      ],
    });
    const step = probe.tools([edited('a.py'), ...commands.map(([command, code]) => ran(command, code))], { summary: 'done' });
    return { state: step.state, refusal: step.notes.find((note) => note.kind === 'finish') };
  }

  it('the tests must pass twice after the last edit (verification.runs: 2)', () => {
    const twice = rulesSchema.parse({ verification: { runs: 2 } });
    const once = editRunFinish(twice, [['npm test', 0]]);
    expect(once.state).not.toBe('done');
    expect(once.refusal).toMatchObject({ allowed: false, why: '1 of 2 passing test runs after the last edit' });
    expect(
      editRunFinish(twice, [
        ['npm test', 0],
        ['npm test', 0],
      ]).state,
    ).toBe('done');
    // The same turn under the default rules (one run) is accepted: the rule is what refuses it.
    expect(editRunFinish(defaultRules(), [['npm test', 0]]).state).toBe('done');
  });

  it('more than one command, each with its own pass rule (a linter beside the tests)', () => {
    const linted = rulesSchema.parse({ verification: { checks: [{ name: 'lint', command: 'npm run lint', passPattern: '^0 problems$' }] } });
    const testsOnly = editRunFinish(linted, [['npm test', 0]]);
    expect(testsOnly.refusal).toMatchObject({ allowed: false, why: 'no passing run of `npm run lint` after the last edit' });
    const probe = probeHarness(createHarnessMachine(linted), linted, { at: 'fix.think' });
    probe.reply({
      calls: [
        { name: 'edit_file', args: {} },
        { name: 'run', args: { command: 'npm test' } },
        { name: 'run', args: { command: 'npm run lint' } },
        { name: 'finish', args: { summary: 'done' } },
      ],
    });
    // The lint run exits 0 but its output lacks the pattern: not a pass.
    expect(probe.tools([edited('a.py'), ran('npm test', 0), ran('npm run lint', 0, '3 problems')], { summary: 'done' }).state).not.toBe('done');
    const clean = probeHarness(createHarnessMachine(linted), linted, { at: 'fix.think' });
    clean.reply({
      calls: [
        { name: 'edit_file', args: {} },
        { name: 'run', args: { command: 'npm test' } },
        { name: 'run', args: { command: 'npm run lint' } },
        { name: 'finish', args: { summary: 'done' } },
      ],
    });
    expect(clean.tools([edited('a.py'), ran('npm test', 0), ran('npm run lint', 0, '0 problems')], { summary: 'done' }).state).toBe('done');
  });

  it('a rules file that replaces the gate guard must say so, and then refusals name it', () => {
    const twoPasses = { override: true, test: (view: { facts: { passingRunsSinceEdit: number } }) => view.facts.passingRunsSinceEdit >= 2 };
    expect(() => createHarnessMachine(defaultRules(), { guards: { testsPassedSinceLastEdit: twoPasses.test as never } })).toThrow(
      /a built-in guard has this name. To replace it, say so/,
    );
    const overridden = createHarnessMachine(defaultRules(), { guards: { testsPassedSinceLastEdit: twoPasses as never } });
    const probe = probeHarness(overridden, defaultRules(), { at: 'fix.think' });
    probe.reply({
      calls: [
        { name: 'edit_file', args: {} },
        { name: 'run', args: { command: 'npm test' } },
        { name: 'finish', args: { summary: 'done' } },
      ],
    });
    const step = probe.tools([edited('a.py'), ran('npm test', 0)], { summary: 'done' });
    expect(step.notes.find((note) => note.kind === 'finish')).toMatchObject({
      allowed: false,
      why: 'the gate guard testsPassedSinceLastEdit (overridden) did not hold',
      guard: 'testsPassedSinceLastEdit (overridden)',
    });
  });
});
