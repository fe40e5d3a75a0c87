import { describe, expect, it } from 'vitest';
import { fingerprint, initialProgressMemory, isTestChange, isTodoChange, progressOf, testSignature } from '../../machines/stall/progress.js';
import { edited, ran, read, todo } from '../../testing/index.js';

const result = (spec: ReturnType<typeof read>) => ({ id: 'c', name: spec.name, args: spec.args, outcome: spec.outcome, ms: 1 });

describe('what counts as progress (machines/stall/progress.ts)', () => {
  it('volatile parts do not make an observation new; real changes do', () => {
    expect(fingerprint('3 passed in 0.02s')).toBe(fingerprint('3 passed in 1.5s'));
    expect(fingerprint('built at 2026-12-01T10:00:01Z')).toBe(fingerprint('built at 2026-12-01T10:07:44Z'));
    expect(fingerprint('object at 0x7f3a9c001234')).toBe(fingerprint('object at 0x7f3a9c00ffff'));
    // node:test prints its timings as keys: the same failing run again is the same observation.
    const nodeTest = (ms: string) => `not ok 1 - add\n  ---\n  duration_ms: ${ms}\n  error: |-\n    1 !== 2\n# fail 1\n# duration_ms 8${ms}`;
    expect(fingerprint(nodeTest('10.010731'))).toBe(fingerprint(nodeTest('9.88312')));
    expect(fingerprint('{"elapsed": 3.25, "ok": true}')).toBe(fingerprint('{"elapsed": 4.5, "ok": true}'));
    expect(fingerprint('compiled 3/10')).not.toBe(fingerprint('compiled 4/10'));
    expect(fingerprint('2 failed')).not.toBe(fingerprint('1 failed'));
  });

  it('reads the failing set and the failure count of common runners', () => {
    const pytest = testSignature(1, 'FAILED tests/test_a.py::test_x - assert 1 == 2\nFAILED tests/test_a.py::test_y\n2 failed, 3 passed in 0.1s', false);
    expect(pytest.failures).toBe(2);
    const fewer = testSignature(1, 'FAILED tests/test_a.py::test_y\n1 failed, 4 passed in 0.1s', false);
    expect(isTestChange(pytest, fewer)).toBe(true);
    expect(isTestChange(fewer, testSignature(1, 'FAILED tests/test_a.py::test_y\n1 failed, 4 passed in 0.3s', false))).toBe(false);
    const tap = testSignature(1, 'not ok 2 - median of even list\n# fail 1', false);
    expect(tap.failures).toBe(1);
    expect(isTestChange(tap, testSignature(1, 'not ok 3 - mean\n# fail 1', false))).toBe(true);
    expect(isTestChange(tap, testSignature(0, '# pass 4\n# fail 0', true))).toBe(true);
  });

  it('a todo change adds or ticks an item; the same list again, or a removal, is not', () => {
    const before = [
      { task: 'a', done: false },
      { task: 'b', done: false },
    ];
    expect(isTodoChange(before, [...before, { task: 'c', done: false }])).toBe(true);
    expect(
      isTodoChange(before, [
        { task: 'a', done: true },
        { task: 'b', done: false },
      ]),
    ).toBe(true);
    expect(isTodoChange(before, before)).toBe(false);
    expect(isTodoChange(before, [{ task: 'a', done: false }])).toBe(false);
  });

  it('an edit is progress when it leaves the file in a version the run has not seen, including its first one', () => {
    let memory = initialProgressMemory();
    const step = (spec: ReturnType<typeof edited>) => {
      const next = progressOf(result(spec), memory, {});
      memory = next.memory;
      return next.kinds.includes('newFileState');
    };
    expect(step(edited('a.py', { before: 'v0', after: 'v1' }))).toBe(true);
    expect(step(edited('a.py', { before: 'v1', after: 'v0' }))).toBe(false);
    expect(step(edited('a.py', { before: 'v0', after: 'v2' }))).toBe(true);
    expect(step(edited('a.py', { before: 'v2', after: 'v1' }))).toBe(false);
  });

  it('the same content from another tool is another observation; the same read again is not new', () => {
    let memory = initialProgressMemory();
    const isNew = (spec: ReturnType<typeof read>) => {
      const next = progressOf(result(spec), memory, {});
      memory = next.memory;
      return next.kinds.includes('newInfo');
    };
    expect(isNew(read('a.py', 'No matches.'))).toBe(true);
    expect(isNew(read('b.py', 'No matches.'))).toBe(false);
    expect(isNew(ran('grep x', 1, 'No matches.'))).toBe(true);
    expect(isNew(todo([{ task: 'x', done: false }]))).toBe(true);
  });
});
