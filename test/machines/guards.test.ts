import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { namedGuardLabel } from '../../lib/guard-labels.js';
import { BUILT_IN_GUARDS, guardParams, isBuiltInGuard } from '../../machines/guards/catalogue.js';
import { type GuardView, guardView } from '../../machines/guards/guard-view.js';
import { overriddenName, registerGuards } from '../../machines/guards/registry.js';
import { builtInActions, checkEffect, registerActions } from '../../machines/rule-actions.js';
import { createHarnessMachine, defaultRules, probeHarness } from '../../testing/index.js';

const base = probeHarness(createHarnessMachine(defaultRules()), defaultRules()).context;

/** A guard view with these parts changed. */
function view(
  parts: { turn?: Partial<GuardView['turn']>; facts?: Partial<GuardView['facts']>; stall?: GuardView['stall']; phaseSteps?: number } = {},
): GuardView {
  const plain = guardView(base);
  return {
    ...plain,
    phaseSteps: parts.phaseSteps ?? plain.phaseSteps,
    turn: { ...plain.turn, ...parts.turn },
    facts: { ...plain.facts, ...parts.facts },
    stall: parts.stall ?? plain.stall,
  };
}
const holds = (name: keyof typeof BUILT_IN_GUARDS, at: GuardView, params: Record<string, unknown> = {}) =>
  BUILT_IN_GUARDS[name].test(at, guardParams(name, params) as never);

describe('the guard view: what guards may read of a run (machines/guards/guard-view.ts)', () => {
  it('derives phase-relative counts, edit/test order, passing runs and todo counts from the facts', () => {
    const context = {
      ...base,
      phase: 'fix' as const,
      step: 9,
      facts: {
        ...base.facts,
        phaseStartStep: 4,
        phaseStartSeq: 10,
        phaseStartTestRuns: 2,
        seq: 14,
        lastEditSeq: 12,
        lastTestSeq: 13,
        testRuns: 5,
        edits: 3,
        failedRunsInRow: 2,
        lastTestPassed: false,
        gateRefusals: 1,
        checks: { tests: { passesSinceEdit: 1, lastRunSeq: 13, lastPassed: true } },
        todo: [
          { task: 'a', done: true },
          { task: 'b', done: false },
          { task: 'c', done: false },
        ],
      },
      stall: { ...base.stall, counters: { ...base.stall.counters, readLoop: { count: 1, peak: 4, firings: 2 } } },
    };
    const seen = guardView(context);
    expect(seen).toMatchObject({ phase: 'fix', step: 9, phaseSteps: 5 });
    expect(seen.facts).toMatchObject({
      edits: 3,
      editedInPhase: true,
      testRuns: 5,
      phaseTestRuns: 3,
      failedRunsInRow: 2,
      lastTestPassed: false,
      testedSinceEdit: true,
      editedSinceTest: false,
      passingRunsSinceEdit: 1,
      gateRefusals: 1,
      todoDone: 1,
      todoOpen: 2,
    });
    expect(seen.facts.checks).toEqual({ tests: { passesSinceEdit: 1, lastPassed: true } });
    expect(seen.stall.readLoop).toEqual({ count: 4, nudges: 2 });
    // An edit at the phase's start is not an edit in the phase; an edit after the last test run is.
    const edgy = guardView({ ...context, facts: { ...context.facts, lastEditSeq: 10, lastTestSeq: 9 } });
    expect(edgy.facts).toMatchObject({ editedInPhase: false, editedSinceTest: true, testedSinceEdit: false });
    const tied = guardView({ ...context, facts: { ...context.facts, lastEditSeq: 11, lastTestSeq: 11, checks: {} } });
    expect(tied.facts).toMatchObject({ editedSinceTest: false, testedSinceEdit: false, passingRunsSinceEdit: 0 });
    // Computed once per context.
    expect(guardView(context)).toBe(seen);
  });
});

