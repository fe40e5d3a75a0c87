import { describe, expect, it } from 'vitest';
import type { ToolEffect } from '../../lib/tool-effect.js';
import { fingerprint, initialProgressMemory, isAppliedEdit, isTestChange, isTodoChange, progressOf, testSignature } from '../../machines/stall/progress.js';
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

describe("volatile parts, failing sets and the memory's bounds", async () => {
  const { MAX_SEEN } = await import('../../machines/stall/progress.js');
  const { isFailure } = await import('../../machines/stall/counters.js');
  const same = (a: string, b: string) => expect(fingerprint(a), `${a} vs ${b}`).toBe(fingerprint(b));
  const differ = (a: string, b: string) => expect(fingerprint(a), `${a} vs ${b}`).not.toBe(fingerprint(b));

  it('each kind of volatile part is ignored: dates with or without seconds and zone, clock times, durations, timing keys, addresses, ids, temp paths', () => {
    same('at 2026-12-01 10:00', 'at 2027-01-31T23:59');
    same('at 2026-12-01T10:00:01.123+02:00 ok', 'at 2026-12-01T11:07:44.9-0500 ok');
    same('took 10:00:01', 'took 9:59:59.5');
    for (const unit of ['ms', 'µs', 'us', 'ns', 's', 'sec', 'secs', 'seconds']) same(`done in 12${unit}`, `done in 3.5 ${unit}`);
    same('duration_ms: 10.5', 'duration_ms: 9');
    same('elapsed=3.2', 'elapsed = 41');
    same('Time: 45', 'time 12');
    same('"took": 3', '"took": 40');
    same('object at 0xdeadbeef01', 'object at 0xCAFEBABE99');
    same('run 123e4567-e89b-12d3-a456-426614174000 ok', 'run 00000000-0000-0000-0000-000000000000 ok');
    same('wrote /tmp/tmp.ab12-x/out.log', 'wrote /tmp/pytest_0/out.log');
    same('/tmp/a1 ready', '/tmp/b2 ready');
    same('TMPDIR=/tmp/a1 "/tmp/x" (/tmp/y) [/tmp/z],/tmp/w', 'TMPDIR=/tmp/b2 "/tmp/q" (/tmp/r) [/tmp/s],/tmp/t');
    same('saved to /private/tmp/a1/report', 'saved to /private/tmp/b2/report');
  });

  it('directories that persist are not temp paths: /var/tmp, a tmp/ inside the project or the home directory', () => {
    differ('built /var/tmp/build-1', 'built /var/tmp/build-2');
    differ('wrote src/tmp/a.json', 'wrote src/tmp/b.json');
    differ('wrote ~/tmp/a.json', 'wrote ~/tmp/b.json');
  });

  it('numbers that are not timings, ids or addresses still make an observation new', () => {
    differ('12 tests', '13 tests');
    differ('line 12: x', 'line 13: x');
    differ('version 0x1f', 'version 0x2f');
    differ('step 12 of 40', 'step 13 of 40');
    differ('id 123e4567', 'id 223e4567');
  });

  it("reads the failing names of each runner's format", () => {
    const failing = (output: string) => testSignature(1, output, false).failing;
    const formats = [
      ['FAILED tests/a.py::x', 'FAILED tests/a.py::y'],
      ['FAIL: test_x (m.T)', 'FAIL: test_y (m.T)'],
      ['FAIL src/a.test.ts', 'FAIL src/b.test.ts'],
      ['not ok 1 - adds', 'not ok 1 - subtracts'],
      ['--- FAIL: TestAdd (0.00s)', '--- FAIL: TestSub (0.00s)'],
      ['✗ adds numbers', '✗ subtracts numbers'],
      ['× adds numbers', '× subtracts numbers'],
      ['ERROR: test_x', 'ERROR: test_y'],
      ['test tests::adds ... FAILED', 'test tests::subs ... FAILED'],
    ];
    for (const [one, other] of formats) {
      // The names decide, not the rest of the output: the same name with other noise is the same set.
      expect(failing(`${one}\nnoise 1`), one).toBe(failing(`${one}\nnoise 2`));
      expect(failing(one!), `${one} / ${other}`).not.toBe(failing(other!));
    }
    // The order of the names does not matter; the set does.
    expect(failing('FAILED a\nFAILED b')).toBe(failing('FAILED b\nFAILED a'));
  });

  it('takes the largest failure count a runner prints, in each of its forms; none when it prints none', () => {
    expect(testSignature(1, '2 failed, 1 error', false).failures).toBe(2);
    expect(testSignature(1, 'Tests: 1 failed\nTest Files: 3 failed', false).failures).toBe(3);
    expect(testSignature(1, 'FAILED (failures=4)', false).failures).toBe(4);
    expect(testSignature(1, '# fail 5', false).failures).toBe(5);
    expect(testSignature(1, '6 failing', false).failures).toBe(6);
    expect(testSignature(1, '7 errors', false).failures).toBe(7);
    expect(testSignature(1, 'something broke', false).failures).toBeNull();
  });

  it('a pass with no names has an empty failing set; a failure without names is told apart by its exit code and output', () => {
    expect(testSignature(0, 'all good', true).failing).toBe('');
    expect(testSignature(2, 'boom', false).failing).not.toBe(testSignature(1, 'boom', false).failing);
    expect(testSignature(1, 'boom in 1s', false).failing).toBe(testSignature(1, 'boom in 2s', false).failing);
  });

  it('a test result changes when it flips, when fewer fail, or when another set fails; not when more fail of the same set or nothing is known', () => {
    const base = { passed: false, failures: 3, failing: 'x' };
    expect(isTestChange(undefined, base)).toBe(true);
    expect(isTestChange(base, { ...base, passed: true })).toBe(true);
    expect(isTestChange(base, { ...base, failures: 2 })).toBe(true);
    expect(isTestChange(base, { ...base, failures: 3 })).toBe(false);
    expect(isTestChange(base, { ...base, failures: 4 })).toBe(false);
    expect(isTestChange({ ...base, failures: null }, { ...base, failures: 1 })).toBe(false);
    expect(isTestChange(base, { ...base, failures: null })).toBe(false);
    expect(isTestChange(base, { ...base, failing: 'y' })).toBe(true);
  });

  it('a test run is progress when it differs from the last run of the same command, per command', () => {
    let memory = initialProgressMemory();
    const kinds = (command: string, signature: { passed: boolean; failures: number | null; failing: string }) => {
      const next = progressOf(result(ran(command, signature.passed ? 0 : 1, 'same output')), memory, { test: { command, signature } });
      memory = next.memory;
      return next.kinds.includes('testChange');
    };
    const red = { passed: false, failures: 1, failing: 'a' };
    expect(kinds('tests', red)).toBe(true);
    expect(kinds('tests', red)).toBe(false);
    expect(kinds('lint', red)).toBe(true);
    expect(kinds('tests', { ...red, passed: true, failing: '' })).toBe(true);
  });

  it('a todo update is progress only when it adds or ticks an item, and only when it was applied', () => {
    const items = [{ task: 'a', done: true }];
    const spec = todo(items);
    expect(progressOf(result(spec), initialProgressMemory(), { todoBefore: [{ task: 'a', done: false }] }).kinds).toContain('todoChange');
    expect(progressOf(result(spec), initialProgressMemory(), { todoBefore: items }).kinds).not.toContain('todoChange');
    expect(progressOf(result(spec), initialProgressMemory(), {}).kinds).not.toContain('todoChange');
    const failed = { ...spec, outcome: { ...spec.outcome, ok: false } };
    expect(progressOf(result(failed), initialProgressMemory(), { todoBefore: [] }).kinds).not.toContain('todoChange');
  });

  it('an applied edit without content hashes is always a new file state; a rejected one never is', () => {
    expect(progressOf(result(edited('a.py')), initialProgressMemory(), {}).kinds).toContain('newFileState');
    const rejected = { ...edited('a.py', { before: 'v0', after: 'v1' }) };
    const notApplied = {
      ...rejected,
      outcome: { ...rejected.outcome, effect: { kind: 'edit' as const, path: 'a.py', applied: false, before: 'v0', after: 'v1' } },
    };
    const outcome = progressOf(result(notApplied), initialProgressMemory(), {});
    expect(outcome.kinds).not.toContain('newFileState');
    expect(outcome.memory.files).toEqual({});
    // The first edit of a file remembers where it started, so putting it back is no new state.
    const first = progressOf(result(edited('b.py', { before: 'b0', after: 'b1' })), initialProgressMemory(), {});
    expect(first.memory.files['b.py']).toEqual(['b0', 'b1']);
  });

  it('the memory is bounded: past MAX_SEEN observations the oldest is forgotten and counts as new again', () => {
    let memory = initialProgressMemory();
    for (let index = 0; index <= MAX_SEEN; index++) memory = progressOf(result(read('a.py', `content ${'x'.repeat(index % 7)} #${index}`)), memory, {}).memory;
    expect(memory.seen).toHaveLength(MAX_SEEN);
    expect(progressOf(result(read('a.py', `content  #0`)), memory, {}).kinds).toContain('newInfo');
    expect(progressOf(result(read('a.py', `content ${'x'.repeat(MAX_SEEN % 7)} #${MAX_SEEN}`)), memory, {}).kinds).not.toContain('newInfo');
  });

  it('the memory keeps at most 64 states of a file and 256 files, the oldest forgotten', () => {
    let memory = initialProgressMemory();
    for (let version = 0; version < 70; version++)
      memory = progressOf(result(edited('a.py', { before: `v${version}`, after: `v${version + 1}` })), memory, {}).memory;
    expect(memory.files['a.py']).toHaveLength(64);
    expect(memory.files['a.py']!.at(-1)).toBe('v70');
    for (let file = 0; file < 300; file++) memory = progressOf(result(edited(`f${file}.py`, { before: 'a', after: 'b' })), memory, {}).memory;
    expect(Object.keys(memory.files)).toHaveLength(256);
    expect(memory.files['f299.py']).toEqual(['a', 'b']);
    expect(memory.files['a.py']).toBeUndefined();
  });

  it('a failure is an error result, a rejected edit, or a blocked, timed-out or failing command', () => {
    const outcome = (effect: object, ok = true) => ({ id: 'c', name: 'x', args: {}, outcome: { content: '', ok, effect }, ms: 0 }) as never;
    expect(isFailure(outcome({ kind: 'none' }, false))).toBe(true);
    expect(isFailure(outcome({ kind: 'none' }))).toBe(false);
    expect(isFailure(outcome({ kind: 'edit', path: 'a', applied: false }))).toBe(true);
    expect(isFailure(outcome({ kind: 'edit', path: 'a', applied: true }))).toBe(false);
    const command = { kind: 'command', command: 'x', exitCode: 0, timedOut: false, blocked: false };
    expect(isFailure(outcome(command))).toBe(false);
    expect(isFailure(outcome({ ...command, exitCode: 1 }))).toBe(true);
    expect(isFailure(outcome({ ...command, timedOut: true }))).toBe(true);
    expect(isFailure(outcome({ ...command, blocked: true }))).toBe(true);
    expect(isFailure(outcome({ kind: 'read', path: 'a' }))).toBe(false);
  });
});

