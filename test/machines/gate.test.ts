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
    // The finish note says the gate decided.
    expect(step.notes).toContainEqual({ kind: 'finish', allowed: true, step: 1, summary: 'fixed', gate: true });
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
      why: 'the guard testsPassedSinceLastEdit (overridden) did not hold (runs=1)',
      guard: 'testsPassedSinceLastEdit (overridden)',
    });
  });
});

describe('what a refusal says, and what counts as a verification run', async () => {
  const { missingChecks, refusalUpdate, refusalParams, acceptanceUpdate, gateParams } = await import('../../machines/gate.js');
  const verification = await import('../../machines/verification.js');
  const linted = rulesSchema.parse({ verification: { runs: 2, checks: [{ name: 'lint', command: 'npm run lint', runs: 1 }] } });
  const blank = probeHarness(machine, rules).context;

  it('before any edit the refusal says "yet"; after one, "after the last edit"; each missing check is named with its command', () => {
    const checks = verification.verificationOf(linted).checks;
    expect(missingChecks(blank, checks)).toEqual([
      { command: 'npm test', why: '0 of 2 passing test runs yet' },
      { command: 'npm run lint', why: 'no passing run of `npm run lint` yet' },
    ]);
    const edited = { ...blank, facts: { ...blank.facts, lastEditSeq: 0, checks: { tests: { passesSinceEdit: 2, lastRunSeq: 1, lastPassed: true } } } };
    expect(missingChecks(edited, checks)).toEqual([{ command: 'npm run lint', why: 'no passing run of `npm run lint` after the last edit' }]);
  });

  it("the refusal names every command still to run, and the gate guard's parameters are the rules' runs per check", () => {
    const context = {
      ...blank,
      calls: [{ id: 'call_finish_0000000001', type: 'function' as const, function: { name: 'finish', arguments: '{}' } }],
      cursor: 0,
    };
    const update = refusalUpdate(context, refusalParams(linted));
    expect(update.append?.[0]?.content).toContain('run `npm test` and `npm run lint`');
    expect(update.notes?.[0]).toMatchObject({ why: '0 of 2 passing test runs yet; no passing run of `npm run lint` yet' });
    expect(update.context?.turn?.finishRefused).toBe(true);
    expect(update.context?.cursor).toBe(1);
    // A gate whose checks all pass but which still refused (its guard combined with others) says only that it did not hold.
    const passed = {
      ...context,
      facts: {
        ...blank.facts,
        checks: { tests: { passesSinceEdit: 2, lastRunSeq: 1, lastPassed: true }, lint: { passesSinceEdit: 1, lastRunSeq: 2, lastPassed: true } },
      },
    };
    const bare = refusalUpdate(passed, refusalParams(linted));
    expect(bare.notes?.[0]).toMatchObject({ why: 'the gate did not hold' });
    expect(bare.append?.[0]?.content).toContain('run `npm test`');
    expect(gateParams(linted)).toEqual({ runs: 2, checks: { lint: 1 } });
  });

  it('an accepted finish takes its summary only when it is a string in valid arguments', () => {
    const accept = (args: string) =>
      acceptanceUpdate(
        { ...blank, calls: [{ id: 'call_finish_0000000001', type: 'function', function: { name: 'finish', arguments: args } }], cursor: 0 },
        { gate: true },
      );
    expect(accept('{"summary":"fixed it"}').context?.summary).toBe('fixed it');
    expect(accept('{"summary":42}').context?.summary).toBe('');
    expect(accept('not json').context?.summary).toBe('');
    expect(accept('{"summary":"s"}').notes).toEqual([{ kind: 'finish', allowed: true, step: 0, summary: 's', gate: true }]);
  });

  it('a command runs a check when it contains it, whitespace aside; an empty check command matches nothing', () => {
    expect(verification.isTestCommand('cd x &&   npm   test -- -u', 'npm test')).toBe(true);
    expect(verification.isTestCommand('npm run build', 'npm test')).toBe(false);
    expect(verification.isTestCommand('anything', '  ')).toBe(false);
    expect(verification.isExactTestCommand('anything', ' ')).toBe(false);
    expect(verification.isExactTestCommand('cd sub && npm test 2>&1', 'npm test')).toBe(true);
    expect(verification.isExactTestCommand('npm test 2>&1 | cat', 'npm test')).toBe(false);
  });

  it("a pass needs the check's exit code, and its pattern on any line of the output when one is set", () => {
    const check = { passExitCode: 0, passPattern: '^ok$' };
    expect(verification.isPass(0, 'running\nok\ndone', check)).toBe(true);
    expect(verification.isPass(0, 'not ok', check)).toBe(false);
    expect(verification.isPass(1, 'ok', check)).toBe(false);
    expect(verification.isPass(3, 'anything', { passExitCode: 3 })).toBe(true);
    expect(verification.isPass(null, '', { passExitCode: 0 })).toBe(false);
  });

  it('the first check a command runs is the one it counts for, with the test command filled in', () => {
    const params = verification.verificationOf(linted);
    expect(verification.checkOf('npm test', params, 'npm test')).toMatchObject({ name: 'tests', command: 'npm test', runs: 2 });
    expect(verification.checkOf('npm run lint', params, 'npm test')).toMatchObject({ name: 'lint', command: 'npm run lint', runs: 1 });
    expect(verification.checkOf('ls', params, 'npm test')).toBeNull();
    const patterned = verification.verificationOf(
      rulesSchema.parse({ verification: { passPattern: 'passed', checks: [{ name: 'lint', command: 'lint', passPattern: 'clean', passExitCode: 2 }] } }),
    );
    expect(patterned.checks).toEqual([
      { name: 'tests', command: null, passExitCode: 0, runs: 1, passPattern: 'passed' },
      { name: 'lint', command: 'lint', passExitCode: 2, runs: 1, passPattern: 'clean' },
    ]);
    expect(verification.verificationOf(defaultRules()).checks[0]).not.toHaveProperty('passPattern');
  });
});