describe('the built-in guards hold exactly when they say (machines/guards/catalogue.ts)', () => {
  it('the turn guards', () => {
    expect([holds('todoWritten', view({ turn: { todoWritten: true } })), holds('todoWritten', view())]).toEqual([true, false]);
    expect([holds('editMade', view({ turn: { edited: true } })), holds('editMade', view())]).toEqual([true, false]);
    expect(holds('testRun', view({ turn: { testRan: true }, facts: { testedSinceEdit: true } }))).toBe(true);
    expect(holds('testRun', view({ turn: { testRan: true }, facts: { testedSinceEdit: false } }))).toBe(false);
    expect(holds('testRun', view({ turn: { testRan: false }, facts: { testedSinceEdit: true } }))).toBe(false);
    expect([false, true, null].map((testPassed) => holds('testFailed', view({ turn: { testPassed } })))).toEqual([true, false, false]);
    expect([false, true, null].map((testPassed) => holds('testPassed', view({ turn: { testPassed } })))).toEqual([false, true, false]);
    expect([holds('finishRefused', view({ turn: { finishRefused: true } })), holds('finishRefused', view())]).toEqual([true, false]);
    expect(holds('always', view())).toBe(true);
  });

  it('the phase guards need both halves', () => {
    for (const [editedInPhase, editedSinceTest, expected] of [
      [true, true, true],
      [true, false, false],
      [false, true, false],
    ] as const) {
      expect(holds('editedSinceTest', view({ facts: { editedInPhase, editedSinceTest } }))).toBe(expected);
      expect(holds('testedAfterEdit', view({ facts: { editedInPhase, testedSinceEdit: editedSinceTest } }))).toBe(expected);
    }
  });

  it('the counting guards hold from their threshold on, with their defaults', () => {
    expect([0, 1].map((todoDone) => holds('todoProgress', view({ facts: { todoDone } })))).toEqual([false, true]);
    expect([1, 2].map((todoDone) => holds('todoProgress', view({ facts: { todoDone } }), { count: 2 }))).toEqual([false, true]);
    expect([2, 3].map((phaseSteps) => holds('phaseSteps', view({ phaseSteps }), { min: 3 }))).toEqual([false, true]);
    expect([2, 3].map((phaseTestRuns) => holds('phaseTestRuns', view({ facts: { phaseTestRuns } }), { min: 3 }))).toEqual([false, true]);
    expect([2, 3].map((failedRunsInRow) => holds('failedRunsInRow', view({ facts: { failedRunsInRow } }), { min: 3 }))).toEqual([false, true]);
    expect([2, 3].map((gateRefusals) => holds('gateRefusals', view({ facts: { gateRefusals } }), { min: 3 }))).toEqual([false, true]);
    expect([0, 1].map((count) => holds('readLoop', view({ stall: { readLoop: { count, nudges: 0 } } }), { limit: 1 }))).toEqual([false, true]);
    expect(holds('readLoop', view({ stall: {} }), { limit: 1 })).toBe(false);
    expect(BUILT_IN_GUARDS.readLoop.counts?.read(view({ stall: { readLoop: { count: 5, nudges: 0 } } }))).toBe(5);
    expect(BUILT_IN_GUARDS.readLoop.counts?.read(view({ stall: {} }))).toBe(0);
    expect(BUILT_IN_GUARDS.todoProgress.counts?.read(view({ facts: { todoDone: 4 } }))).toBe(4);
    expect(BUILT_IN_GUARDS.phaseSteps.counts?.read(view({ phaseSteps: 6 }))).toBe(6);
  });

  it("the gate guard wants the test command's passes and every named check's", () => {
    const at = (passingRunsSinceEdit: number, lint?: number) =>
      view({ facts: { passingRunsSinceEdit, checks: lint === undefined ? {} : { lint: { passesSinceEdit: lint, lastPassed: true } } } });
    expect(holds('testsPassedSinceLastEdit', at(1))).toBe(true);
    expect(holds('testsPassedSinceLastEdit', at(0))).toBe(false);
    expect(holds('testsPassedSinceLastEdit', at(1), { runs: 2 })).toBe(false);
    expect(holds('testsPassedSinceLastEdit', at(1, 1), { checks: { lint: 1 } })).toBe(true);
    expect(holds('testsPassedSinceLastEdit', at(1, 0), { checks: { lint: 1 } })).toBe(false);
    expect(holds('testsPassedSinceLastEdit', at(1), { checks: { lint: 1 } })).toBe(false);
  });

  it("built-in names are the catalogue's own (not inherited), and only theirs get defaults filled in", () => {
    expect(isBuiltInGuard('phaseSteps')).toBe(true);
    expect(isBuiltInGuard('toString')).toBe(false);
    expect(guardParams('todoProgress', {})).toEqual({ count: 1 });
    expect(guardParams('mine', { x: 1 })).toEqual({ x: 1 });
    expect(BUILT_IN_GUARDS.readLoop.needs).toEqual({ tools: ['read_file', 'grep'] });
    expect(BUILT_IN_GUARDS.repeatedAction.needs).toBeUndefined();
    expect(BUILT_IN_GUARDS.readLoop.example).toEqual({ guard: 'readLoop', limit: 10, to: 'plan' });
  });
});