describe('reading runner output: padding, numbering and forms', () => {
  const failing = (output: string) => testSignature(1, output, false).failing;
  const failures = (output: string) => testSignature(1, output, false).failures;

  it('a name is found however the runner pads, indents or numbers its line: each of these fails the one test "adds"', () => {
    const adds = failing('✗ adds');
    for (const line of [
      'FAILED  adds',
      'FAIL:  adds',
      'FAIL\tadds',
      'not ok 12 - adds',
      'not ok 1 adds',
      'not ok 1  - adds',
      'not ok 1 -adds',
      '    not ok 3 - adds',
      '--- FAIL:adds (0.00s)',
      '✗   adds',
      '✗ adds   ',
      'ERROR adds',
      'ERROR:  adds',
    ]) {
      expect(failing(`${line}\nnoise ${line.length}`), line).toBe(adds);
    }
  });

  it('the name is what decides, not the message on the same line, and the whole name, not its first letter', () => {
    expect(failing('FAILED tests/a.py::x - assert 1 == 2')).toBe(failing('FAILED tests/a.py::x - assert 1 == 3'));
    expect(failing('✗ adds numbers')).not.toBe(failing('✗ averages numbers'));
    // Names are kept apart in the set: {ab, c} is not {a, bc}.
    expect(failing('FAILED ab\nFAILED c')).not.toBe(failing('FAILED a\nFAILED bc'));
  });

  it('a runner word in the middle of a line names no failing test', () => {
    expect(failing('FAILED t::x\nretrying after FAILED y')).toBe(failing('FAILED t::x\nretrying after FAILED z'));
  });

  it('reads counts of any size and in the singular, with any spacing', () => {
    expect(failures('12 failed, 3 passed')).toBe(12);
    expect(failures('1  failed')).toBe(1);
    expect(failures('1 failure')).toBe(1);
    expect(failures('1 error')).toBe(1);
    expect(failures('FAILED (failures=12)')).toBe(12);
    expect(failures('#fail 3')).toBe(3);
    expect(failures('# fail  3')).toBe(3);
    expect(failures('# fail 12')).toBe(12);
  });

  it('volatile parts are ignored in full: zone offsets, fractions of a second, camelCase timing keys', () => {
    expect(fingerprint('at 2026-12-01T10:00:01+05:30 ok')).toBe(fingerprint('at 2026-12-01T11:00:01+05:45 ok'));
    expect(fingerprint('took 10:00:01.25')).toBe(fingerprint('took 9:59:59.125'));
    expect(fingerprint('{"durationMs": 12}')).toBe(fingerprint('{"durationMs": 40}'));
    expect(fingerprint('elapsedMs=3')).toBe(fingerprint('elapsedMs=41'));
  });

  it('a volatile part stands as a placeholder: an output that had a timing differs from one where it is missing', () => {
    expect(fingerprint('ok (12ms)')).not.toBe(fingerprint('ok ()'));
  });
});

