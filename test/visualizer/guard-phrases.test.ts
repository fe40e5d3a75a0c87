import { describe, expect, it } from 'vitest';
import { and, not, or } from 'xstate';
import { chartGuard, phraseGuard } from '../../visualizer/server/guard-phrases.js';
import { guardRef } from '../../visualizer/server/machine-graph.js';
import { guardText } from '../../visualizer/server/transition-label.js';

describe('guards in words and on the chart', () => {
  it('says the built-in guards from their parameters', () => {
    expect(phraseGuard({ name: 'readLoop', params: { limit: 5 } })).toBe('5 reads or searches of things already seen, with no edit');
    expect(phraseGuard({ name: 'readLoop', params: { limit: 1 } })).toBe('1 read or search of things already seen, with no edit');
    expect(phraseGuard({ name: 'longExploration', params: { limit: 50 } })).toBe('50 reads or searches in a row with no edit');
    expect(phraseGuard({ name: 'nothingNew', params: { limit: 6 } })).toBe('6 results in a row with nothing new');
    expect(phraseGuard({ name: 'stallPersists', params: { checks: [{ guard: 'readLoop', params: { limit: 8 } }], maxNudges: 3 } })).toBe(
      'a stall persists after 3 nudges',
    );
    expect(phraseGuard({ name: 'stepLimitReached', params: { max: 40 } })).toBe('40 steps used');
    expect(phraseGuard({ name: 'stepLimitReached' })).toBe('the step limit is reached');
    expect(phraseGuard({ name: 'todoProgress', params: { count: 2 } })).toBe('2 todo items done');
    // A guard a rules file registered reads as its name and parameters.
    expect(phraseGuard({ name: 'readSomething', params: { min: 2 } })).toBe('readSomething(min=2)');
  });

  it('spells out combinator guards, nested, as XState writes them and as params', () => {
    const combined = guardRef(and(['testRun', not('editedSinceTest')]));
    // `key` is the combinator as trace lines name it (machines/introspection guardName), which the page matches by.
    expect(combined).toEqual({
      name: 'and',
      key: 'all(testRun, not(editedSinceTest))',
      params: { guards: [{ name: 'testRun' }, { name: 'not', key: 'not(editedSinceTest)', params: { guards: [{ name: 'editedSinceTest' }] } }] },
    });
    expect(guardText(combined!)).toBe('all(testRun, not(editedSinceTest))');
    expect(phraseGuard(combined!)).toBe('the tests ran after the last edit and not an edit since the last test run');
    const viaParams = guardRef({ type: 'any', params: { guards: [{ type: 'testFailed' }, { type: 'stepLimitReached', params: { max: 40 } }] } });
    expect(guardText(viaParams!)).toBe('any(testFailed, stepLimitReached(max=40))');
    expect(phraseGuard(viaParams!)).toBe('the tests failed or 40 steps used');
    expect(guardText(guardRef(or(['testRun', 'editMade']))!)).toBe('any(testRun, editMade)');
    // Parameters that are not guards stay counted, so labels stay short.
    expect(guardText({ name: 'stallPersists', params: { checks: [{ guard: 'readLoop' }], maxNudges: 3 } })).toBe('stallPersists(maxNudges=3)');
  });

  it('puts the gate and "stall persists" in words on the chart, other guards by name', () => {
    expect(chartGuard({ name: 'stallPersists', params: { maxNudges: 2 } })).toBe('a stall persists after 2 nudges');
    expect(chartGuard({ name: 'testsPassedSinceLastEdit' })).toBe('tests passed since the last edit');
    expect(chartGuard({ name: 'repeatedAction', params: { limit: 3 } })).toBe('repeatedAction(limit=3)');
  });
});
