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

describe('which exits and stall rules can fire in a phase (machines/phase-exits.ts)', async () => {
  const exits = await import('../../machines/phase-exits.js');
  const parse = (input: Record<string, unknown>) => rulesSchema.parse(input);

  it("a phase can call the run's tools narrowed by its own list", () => {
    const narrowed = parse({ phases: { plan: { tools: ['read_file', 'grep'] } } });
    expect(exits.phaseTools('plan', narrowed)).toEqual(['read_file', 'grep']);
    expect(exits.phaseTools('build', narrowed)).toEqual(defaultRules().tools.enabled);
  });

  it('a guard that needs a tool, the gate or edits cannot hold where they are missing; a guard from code always can', () => {
    const readOnly = parse({ phases: { plan: { tools: ['read_file'] } } });
    expect(exits.guardCanHold('todoWritten', 'plan', readOnly)).toBe(false);
    expect(exits.guardCanHold('todoWritten', 'build', readOnly)).toBe(true);
    expect(exits.guardCanHold('editMade', 'plan', readOnly)).toBe(false);
    expect(exits.guardCanHold('always', 'plan', readOnly)).toBe(true);
    expect(exits.guardCanHold('myOwnGuard', 'plan', readOnly)).toBe(true);
    expect(exits.guardCanHold('finishRefused', 'build', parse({ verification: { gate: false } }))).toBe(false);
    expect(exits.guardCanHold('finishRefused', 'build', defaultRules())).toBe(true);
    // With a shell-only surface, edits come from commands.
    const shell = parse({ tools: { enabled: ['run', 'finish'] }, verification: { commandsCountAsEdits: true } });
    expect(exits.guardCanHold('editMade', 'build', shell)).toBe(true);
    expect(exits.guardCanHold('editMade', 'build', parse({ tools: { enabled: ['run', 'finish'] } }))).toBe(false);
  });

  it('a combined condition can hold when all (or any) of its parts can; a negation always can', () => {
    const readOnly = parse({ phases: { plan: { tools: ['read_file'] } } });
    expect(exits.canHold({ all: [{ guard: 'always' }, { guard: 'todoWritten' }] } as never, 'plan', readOnly)).toBe(false);
    expect(exits.canHold({ all: [{ guard: 'always' }, { guard: 'phaseSteps', min: 2 }] } as never, 'plan', readOnly)).toBe(true);
    expect(exits.canHold({ any: [{ guard: 'always' }, { guard: 'todoWritten' }] } as never, 'plan', readOnly)).toBe(true);
    expect(exits.canHold({ any: [{ guard: 'editMade' }, { guard: 'todoWritten' }] } as never, 'plan', readOnly)).toBe(false);
    expect(exits.canHold({ not: { guard: 'todoWritten' } } as never, 'plan', readOnly)).toBe(true);
  });

  it('a condition is phase-relative when it can only hold after the phase began', () => {
    expect(exits.isPhaseRelative({ guard: 'phaseSteps', min: 1 } as never)).toBe(true);
    expect(exits.isPhaseRelative({ guard: 'testRun' } as never)).toBe(false);
    expect(exits.isPhaseRelative({ guard: 'custom' } as never)).toBe(false);
    expect(exits.isPhaseRelative({ all: [{ guard: 'testRun' }, { guard: 'phaseSteps', min: 1 }] } as never)).toBe(true);
    expect(exits.isPhaseRelative({ any: [{ guard: 'testRun' }, { guard: 'phaseSteps', min: 1 }] } as never)).toBe(false);
    expect(exits.isPhaseRelative({ any: [{ guard: 'editedSinceTest' }, { guard: 'phaseSteps', min: 1 }] } as never)).toBe(true);
    expect(exits.isPhaseRelative({ not: { guard: 'phaseSteps', min: 1 } } as never)).toBe(false);
  });

  it('maxSteps is the first exit, to step_limit with a reason, or to the phase onMaxSteps names', () => {
    const limited = parse({ phases: { plan: { maxSteps: 5 } } });
    expect(exits.phaseExits('plan', limited)[0]).toEqual({
      guard: 'phaseSteps',
      min: 5,
      to: 'step_limit',
      reason: 'The plan phase took its 5 steps (phases.plan.maxSteps).',
    });
    const onward = parse({ phases: { plan: { maxSteps: 5, onMaxSteps: 'build' } } });
    expect(exits.phaseExits('plan', onward)[0]).toEqual({ guard: 'phaseSteps', min: 5, to: 'build' });
    expect(exits.phaseExits('build', onward)).toEqual(defaultRules().phases.build!.exits);
  });

  it('live exits leave out exits to a disabled phase and conditions that cannot hold; settle exits leave out phase-relative ones', () => {
    const noPlanTools = parse({
      phases: {
        plan: {
          tools: ['read_file'],
          exits: [
            { guard: 'todoWritten', to: 'build' },
            { guard: 'phaseSteps', min: 2, to: 'build' },
            { guard: 'always', to: 'build' },
          ],
        },
      },
    });
    expect(exits.liveExits('plan', noPlanTools).map((exit) => exit.guard)).toEqual(['phaseSteps', 'always']);
    expect(exits.settleExits('plan', noPlanTools).map((exit) => exit.guard)).toEqual(['always']);
    const noFix = parse({ phases: { fix: { enabled: false }, verify: { exits: [{ guard: 'testFailed', to: 'build' }] } } });
    expect(exits.liveExits('verify', noFix).map((exit) => exit.to)).toEqual(['build']);
  });

  it('a phase settles when an exit into it asks to and it has an exit that could hold on the entering turn', () => {
    expect(exits.settles('verify', defaultRules())).toBe(true);
    // Nothing asks to settle into fix, and build's only settle-able exits lead elsewhere.
    expect(exits.settles('fix', defaultRules())).toBe(false);
    // verify is entered with settle, but with only phase-relative exits it has nothing to judge on that turn.
    expect(exits.settles('verify', parse({ phases: { verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } } }))).toBe(false);
  });

  it('tests can pass while a phase is active when it may run commands or another phase leads into it', () => {
    const strictPlan = parse({ phases: { plan: { tools: ['read_file', 'update_todo'] } } });
    expect(exits.testsCanPassBy('plan', strictPlan)).toBe(false);
    expect(exits.testsCanPassBy('build', strictPlan)).toBe(true);
    const backToPlan = parse({ phases: { plan: { tools: ['read_file', 'update_todo'] }, verify: { exits: [{ guard: 'testFailed', to: 'plan' }] } } });
    expect(exits.testsCanPassBy('plan', backToPlan)).toBe(true);
  });

  it("stall rules live in a phase only when they can fire there, with the phase's own limits", () => {
    expect(exits.liveStallRules('build', parse({ stall: { enabled: false } }))).toEqual([]);
    const readOnly = parse({ phases: { plan: { tools: ['read_file'], stallLimits: { readLoop: 20 } } } });
    const live = exits.liveStallRules('plan', readOnly);
    expect(live.map((rule) => rule.guard)).toEqual([
      'repeatedAction',
      'repeatedFailure',
      'alternation',
      'readLoop',
      'longExploration',
      'nothingNew',
      'noToolCalls',
    ]);
    expect(live.find((rule) => rule.guard === 'readLoop')?.limit).toBe(20);
    expect(live.find((rule) => rule.guard === 'repeatedAction')?.limit).toBe(3);
  });

  it('the end states the exits lead to, of enabled phases only', () => {
    expect([...exits.endTargets(defaultRules())]).toEqual([]);
    const ending = parse({ phases: { plan: { maxSteps: 4 }, fix: { exits: [{ guard: 'failedRunsInRow', min: 3, to: 'stalled' }] } } });
    expect([...exits.endTargets(ending)].sort()).toEqual(['stalled', 'step_limit']);
    const planOff = parse({ phases: { plan: { enabled: false, maxSteps: 4 } } });
    expect([...exits.endTargets(planOff)]).toEqual([]);
  });

  it('a first phase no exit leads back into is capped at its maxSteps; others are unbounded; a stall can end a phase that outlasts the nudges', () => {
    const limited = parse({ phases: { plan: { maxSteps: 2 } } });
    expect(exits.stepCap('plan', limited)).toBe(2);
    expect(exits.stepCap('build', limited)).toBe(Number.POSITIVE_INFINITY);
    expect(exits.stepCap('plan', defaultRules())).toBe(Number.POSITIVE_INFINITY);
    const reentered = parse({ phases: { plan: { maxSteps: 2 }, verify: { exits: [{ guard: 'testFailed', to: 'plan' }] } } });
    expect(exits.stepCap('plan', reentered)).toBe(Number.POSITIVE_INFINITY);
    const smallest = parse({ phases: { plan: { maxSteps: 6, exits: [{ guard: 'phaseSteps', min: 4, to: 'build' }] } } });
    expect(exits.stepCap('plan', smallest)).toBe(4);
    // Two steps cannot outlast three nudges; four can.
    expect(exits.stallCanEnd('plan', limited)).toBe(false);
    expect(exits.stallCanEnd('plan', parse({ phases: { plan: { maxSteps: 4 } } }))).toBe(true);
    expect(exits.stallCanEnd('plan', parse({ phases: { plan: { maxSteps: 3 } } }))).toBe(false);
    expect(exits.stallCanEnd('build', parse({ stall: { onPersist: 'nudge' } }))).toBe(false);
    expect(exits.stallCanEnd('build', parse({ stall: { enabled: false } }))).toBe(false);
  });
});

