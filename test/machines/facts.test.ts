import { describe, expect, it } from 'vitest';
import { foldResults, initialFacts, initialTurn } from '../../machines/facts.js';
import { initialStall } from '../../machines/stall/counters.js';
import { nudgeText, reminderUpdate, stallEndUpdate } from '../../machines/stall/review.js';
import { verificationOf } from '../../machines/verification.js';
import {
  blocked,
  createHarnessMachine,
  defaultRules,
  edited,
  interrupted,
  probeHarness,
  type ResultSpec,
  ran,
  read,
  rejectedEdit,
  rulesSchema,
  todo,
} from '../../testing/index.js';

const asResult = (spec: ResultSpec, index = 0) => ({ id: `c${index}`, name: spec.name, args: spec.args ?? {}, outcome: spec.outcome, ms: 1 });

/** Folds these results, in order, from the start of a run; returns the facts, the turn and the stall state. */
function fold(specs: ResultSpec[], rules = defaultRules(), testCmd = 'npm test') {
  return foldResults({ facts: initialFacts(), turn: initialTurn(specs.length), stall: initialStall() }, specs.map(asResult), {
    verification: verificationOf(rules),
    testCmd,
  });
}

describe("the facts a turn's results fold into (machines/facts.ts)", () => {
  it('an applied edit is counted and marks the turn; a rejected one is neither', () => {
    const { facts, turn } = fold([edited('a.py'), rejectedEdit('b.py')]);
    expect(facts).toMatchObject({ seq: 2, edits: 1, lastEditSeq: 1 });
    expect(turn.edited).toBe(true);
    expect(fold([rejectedEdit('b.py')]).turn.edited).toBe(false);
  });

  it('a test run records whether it passed, and failures in a row start over on a pass', () => {
    const failing = fold([ran('npm test', 1), ran('npm test', 1)]);
    expect(failing.facts).toMatchObject({ testRuns: 2, failedRunsInRow: 2, lastTestSeq: 2, lastTestPassed: false, lastPassSeq: -1 });
    expect(failing.turn).toMatchObject({ testRan: true, testPassed: false });
    const recovered = fold([ran('npm test', 1), ran('npm test', 0)]);
    expect(recovered.facts).toMatchObject({ failedRunsInRow: 0, lastPassSeq: 2, lastTestPassed: true });
    expect(recovered.facts.checks.tests).toEqual({ passesSinceEdit: 1, lastRunSeq: 2, lastPassed: true });
  });

  it('a pass through a pipe or an echo is a test run but not a pass the gate counts', () => {
    const { facts } = fold([ran('npm test | tail -3', 0)]);
    expect(facts).toMatchObject({ testRuns: 1, lastTestPassed: true, lastPassSeq: -1 });
    expect(facts.checks.tests?.passesSinceEdit).toBe(0);
  });

  it('an edit makes every earlier pass stale, of every check', () => {
    const linted = rulesSchema.parse({ verification: { checks: [{ name: 'lint', command: 'npm run lint' }] } });
    const { facts } = fold([ran('npm test', 0), ran('npm run lint', 0), edited('a.py')], linted);
    expect(facts.checks.tests?.passesSinceEdit).toBe(0);
    expect(facts.checks.lint?.passesSinceEdit).toBe(0);
    expect(facts.checks.lint?.lastPassed).toBe(true);
    // A pass of another check does not move the test command's last pass.
    expect(fold([ran('npm run lint', 0)], linted).facts.lastPassSeq).toBe(-1);
  });

  it('a blocked or interrupted test command is no test run', () => {
    for (const spec of [blocked('npm test'), interrupted('npm test')]) {
      const { facts, turn } = fold([spec]);
      expect(facts.testRuns).toBe(0);
      expect(turn.testRan).toBe(false);
    }
  });

  it('with commandsCountAsEdits any other command counts as an edit, but a blocked one does not', () => {
    const shell = rulesSchema.parse({ tools: { enabled: ['run', 'finish'] }, verification: { commandsCountAsEdits: true } });
    const { facts, turn } = fold([ran('npm test', 0), ran('sed -i s/a/b/ x.py', 0)], shell);
    expect(facts.lastEditSeq).toBe(2);
    expect(facts.checks.tests?.passesSinceEdit).toBe(0);
    expect(turn.edited).toBe(true);
    expect(fold([blocked('sudo rm x')], shell).facts.lastEditSeq).toBe(-1);
    // Without the rule, a command is no edit.
    expect(fold([ran('sed -i s/a/b/ x.py', 0)]).facts.lastEditSeq).toBe(-1);
  });

  it("a todo list written replaces the facts' list and marks the turn; a failed write does neither", () => {
    const items = [{ task: 'fix', done: false }];
    const { facts, turn } = fold([todo(items)]);
    expect(facts.todo).toEqual(items);
    expect(turn.todoWritten).toBe(true);
    const failed = todo(items);
    const rejected = fold([{ ...failed, outcome: { ...failed.outcome, ok: false } }]);
    expect(rejected.facts.todo).toEqual([]);
    expect(rejected.turn.todoWritten).toBe(false);
  });

  it('every result counts in the sequence, a read too', () => {
    expect(fold([read('a.py'), read('b.py'), ran('ls', 0)]).facts.seq).toBe(3);
  });
});