describe('refused finishes are actions like any other', async () => {
  const { acceptanceUpdate } = await import('../../machines/gate.js');
  const verification = await import('../../machines/verification.js');
  const blank = probeHarness(machine, rules).context;

  /** One turn whose only call is a finish the gate refuses; returns the stall notes. */
  const refuse = (probe: ReturnType<typeof probeHarness>) => {
    if (probe.state.endsWith('compact')) probe.contextReady();
    probe.reply({ calls: [{ name: 'finish', args: { summary: 'done' } }] });
    return probe.tools([], { summary: 'done' }).notes.filter((note) => note.kind === 'stall');
  };

  it('a model that keeps calling finish while the gate refuses is repeating itself: the third refusal is nudged', () => {
    const probe = atThink('build');
    expect([refuse(probe), refuse(probe), refuse(probe)].map((notes) => notes.map((note) => note.rule))).toEqual([[], [], ['repeatedAction']]);
    expect(probe.context.facts).toMatchObject({ gateRefusals: 3, seq: 3 });
  });

  it('a refusal is a failure: with only repeatedFailure live, the third refusal in a row is nudged by it', () => {
    const failures = rulesSchema.parse({ stall: { rules: [{ guard: 'repeatedFailure', limit: 3 }] } });
    const probe = probeHarness(createHarnessMachine(failures), failures, { at: 'build.think' });
    expect([refuse(probe), refuse(probe), refuse(probe)].map((notes) => notes.map((note) => note.rule))).toEqual([[], [], ['repeatedFailure']]);
  });

  it('accepting with no call left at the cursor closes nothing and takes no summary', () => {
    const update = acceptanceUpdate({ ...blank, calls: [], cursor: 0 }, { gate: false });
    expect(update.append).toEqual([]);
    expect(update.context?.summary).toBe('');
  });

  it('only a leading `cd <dir> &&` and a trailing `2>&1` are stripped; an empty check command is no command, not even an empty one', () => {
    expect(verification.isExactTestCommand('npm cd x && test', 'npm test')).toBe(false);
    expect(verification.isExactTestCommand('npm 2>&1 test', 'npm test')).toBe(false);
    expect(verification.isExactTestCommand(' ', '  ')).toBe(false);
    expect(verification.isExactTestCommand('', '')).toBe(false);
  });
});
