import { describe, expect, it } from 'vitest';
import { rulesSchema } from '../../../rules/schema.js';
// Through the public test kit, as a user's own coverage test would import it.
import { assertFullCoverage, checkCoverage, createHarnessMachine } from '../../../testing/index.js';
import { coverage } from './coverage-helper.js';

// Each check explores a few thousand states: seconds alone, much longer on a loaded two-core machine.
describe('model-based coverage under changed rules', { timeout: 180_000 }, () => {
  it('with token and cost caps (the budget check state exists and both ways are taken)', () => {
    const { report, text } = coverage(
      { budgets: { maxTokens: 50_000, maxCostUsd: 1 }, model: { prices: { unknown: { input: 3, cachedInput: 0.3, output: 15 } } } },
      'capped',
    );
    expect(report.transitions.some((info) => info.source.endsWith('checkBudget'))).toBe(true);
    expect(
      report.missing.map((info) => info.key),
      text,
    ).toEqual([]);
  });

  it("covers every stall nudge when a phase halves the stall limits and another turns one off (each phase's own limits searched)", () => {
    const halved = { repeatedAction: 2, repeatedFailure: 2, alternation: 3, editThrash: 2, readLoop: 3, longExploration: 25, nothingNew: 3, noToolCalls: 2 };
    const { report, text } = coverage({ phases: { fix: { stallLimits: halved }, plan: { stallLimits: { readLoop: 'off' } } } }, 'halved in fix');
    expect(
      report.missing.map((info) => info.key),
      text,
    ).toEqual([]);
  });

  it('covers an exit on todo progress (items ticked off), and replays it', async () => {
    const { report, text, replay } = coverage(
      {
        phases: {
          build: {
            exits: [
              { guard: 'todoProgress', count: 2, to: 'verify' },
              { guard: 'testRun', to: 'verify', settle: true },
            ],
          },
        },
      },
      'todo progress',
    );
    expect(report.covered.has('build.route --always [todoProgress(count=2)]--> verify.observe'), text).toBe(true);
    expect(
      report.missing.map((info) => info.key),
      text,
    ).toEqual([]);
    expect([...(await replay())]).toEqual([]);
  });

  it('names a transition that a rules change leaves untaken', () => {
    // `always` first makes the later build exits dead: the report must say which.
    const { report } = coverage(
      {
        phases: {
          build: {
            exits: [
              { guard: 'always', to: 'verify' },
              { guard: 'testRun', to: 'verify' },
            ],
          },
        },
      },
      'shadowed',
    );
    expect(report.missing.map((info) => info.key)).toContain('build.route --always [testRun]--> verify.observe');
  });

  // Witness turns are sized from the rules: a raised or lowered stall limit, in a stall rule or an exit, is still reached.
  it.each([
    [
      'raised limits (the README example)',
      {
        stall: {
          rules: [
            { guard: 'repeatedAction', limit: 6 },
            { guard: 'readLoop', limit: 12 },
          ],
        },
      },
    ],
    ['a lowered limit', { stall: { rules: [{ guard: 'repeatedAction', limit: 2 }] } }],
    [
      'every rule moved, read loop below alternation',
      {
        stall: {
          maxNudges: 3,
          rules: [
            { guard: 'repeatedAction', limit: 2 },
            { guard: 'readLoop', limit: 3 },
            { guard: 'noToolCalls', limit: 5 },
            { guard: 'alternation', limit: 4 },
            { guard: 'editThrash', limit: 2 },
            { guard: 'repeatedFailure', limit: 2 },
          ],
        },
      },
    ],
    [
      'an exit with a limit of its own',
      {
        phases: {
          build: {
            exits: [
              // Below the readLoop stall limit (5): at the same limit the nudge starts the count over before the exit looks.
              { guard: 'readLoop', limit: 3, to: 'plan' },
              { guard: 'testRun', to: 'verify', settle: true },
            ],
          },
        },
      },
    ],
  ])('with %s, every transition is taken and replays', async (_name, rulesInput) => {
    const rules = rulesSchema.parse(rulesInput);
    await expect(assertFullCoverage(createHarnessMachine(rules), rules)).resolves.toBeDefined();
  });

  it('reaches an exit on a custom guard that counts (eight test runs), by walks that repeat one kind of turn, and replays it', async () => {
    const rules = rulesSchema.parse({
      phases: {
        fix: {
          exits: [
            { guard: 'manyTests', to: 'plan' },
            { guard: 'testedAfterEdit', to: 'verify' },
          ],
        },
      },
    });
    const machine = createHarnessMachine(rules, { guards: { manyTests: (view) => view.facts.testRuns >= 8 } });
    const report = await assertFullCoverage(machine, rules);
    // Eight test runs take at least eight model replies on the way there.
    const witness = report.witnesses.get('fix.route --always [manyTests]--> plan.observe')!;
    expect(witness.path.filter((event) => event.type === 'xstate.done.actor.model').length).toBeGreaterThanOrEqual(8);
  });

  it('explores a phase that only a counting guard leads into (fix after three refused finishes) as fully as any other', async () => {
    const rules = rulesSchema.parse({
      phases: {
        verify: {
          exits: [
            { guard: 'refusedThrice', to: 'fix' },
            { guard: 'editedSinceTest', to: 'build' },
          ],
        },
      },
    });
    const machine = createHarnessMachine(rules, { guards: { refusedThrice: (view) => view.facts.gateRefusals >= 3 } });
    const report = await assertFullCoverage(machine, rules);
    expect(report.covered.has('fix.observe --always [stepLimitReached(max=40)]--> step_limit')).toBe(true);
  });

  it('runs the stall search from a phase that the phase search reaches but the stall search only reaches by counting', async () => {
    // verify is reached through plan's finishRefused, but the stall search's turns only get there after five edits.
    const rules = rulesSchema.parse({ phases: { build: { exits: [{ guard: 'manyEdits', to: 'verify' }] } } });
    const machine = createHarnessMachine(rules, { guards: { manyEdits: (view) => view.facts.edits >= 5 } });
    const report = await assertFullCoverage(machine, rules);
    expect(report.covered.has('verify.review --always [noToolCalls(limit=3)]--> verify.route')).toBe(true);
  });

  it('assertFullCoverage rejects naming what is untaken and unreachable', async () => {
    const rules = rulesSchema.parse({ phases: { verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } } });
    await expect(assertFullCoverage(createHarnessMachine(rules), rules)).rejects.toThrow(/not covered: fix\.think[\s\S]*unreachable state: fix\b/);
  });

  // The case: "the plan phase lasts at most 3 steps", in JSON and as a guard of one's own: covered, and each covered path replays.
  it.each([
    ['phases.plan.maxSteps', { phases: { plan: { maxSteps: 3, onMaxSteps: 'build' } } }, {}],
    [
      'a phaseSteps exit',
      {
        phases: {
          plan: {
            exits: [
              { guard: 'phaseSteps', min: 3, to: 'build' },
              { guard: 'todoWritten', to: 'build' },
            ],
          },
        },
      },
      {},
    ],
    [
      'combinators',
      {
        phases: {
          build: {
            exits: [
              { all: [{ guard: 'testRun' }, { not: { guard: 'testFailed' } }], to: 'verify', settle: true },
              { any: [{ guard: 'testFailed' }, { guard: 'failedRunsInRow', min: 2 }], to: 'fix' },
            ],
          },
        },
      },
      {},
    ],
    [
      'an exit that ends the run after three refusals',
      {
        phases: {
          verify: {
            exits: [
              { guard: 'gateRefusals', min: 3, to: 'stalled' },
              { guard: 'testFailed', to: 'fix' },
              { guard: 'editedSinceTest', to: 'build' },
            ],
          },
        },
      },
      {},
    ],
  ])('with %s, every transition is covered and replays (covered means a witness that replays)', async (_name, rulesInput, guards) => {
    const rules = rulesSchema.parse(rulesInput);
    const report = await assertFullCoverage(createHarnessMachine(rules, { guards: guards as never }), rules);
    expect(report.missing).toEqual([]);
  });

  it('with a registered guard that counts steps, every transition is either covered with a replaying witness or reported as not covered, with the reason, never both', async () => {
    const rules = rulesSchema.parse({
      phases: {
        plan: {
          exits: [
            { guard: 'planLong', to: 'build' },
            { guard: 'todoWritten', to: 'build' },
          ],
        },
      },
    });
    const machine = createHarnessMachine(rules, { guards: { planLong: (view) => view.phaseSteps >= 3 } });
    const { report, problems, replayFailures } = await checkCoverage(machine, rules);
    expect(report.covered.has('plan.route --always [planLong]--> build.observe')).toBe(true);
    expect(replayFailures).toEqual([]);
    for (const info of report.missing) expect(report.covered.has(info.key)).toBe(false);
    // rein cannot see inside the guard: what the three steps it allows plan make impossible is reported, with why.
    expect(problems).toEqual(['not covered: plan.review --always [stallPersists(maxNudges=3)]--> stalled (no generated path takes it)']);
  });

  it('names a state that a rules change leaves unreachable', () => {
    // No exit leads into fix any more: its whole turn cycle is unreachable.
    const { report } = coverage({ phases: { verify: { exits: [{ guard: 'editedSinceTest', to: 'build' }] } } }, 'no fix');
    expect(report.unreachableStates).toEqual(expect.arrayContaining(['fix', 'fix.think', 'fix.act']));
  });
});