describe('which phases lead into which', async () => {
  const exits = await import('../../machines/phase-exits.js');
  const parse = (input: Record<string, unknown>) => rulesSchema.parse(input);

  it('an exit into a disabled phase is no live exit', () => {
    expect(exits.liveExits('verify', parse({ phases: { fix: { enabled: false } } })).map((exit) => exit.to)).toEqual(['build']);
  });

  it('a phase settles only when an enabled phase has a settle exit into it, whatever its other exits do', () => {
    // build's exits settle into verify, and nothing settles into build.
    expect(exits.settles('build', defaultRules())).toBe(false);
    // Only plan settles into verify (on finishRefused), beside exits that do not.
    const onlyPlan = parse({
      phases: { build: { exits: [{ guard: 'testRun', to: 'verify' }] }, fix: { exits: [{ guard: 'testedAfterEdit', to: 'verify' }] } },
    });
    expect(exits.settles('verify', onlyPlan)).toBe(true);
    // A disabled phase asking to settle into fix does not count.
    const fromDisabled = parse({
      phases: { plan: { enabled: false, exits: [{ guard: 'always', to: 'fix', settle: true }] }, fix: { exits: [{ guard: 'testRun', to: 'verify' }] } },
    });
    expect(exits.settles('fix', fromDisabled)).toBe(false);
    expect(
      exits.settles(
        'fix',
        parse({ phases: { plan: { exits: [{ guard: 'always', to: 'fix', settle: true }] }, fix: { exits: [{ guard: 'testRun', to: 'verify' }] } } }),
      ),
    ).toBe(true);
  });

  it('a phase is entered from elsewhere by an enabled other phase with any exit into it; its own exits and disabled phases do not count', () => {
    // plan may run commands itself, though nothing leads into it.
    expect(exits.enteredFromElsewhere('plan', defaultRules())).toBe(false);
    expect(exits.testsCanPassBy('plan', defaultRules())).toBe(true);
    const strictPlan = { tools: ['read_file', 'update_todo'] };
    const selfExit = parse({ phases: { plan: { ...strictPlan, exits: [{ guard: 'todoWritten', to: 'plan' }] } } });
    expect(exits.enteredFromElsewhere('plan', selfExit)).toBe(false);
    expect(exits.testsCanPassBy('plan', selfExit)).toBe(false);
    const fromDisabled = parse({ phases: { plan: strictPlan, verify: { enabled: false, exits: [{ guard: 'testFailed', to: 'plan' }] } } });
    expect(exits.enteredFromElsewhere('plan', fromDisabled)).toBe(false);
    expect(exits.testsCanPassBy('plan', fromDisabled)).toBe(false);
    const oneOfTwo = parse({
      phases: {
        plan: strictPlan,
        verify: {
          exits: [
            { guard: 'testFailed', to: 'plan' },
            { guard: 'editedSinceTest', to: 'build' },
          ],
        },
      },
    });
    expect(exits.enteredFromElsewhere('plan', oneOfTwo)).toBe(true);
    expect(exits.testsCanPassBy('plan', oneOfTwo)).toBe(true);
  });

  it('only the first phase is capped, by its exits on phaseSteps to another phase, and not when it is entered again', () => {
    expect(exits.stepCap('plan', parse({ phases: { plan: { exits: [{ guard: 'phaseSteps', min: 2, to: 'plan' }] } } }))).toBe(Number.POSITIVE_INFINITY);
    expect(exits.stepCap('plan', parse({ phases: { plan: { exits: [{ guard: 'phaseTestRuns', min: 2, to: 'build' }] } } }))).toBe(Number.POSITIVE_INFINITY);
    // fix is no first phase even when nothing leads into it.
    const fixAlone = parse({ phases: { fix: { maxSteps: 2 }, verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } } });
    expect(exits.stepCap('fix', fixAlone)).toBe(Number.POSITIVE_INFINITY);
    expect(exits.stepCap('plan', parse({ phases: { plan: { maxSteps: 2, exits: [{ guard: 'todoWritten', to: 'plan' }] } } }))).toBe(2);
    const twoWays = parse({
      phases: {
        plan: { maxSteps: 2 },
        verify: {
          exits: [
            { guard: 'testFailed', to: 'plan' },
            { guard: 'editedSinceTest', to: 'build' },
          ],
        },
      },
    });
    expect(exits.stepCap('plan', twoWays)).toBe(Number.POSITIVE_INFINITY);
    expect(exits.stepCap('plan', parse({ phases: { plan: { maxSteps: 2 }, verify: { enabled: false, exits: [{ guard: 'testFailed', to: 'plan' }] } } }))).toBe(
      2,
    );
  });
});