describe('guards and actions registered from a rules module', () => {
  const test = () => true;

  it('a function or { test } registers; a built-in is replaced only with override: true, and gets the overridden name', () => {
    const params = z.strictObject({ n: z.number() });
    expect(registerGuards({ mine: test, described: { test, summary: 'it holds', params } }, 'rules.mjs')).toEqual([
      { name: 'mine', test, overrides: false },
      { name: 'described', test, overrides: false, summary: 'it holds', params },
    ]);
    expect(registerGuards({ phaseSteps: { test, override: true } }, 'rules.mjs')).toEqual([{ name: 'phaseSteps', test, overrides: true }]);
    expect(overriddenName('phaseSteps')).toBe('phaseSteps (overridden)');
  });

  it("refuses what is not a guard, the machine's own names, a silent replacement and an override of nothing", () => {
    expect(() => registerGuards({ bad: 3 as never }, 'rules.mjs')).toThrow(
      'rules.mjs: guards.bad: expected a function (view, params) => boolean, or { test, summary?, params?, override? }',
    );
    expect(() => registerGuards({ bad: { test: 3 } as never }, 'rules.mjs')).toThrow('guards.bad: expected a function');
    expect(() => registerGuards({ bad: null as never }, 'rules.mjs')).toThrow('guards.bad: expected a function');
    expect(() => registerGuards({ budgetSpent: test }, 'rules.mjs')).toThrow(
      'rules.mjs: guards.budgetSpent: "budgetSpent" is one of the machine\'s own guards and cannot be registered or replaced',
    );
    expect(() => registerGuards({ phaseSteps: test }, 'rules.mjs')).toThrow(
      'rules.mjs: guards.phaseSteps: a built-in guard has this name. To replace it, say so',
    );
    expect(() => registerGuards({ phaseSteps: { test, override: false } }, 'rules.mjs')).toThrow('a built-in guard has this name');
    expect(() => registerGuards({ mine: { test, override: true } }, 'rules.mjs')).toThrow(
      'rules.mjs: guards.mine: override: true, but there is no built-in guard "mine" to replace',
    );
  });

  it("an action's effect is used as far as it is well-formed, and says what it ignored", () => {
    expect(checkEffect(undefined)).toEqual({ notices: [], trace: {} });
    expect(checkEffect(null)).toEqual({ notices: [], trace: {} });
    expect(checkEffect('text')).toEqual({ notices: [], trace: {}, problem: 'returned string, not { notices?, trace? }' });
    expect(checkEffect({ notices: ['a'], trace: { k: 1 } })).toEqual({ notices: ['a'], trace: { k: 1 } });
    expect(checkEffect({ notices: ['a', 2], trace: { k: 1 } })).toEqual({
      notices: [],
      trace: { k: 1 },
      problem: 'notices must be an array of strings; ignored',
    });
    expect(checkEffect({ notices: 'a' })).toEqual({ notices: [], trace: {}, problem: 'notices must be an array of strings; ignored' });
    expect(checkEffect({ notices: ['a'], trace: [1] })).toEqual({ notices: ['a'], trace: {}, problem: 'trace must be an object; ignored' });
    expect(checkEffect({ trace: null })).toEqual({ notices: [], trace: {}, problem: 'trace must be an object; ignored' });
    expect(checkEffect({ trace: 'x' })).toEqual({ notices: [], trace: {}, problem: 'trace must be an object; ignored' });
  });

  it('notify fills in the open todo items, or "none"; mark writes only a trace label', () => {
    const withTodo = view({
      facts: {
        todo: [
          { task: 'a', done: true },
          { task: 'b', done: false },
          { task: 'c', done: false },
        ],
      },
    });
    expect(builtInActions.notify(withTodo, { text: 'Open: {todo}. Again: {todo}' })).toEqual({ notices: ['Open: b; c. Again: b; c'] });
    expect(builtInActions.notify(view(), { text: 'Open: {todo}' })).toEqual({ notices: ['Open: none'] });
    expect(builtInActions.mark(view(), { label: 'here' })).toEqual({ trace: { label: 'here' } });
    const run = () => undefined;
    expect(registerActions({ mine: run, notify: { run, override: true } }, 'rules.mjs')).toEqual([
      { name: 'mine', run, overrides: false },
      { name: 'notify', run, overrides: true },
    ]);
    expect(() => registerActions({ bad: 'x' as never }, 'rules.mjs')).toThrow(
      'rules.mjs: actions.bad: expected a function (view, params) => ({ notices?, trace? }), or { run, override? }',
    );
    expect(() => registerActions({ bad: null as never }, 'rules.mjs')).toThrow('actions.bad: expected a function');
    expect(() => registerActions({ mark: run }, 'rules.mjs')).toThrow('rules.mjs: actions.mark: a built-in action has this name. To replace it, say so');
    expect(() => registerActions({ mine: { run, override: true } }, 'rules.mjs')).toThrow(
      'rules.mjs: actions.mine: override: true, but there is no built-in action "mine" to replace',
    );
  });
});