describe('the memory of what was seen', () => {
  it('holds exactly MAX_SEEN observations: the oldest is forgotten only at the next one', async () => {
    const { MAX_SEEN } = await import('../../machines/stall/progress.js');
    let memory = initialProgressMemory();
    const seen = (index: number) => read('a.py', `content ${'x'.repeat(index % 7)} #${index}`);
    for (let index = 0; index < MAX_SEEN; index++) memory = progressOf(result(seen(index)), memory, {}).memory;
    expect(progressOf(result(seen(0)), memory, {}).kinds).not.toContain('newInfo');
    memory = progressOf(result(seen(MAX_SEEN)), memory, {}).memory;
    expect(progressOf(result(seen(1)), memory, {}).kinds).not.toContain('newInfo');
    expect(progressOf(result(seen(0)), memory, {}).kinds).toContain('newInfo');
  });

  it('an edit without content hashes is a new file state every time, the same file again too', () => {
    let memory = initialProgressMemory();
    for (let index = 0; index < 3; index++) {
      const next = progressOf(result(edited('a.py')), memory, {});
      expect(next.kinds).toContain('newFileState');
      memory = next.memory;
    }
  });

  it('an edit that creates a file (no earlier version) remembers only the version it wrote', () => {
    const created = edited('new.py', { before: 'x', after: 'v1' });
    const effect = { kind: 'edit' as const, path: 'new.py', applied: true, after: 'v1' };
    const next = progressOf(result({ ...created, outcome: { ...created.outcome, effect } }), initialProgressMemory(), {});
    expect(next.kinds).toContain('newFileState');
    expect(next.memory.files['new.py']).toEqual(['v1']);
  });
});

describe('an applied edit', () => {
  it('is an edit the guard let through, and nothing else is (a boolean either way)', () => {
    expect(isAppliedEdit({ kind: 'edit', path: 'a.py', applied: true })).toBe(true);
    expect(isAppliedEdit({ kind: 'edit', path: 'a.py', applied: false })).toBe(false);
    const others: ToolEffect[] = [
      { kind: 'read', path: 'a.py' },
      { kind: 'search', pattern: 'x' },
      { kind: 'command', command: 'ls', exitCode: 0, timedOut: false, blocked: false },
      { kind: 'todo', items: [] },
      { kind: 'none' },
    ];
    for (const effect of others) {
      expect(isAppliedEdit(effect), effect.kind).toBe(false);
    }
  });
});