describe("the stall review's words (machines/stall/review.ts)", () => {
  it('a nudge text comes from the phase, then the rule, then messages.stall, then the table', () => {
    const rules = rulesSchema.parse({ phases: { fix: { nudges: { readLoop: 'phase words' } } }, messages: { stall: { readLoop: 'message words' } } });
    expect(nudgeText('fix', { guard: 'readLoop', message: 'rule words' }, rules)).toBe('phase words');
    expect(nudgeText('build', { guard: 'readLoop', message: 'rule words' }, rules)).toBe('rule words');
    expect(nudgeText('build', { guard: 'readLoop' }, rules)).toBe('message words');
    expect(nudgeText('build', { guard: 'repeatedAction' }, rules)).toMatch(/^The same action produced the same result \{count\} times/);
    expect(nudgeText('build', { guard: 'myGuard' }, rules)).toBe('Stall detected (myGuard). Do something different.');
  });

  it('the stalled reason names the rule, what it saw and the nudges, in the singular for one', () => {
    const base = probeHarness(createHarnessMachine(defaultRules()), defaultRules()).context;
    const stall = initialStall();
    const context = { ...base, stall: { ...stall, counters: { ...stall.counters, readLoop: { count: 9, peak: 9, firings: 1 } } } };
    const update = stallEndUpdate(context, {
      maxNudges: 1,
      rules: [
        { rule: 'repeatedAction', limit: 3 },
        { rule: 'readLoop', limit: 8 },
      ],
    });
    expect(update.context?.reason).toBe(
      'readLoop: 9 reads and searches since the last change to a file or the todo list that showed nothing new, still after 1 nudge with nothing new in between.',
    );
    expect(update.context?.stall?.fired).toBe('readLoop');
    // Nudged out but below its limit: the rule is still named, at its limit.
    const below = { ...base, stall: { ...stall, counters: { ...stall.counters, readLoop: { count: 2, peak: 2, firings: 2 } } } };
    expect(stallEndUpdate(below, { maxNudges: 2, rules: [{ rule: 'readLoop', limit: 8 }] }).context?.reason).toBe(
      'readLoop: 8 reads and searches since the last change to a file or the todo list that showed nothing new, still after 2 nudges with nothing new in between.',
    );
    // No rule nudged out: nothing to end on.
    expect(stallEndUpdate(base, { maxNudges: 2, rules: [{ rule: 'readLoop', limit: 8 }] })).toEqual({});
  });

  it('the plain reminder is queued after what is already queued', () => {
    const base = probeHarness(createHarnessMachine(defaultRules()), defaultRules()).context;
    expect(reminderUpdate({ ...base, notices: ['first'] }, { message: 'Use a tool.' }).context?.notices).toEqual(['first', 'Use a tool.']);
  });
});

describe('which results change the facts', () => {
  it('with commandsCountAsEdits only a command counts as an edit: a read, a search or a failed tool call does not', () => {
    const shell = rulesSchema.parse({ tools: { enabled: ['run', 'read_file', 'finish'] }, verification: { commandsCountAsEdits: true } });
    const { facts, turn } = fold(
      [read('a.py'), { name: 'grep', args: {}, outcome: { content: 'x', ok: true, effect: { kind: 'search', pattern: 'x' } } }],
      shell,
    );
    expect(facts.lastEditSeq).toBe(-1);
    expect(turn.edited).toBe(false);
  });

  it('a check that has never run starts its passes from zero', () => {
    const linted = rulesSchema.parse({ verification: { checks: [{ name: 'lint', command: 'npm run lint' }] } });
    expect(fold([ran('npm run lint', 0)], linted).facts.checks.lint).toEqual({ passesSinceEdit: 1, lastRunSeq: 1, lastPassed: true });
    expect(fold([ran('npm run lint', 1)], linted).facts.checks.lint).toEqual({ passesSinceEdit: 0, lastRunSeq: 1, lastPassed: false });
  });
});