describe('how a guard reads on the chart (lib/guard-labels.ts)', () => {
  it('a guard with its parameters, leaving out functions and empty objects; long values shortened', () => {
    expect(namedGuardLabel('phaseSteps')).toBe('phaseSteps');
    expect(namedGuardLabel('phaseSteps', { min: 3 })).toBe('phaseSteps(min=3)');
    expect(namedGuardLabel('x', { f: () => 1, empty: {} })).toBe('x');
    expect(namedGuardLabel('x', { text: 'a'.repeat(30) })).toBe(`x(text="${'a'.repeat(23)}…")`);
    expect(namedGuardLabel('x', { text: 'a'.repeat(24) })).toBe(`x(text="${'a'.repeat(24)}")`);
    expect(namedGuardLabel('x', { list: [1, 2], none: null })).toBe('x(list=[1,2], none=null)');
    expect(namedGuardLabel('x', { list: Array.from({ length: 20 }, (_, index) => index) })).toBe('x(list=[20])');
    expect(namedGuardLabel('x', { object: { key: 'a'.repeat(40) } })).toBe('x(object={…})');
  });

  it("the machine's own guards read by what matters, overridden or not", () => {
    expect(namedGuardLabel('stallPersists', { maxNudges: 3, rules: [] })).toBe('stallPersists(maxNudges=3)');
    expect(namedGuardLabel('nudgedOut', { rule: 'readLoop', maxNudges: 2 })).toBe('nudgedOut(readLoop, maxNudges=2)');
    expect(
      namedGuardLabel('budgetWarningDue', {
        warnings: [
          { budget: 'steps', share: 0.75, limit: 40 },
          { budget: 'cost', share: 0.5, limit: 2 },
        ],
      }),
    ).toBe('budgetWarningDue(steps 75% of 40, cost 50% of 2)');
    expect(namedGuardLabel('budgetWarningDue', {})).toBe('budgetWarningDue');
    expect(namedGuardLabel('budgetSpent', { caps: { maxTokens: 100, maxCompletionTokens: 5, maxCostUsd: 1 } })).toBe(
      'budgetSpent(maxTokens=100, maxCostUsd=1)',
    );
    expect(namedGuardLabel('budgetSpent', {})).toBe('budgetSpent');
    expect(namedGuardLabel('stallPersists (overridden)', { maxNudges: 2 })).toBe('stallPersists (overridden)(maxNudges=2)');
  });
});
