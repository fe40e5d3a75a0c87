import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/errors.js';
import { checkRuleReferences, type Registered } from '../../machines/rules-check.js';
import { defaultRules, type Rules, rulesSchema } from '../../rules/schema.js';

/** The problems checkRuleReferences reports for these rules, one a line; none when they are fine. */
function problemsOf(rules: Rules, registered?: Registered): string[] {
  try {
    checkRuleReferences(rules, registered);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message.split('\n');
  }
}
const problems = (input: unknown, registered?: Registered) => problemsOf(rulesSchema.parse(input), registered);
const allGuards =
  'guards: agentApproved, alternation, always, commandPassed, editMade, editThrash, editedSinceTest, failedRunsInRow, filesChanged, finishRefused, gateRefusals, ' +
  'longExploration, noToolCalls, nothingNew, phaseSteps, phaseTestRuns, readLoop, repeatedAction, repeatedFailure, testFailed, testPassed, testRun, ' +
  'testedAfterEdit, testsPassedSinceLastEdit, todoComplete, todoProgress, todoWritten (rein rules guards describes them)';

describe('what the rules schema cannot check: names, parameters and targets (machines/rules-check.ts)', () => {
  it('the default rules and every preset-style variation of them pass', () => {
    expect(problemsOf(defaultRules())).toEqual([]);
    expect(problems({ phases: { plan: { enabled: false }, fix: { exits: [{ guard: 'always', to: 'build' }] } } })).toEqual([]);
  });

  it('a guard must exist; a near miss is named, and every guard is listed', () => {
    expect(problems({ phases: { plan: { exits: [{ guard: 'todoWriten', to: 'build' }] } } })).toEqual([
      `phases.plan.exits[0].guard: unknown guard "todoWriten" (did you mean "todoWritten"?); ${allGuards}`,
    ]);
    expect(problems({ phases: { plan: { exits: [{ guard: 'zzzzzzzz', to: 'build' }] } } })).toEqual([
      `phases.plan.exits[0].guard: unknown guard "zzzzzzzz"; ${allGuards}`,
    ]);
  });

  it('agentApproved names an agent the rules declare; a near miss is named', () => {
    const agents = { reviewer: { description: 'Reviews the diff.', readOnly: true } };
    const gate = (agent: string) => ({ agents, verification: { when: { all: [{ guard: 'testsPassedSinceLastEdit' }, { guard: 'agentApproved', agent }] } } });
    expect(problems(gate('reviewer'))).toEqual([]);
    expect(problems(gate('reviwer'))).toEqual(['verification.when.all[1].agent: no agent "reviwer" (did you mean "reviewer"?); agents declares reviewer']);
    expect(problems({ phases: { verify: { exitsPrepend: [{ guard: 'agentApproved', agent: 'constructor', to: 'fix' }] } } })).toEqual([
      'phases.verify.exits[0].agent: no agent "constructor"; agents declares none',
    ]);
  });

  it("the machine's own guards are not for rules, in an exit or a stall rule", () => {
    expect(problems({ phases: { build: { exits: [{ guard: 'budgetSpent', to: 'verify' }] } } })).toEqual([
      'phases.build.exits[0].guard: "budgetSpent" is one of the machine\'s own guards; rules name the guards listed by `rein rules guards`',
    ]);
    expect(problems({ stall: { rules: [{ guard: 'stallPersists', limit: 2 }] } })).toEqual([
      'stall.rules[0].guard: "stallPersists" is one of the machine\'s own guards; rules name the guards listed by `rein rules guards`',
    ]);
  });

  it("a built-in guard's parameters are checked against its own schema; a stray key is named with what the guard and the rule take", () => {
    expect(problems({ phases: { plan: { exits: [{ guard: 'todoProgress', cnt: 2, to: 'build' }] } } })).toEqual([
      'phases.plan.exits[0].cnt: unknown key "cnt" (did you mean "count"?), found 2; guard "todoProgress" takes "count", and the rule itself "guard", "all", "any", "not", "to", "actions", "settle", "reason"',
    ]);
    // The guard's own keys first; then the rule's (a misspelt "settle"); a guard without parameters says so.
    expect(problems({ phases: { build: { exits: [{ guard: 'testRun', to: 'verify', setle: true }] } } })).toEqual([
      'phases.build.exits[0].setle: unknown key "setle" (did you mean "settle"?), found true; guard "testRun" takes no parameters, and the rule itself "guard", "all", "any", "not", "to", "actions", "settle", "reason"',
    ]);
    expect(problems({ phases: { build: { exits: [{ guard: 'testsPassedSinceLastEdit', runs: 2, chekcs: {}, to: 'verify' }] } } })).toEqual([
      'phases.build.exits[0].chekcs: unknown key "chekcs" (did you mean "checks"?), found {}; guard "testsPassedSinceLastEdit" takes "runs", "checks", and the rule itself "guard", "all", "any", "not", "to", "actions", "settle", "reason"',
    ]);
    // A missing or wrong value: the guard's schema speaks, at the rule's path.
    expect(problems({ phases: { build: { exits: [{ guard: 'phaseSteps', to: 'verify' }] } } })).toEqual([
      'phases.build.exits[0].min: expected number, found nothing',
    ]);
    expect(problems({ phases: { build: { exits: [{ guard: 'phaseSteps', min: 0, to: 'verify' }] } } })).toEqual([
      expect.stringMatching(/^phases\.build\.exits\[0\]\.min: .*found 0$/),
    ]);
    expect(problems({ phases: { build: { exits: [{ guard: 'phaseSteps', min: 2, to: 'verify' }] } } })).toEqual([]);
  });

  it('a registered guard, or one that replaces a built-in, takes whatever parameters its rules give it', () => {
    const exits = { phases: { plan: { exits: [{ guard: 'wrote', times: 2, to: 'build' }] } } };
    expect(problems(exits, { guards: ['wrote'], actions: [] })).toEqual([]);
    expect(problems(exits)[0]).toMatch(/^phases\.plan\.exits\[0\]\.guard: unknown guard "wrote"/);
    const replaced = { phases: { build: { exits: [{ guard: 'phaseSteps', steps: 2, to: 'verify' }] } } };
    expect(problems(replaced, { guards: ['phaseSteps'], actions: [] })).toEqual([]);
    expect(problems(replaced)).toHaveLength(2);
  });

  it('combinators check each part at its own path; parameters beside all/any/not are refused', () => {
    expect(
      problems({
        phases: {
          build: {
            exits: [
              { all: [{ guard: 'testRun' }, { guard: 'phaseSteps', max: 2, min: 1 }], to: 'verify' },
              { any: [{ guard: 'testRun' }, { guard: 'todoWriten' }], to: 'verify' },
              { not: { guard: 'budgetSpent' }, to: 'verify' },
              { not: { guard: 'testRun' }, min: 3, to: 'verify' },
            ],
          },
        },
      }),
    ).toEqual([
      'phases.build.exits[0].all[1].max: unknown key "max" (did you mean "min"?), found 2; guard "phaseSteps" takes "min", and the rule itself "guard", "all", "any", "not"',
      expect.stringMatching(/^phases\.build\.exits\[1\]\.any\[1\]\.guard: unknown guard "todoWriten" \(did you mean "todoWritten"\?\); guards: /),
      'phases.build.exits[2].not.guard: "budgetSpent" is one of the machine\'s own guards; rules name the guards listed by `rein rules guards`',
      'phases.build.exits[3].min: unknown key "min"; parameters go beside a "guard", not beside "all", "any" or "not"',
    ]);
    // Nested parts may not carry the exit's own keys either.
    expect(problems({ phases: { build: { exits: [{ all: [{ guard: 'testRun', settle: true }], to: 'verify' }] } } })).toEqual([
      'phases.build.exits[0].all[0].settle: unknown key "settle", found true; guard "testRun" takes no parameters, and the rule itself "guard", "all", "any", "not"',
    ]);
  });

  it('an action must exist and get its parameters as strings, on entry and on exits; registered actions take any', () => {
    expect(
      problems({
        phases: {
          fix: {
            onEnter: [
              { action: 'notfy', text: 'x' },
              { action: 'notify', txt: 'x' },
            ],
          },
          verify: { exits: [{ guard: 'testFailed', to: 'fix', actions: [{ action: 'mark' }, { action: 'mark', label: 3 }] }] },
        },
      }),
    ).toEqual([
      'phases.verify.exits[0].actions[0].label: action "mark" needs "label" (a string), found nothing',
      'phases.verify.exits[0].actions[1].label: action "mark" needs "label" (a string), found 3',
      'phases.fix.onEnter[0].action: unknown action "notfy" (did you mean "notify"?); actions: mark, notify',
      'phases.fix.onEnter[1].text: action "notify" needs "text" (a string), found nothing',
      'phases.fix.onEnter[1].txt: unknown key "txt" (did you mean "text"?); action "notify" takes only "text"',
    ]);
    const custom = {
      phases: {
        fix: {
          onEnter: [
            { action: 'remind', every: 2 },
            { action: 'notify', anything: true },
          ],
        },
      },
    };
    expect(problems(custom, { guards: [], actions: ['remind', 'notify'] })).toEqual([]);
    expect(problems(custom)[0]).toBe('phases.fix.onEnter[0].action: unknown action "remind"; actions: mark, notify');
  });

  it('an exit of an enabled phase may not lead into a disabled one; a disabled phase is not checked for it', () => {
    expect(problems({ phases: { fix: { enabled: false } } })).toEqual([
      'phases.verify.exits[0].to: phase "fix" is disabled (phases.fix.enabled is false), so this exit leads nowhere',
    ]);
    expect(
      problems({
        phases: {
          plan: { enabled: false, exits: [{ guard: 'always', to: 'fix' }] },
          fix: { enabled: false },
          verify: { exits: [{ guard: 'testPassed', to: 'build' }] },
        },
      }),
    ).toEqual([]);
    // Exits into final states are not phases.
    expect(problems({ phases: { fix: { exits: [{ guard: 'gateRefusals', min: 3, to: 'stalled' }] } } })).toEqual([]);
  });

  it('onMaxSteps needs maxSteps and an enabled target', () => {
    expect(problems({ phases: { plan: { onMaxSteps: 'build' } } })).toEqual(['phases.plan.onMaxSteps: needs phases.plan.maxSteps']);
    expect(problems({ phases: { fix: { enabled: false, exits: [] }, verify: { exits: [], maxSteps: 3, onMaxSteps: 'fix' } } })).toEqual([
      'phases.verify.onMaxSteps: phase "fix" is disabled (phases.fix.enabled is false), so this limit leads nowhere',
    ]);
    expect(problems({ phases: { fix: { enabled: false, exits: [], maxSteps: 3, onMaxSteps: 'fix' }, verify: { exits: [] } } })).toEqual([]);
    expect(problems({ phases: { verify: { maxSteps: 3, onMaxSteps: 'step_limit' } } })).toEqual([]);
  });

  it("a phase's tools must be tools of the run", () => {
    expect(problems({ phases: { build: { tools: ['read_file', 'frobnicate', 'read_flie'] } } })).toEqual([
      'phases.build.tools[1]: "frobnicate" is not a tool of this run; tools.enabled: read_file, grep, edit_file, run, update_todo, finish, job',
      'phases.build.tools[2]: "read_flie" is not a tool of this run (did you mean "read_file"?); tools.enabled: read_file, grep, edit_file, run, update_todo, finish, job',
    ]);
  });

  it('tools.phases places tools of the run in phases of the rules', () => {
    expect(problems({ tools: { phases: { run: ['build', 'fixx'], rnu: ['fix'] } } })).toEqual([
      'tools.phases.run[1]: unknown phase "fixx" (did you mean "fix"?); phases: plan, build, verify, fix (a registered tool\'s own `phases` fill tools.phases)',
      'tools.phases.rnu: "rnu" is not a tool of this run (did you mean "run"?); tools.enabled: read_file, grep, edit_file, run, update_todo, finish, job',
    ]);
    expect(problems({ tools: { phases: { run: ['build', 'verify'] } } })).toEqual([]);
  });

  it('nudges, stall limits and stall messages must name a stall rule; limits one in effect', () => {
    expect(problems({ phases: { fix: { nudges: { repeatedFailur: 'Re-read it.', readLoop: 'Stop.' } } } })).toEqual([
      'phases.fix.nudges.repeatedFailur: no stall rule "repeatedFailur" (did you mean "repeatedFailure"?); stall rules: repeatedAction, repeatedFailure, alternation, editThrash, readLoop, longExploration, nothingNew, noToolCalls',
    ]);
    // A registered guard used as a stall rule is a stall rule too.
    const registered = { stall: { rules: [{ guard: 'slow', limit: 2 }] }, phases: { fix: { nudges: { slow: 'Hurry.' }, stallLimits: { slow: 4 } } } };
    expect(problems(registered, { guards: ['slow'], actions: [] })).toEqual([]);
    expect(
      problems({ stall: { rules: [{ guard: 'readLoop', limit: 9 }] }, phases: { build: { stallLimits: { readLoop: 4, readLop: 2, editThrash: 3 } } } }),
    ).toEqual([
      'phases.build.stallLimits.readLop: no stall rule "readLop" in stall.rules (did you mean "readLoop"?); in effect: readLoop',
      'phases.build.stallLimits.editThrash: no stall rule "editThrash" in stall.rules; in effect: readLoop',
    ]);
    expect(
      problems({
        stall: {
          rules: [
            { guard: 'readLoop', limit: 9 },
            { guard: 'alternation', limit: 6 },
          ],
        },
        phases: { build: { stallLimits: { editThrash: 3 } } },
      }),
    ).toEqual(['phases.build.stallLimits.editThrash: no stall rule "editThrash" in stall.rules; in effect: readLoop, alternation']);
    expect(problems({ messages: { stall: { readLop: 'x', readLoop: 'y' } } })).toEqual([
      'messages.stall.readLop: no stall rule "readLop" (did you mean "readLoop"?); stall rules: repeatedAction, repeatedFailure, alternation, editThrash, readLoop, longExploration, nothingNew, noToolCalls',
    ]);
  });

  it('stall rules: a built-in that is not a stall rule is refused; their own keys are "guard", "message" and the limit', () => {
    expect(problems({ stall: { rules: [{ guard: 'testRun', limit: 3 }] } })).toEqual([
      'stall.rules[0].guard: "testRun" is not a stall rule; stall rules: repeatedAction, repeatedFailure, alternation, editThrash, readLoop, longExploration, nothingNew, noToolCalls, or a guard a rules module registers',
    ]);
    expect(problems({ stall: { rules: [{ guard: 'always', limit: 3 }] } }, { guards: ['alwayz'], actions: [] })[0]).toContain(
      '"always" is not a stall rule (did you mean "alwayz"?)',
    );
    expect(problems({ stall: { rules: [{ guard: 'readLoop', limit: 9, message: 'Stop re-reading.' }] } })).toEqual([]);
    expect(problems({ stall: { rules: [{ guard: 'readLoop', limit: 9, window: 3 }] } })).toEqual([
      'stall.rules[0].window: unknown key "window", found 3; guard "readLoop" takes "limit", and the rule itself "guard", "message"',
    ]);
    // A registered guard may be a stall rule, with its own parameters; so may one replacing a built-in.
    expect(problems({ stall: { rules: [{ guard: 'slow', limit: 2, window: 3 }] } }, { guards: ['slow'], actions: [] })).toEqual([]);
    expect(problems({ stall: { rules: [{ guard: 'testRun', limit: 2 }] } }, { guards: ['testRun'], actions: [] })).toEqual([]);
  });

  it('verification checks have their own names, and "tests" is the test command', () => {
    expect(
      problems({
        verification: {
          checks: [
            { name: 'tests', command: 'npm run lint' },
            { name: 'lint', command: 'npm run lint' },
            { name: 'lint', command: 'npx biome check' },
          ],
        },
      }),
    ).toEqual([
      'verification.checks[0].name: "tests" is the test command\'s own check (set verification.runs for it)',
      'verification.checks[2].name: "lint" is used twice',
    ]);
  });

  it('some phase stays enabled (build may go, if nothing leads to it), and the context thresholds keep their order', () => {
    const off = { enabled: false };
    expect(problems({ phases: { plan: off, build: off, verify: off, fix: off } })).toContain(
      'phases: every phase is disabled; a run needs a phase to start in',
    );
    expect(problems({ phases: { build: off } })).toContain(
      'phases.plan.exits[0].to: phase "build" is disabled (phases.build.enabled is false), so this exit leads nowhere',
    );
    expect(problems({ phases: { fix: { enabled: false }, verify: { exits: [{ guard: 'testPassed', to: 'build' }] } } })).toEqual([]);
    const base = defaultRules();
    const context = (change: Partial<Rules['context']>) => problemsOf({ ...base, context: { ...base.context, ...change } });
    expect(context({ lowWater: 0.6, soft: 0.6, hard: 0.85 })).toEqual([
      'context.lowWater: a compaction must leave the view below where the next is due (context.soft 0.6), found 0.6',
    ]);
    expect(context({ lowWater: 0.59, soft: 0.6, hard: 0.85 })).toEqual([]);
    expect(context({ lowWater: 0.4, soft: 0.85, hard: 0.85 })).toEqual([
      'context.soft: compactions must be due before the view reaches context.hard (0.85), found 0.85',
    ]);
    expect(context({ lowWater: 0.4, soft: 0.84, hard: 0.85 })).toEqual([]);
  });

  it('every problem is reported at once', () => {
    expect(
      problems({
        phases: { build: { tools: ['frobnicate'] }, plan: { onMaxSteps: 'build' } },
        verification: { checks: [{ name: 'tests', command: 'x' }] },
      }),
    ).toEqual([
      'phases.plan.onMaxSteps: needs phases.plan.maxSteps',
      expect.stringMatching(/^phases\.build\.tools\[0\]: "frobnicate" is not a tool of this run/),
      expect.stringMatching(/^verification\.checks\[0\]\.name: "tests"/),
    ]);
  });
});
