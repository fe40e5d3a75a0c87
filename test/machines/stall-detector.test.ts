import { describe, expect, it } from 'vitest';
import type { MachineNote, StallEvent } from '../../lib/trace/trace-events.js';
import {
  blocked,
  createHarnessMachine,
  edited,
  probeHarness,
  type ResultSpec,
  ran,
  read,
  rejectedEdit,
  rulesSchema,
  searched,
  todo,
  toolError,
} from '../../testing/index.js';

// Room for long behaviours: the step budget is not what these tests are about.
const rules = rulesSchema.parse({ budgets: { maxSteps: 200 } });
const machine = createHarnessMachine(rules);

type Probe = ReturnType<typeof probeHarness>;

/** One turn: the model calls these tools and gets these results; returns the stall notes of the turn. */
function turn(probe: Probe, results: ResultSpec[]) {
  if (probe.state.endsWith('compact')) probe.contextReady();
  probe.reply({ calls: results.map((result) => ({ name: result.name, args: result.args ?? {} })) });
  return probe.tools(results);
}

/** The same results, one per turn, `count` turns; every stall note on the way. */
function turns(probe: Probe, results: ResultSpec[]): StallEvent[] {
  const notes: StallEvent[] = [];
  for (const result of results) {
    if (!probe.state.includes('.')) break; // the run ended
    notes.push(...stallNotes(turn(probe, [result]).notes));
  }
  return notes;
}

const stallNotes = (notes: readonly MachineNote[]) => notes.filter((note): note is StallEvent => note.kind === 'stall');
const rulesOf = (notes: readonly StallEvent[]) => notes.map((note) => note.rule);
const start = () => probeHarness(machine, rules, { at: 'build.think' });
const times = <T>(count: number, make: (index: number) => T) => Array.from({ length: count }, (_, index) => make(index));

describe('repeatedAction: the same action with the same result', () => {
  it('the third identical run is nudged after all tool results, traced with what the rule saw', () => {
    const probe = start();
    const notes = turns(
      probe,
      times(2, () => ran('make', 2, 'error: x')),
    );
    const third = turn(probe, [ran('make', 2, 'error: x')]);
    expect([...notes, ...stallNotes(third.notes)]).toEqual([
      expect.objectContaining({
        rule: 'repeatedAction',
        limit: 3,
        count: 3,
        firings: 1,
        maxNudges: 3,
        reason: '3 identical actions in a row with the same result',
      }),
    ]);
    // Delivered as the next turn starts: after the turn's tool result, as a user message.
    expect(third.appended.at(-2)).toMatchObject({ role: 'tool' });
    expect(third.appended.at(-1)?.content).toBe(
      '[harness] The same action produced the same result 3 times. Do something different: read something you have not seen, change a file, or run the tests.',
    );
  });

  it('looks like one but is not: polling a log whose output changes each time is never nudged', () => {
    const probe = start();
    expect(
      turns(
        probe,
        times(12, (poll) => ran('tail -n 2 build.log', 0, `[${poll}/12] compiling`)),
      ),
    ).toEqual([]);
  });

  it('timings do not make a result new: the same test output with another duration is the same result', () => {
    const probe = start();
    expect(
      rulesOf(
        turns(
          probe,
          [0.11, 0.12, 0.13].map((seconds) => ran('make lint', 0, `lint ok in ${seconds}s`)),
        ),
      ),
    ).toEqual(['repeatedAction']);
  });
});

describe('ending: a stall that persists with nothing new across its nudges ends the run', () => {
  it('the same failing command, again and again: three nudges, then stalled, the reason naming the rule', () => {
    const probe = start();
    turns(
      probe,
      times(11, () => ran('make', 2, 'error: x')),
    );
    expect(probe.state).toBe('build.compact');
    const last = turn(probe, [ran('make', 2, 'error: x')]);
    expect(last.state).toBe('stalled');
    expect(last.context.reason).toBe('repeatedAction: 3 identical actions in a row with the same result, still after 3 nudges with nothing new in between.');
    expect(last.notes.at(-1)).toMatchObject({ kind: 'end', status: 'stalled', rule: 'repeatedAction' });
  });

  it('looks like one but is not: the same loop with something new between its nudges is nudged on, never ended', () => {
    const probe = start();
    for (let round = 0; round < 6; round++) {
      turns(
        probe,
        times(3, () => ran('make', 2, 'error: x')),
      );
      turn(probe, [read('notes.md', `finding ${round}`)]);
    }
    expect(probe.state).toMatch(/^build\./);
    expect(probe.context.stall.counters.repeatedAction!.firings).toBe(0);
  });

  it('stall.onPersist "nudge" keeps nudging and never ends the run', () => {
    const nudgeOnly = rulesSchema.parse({ stall: { onPersist: 'nudge' } });
    const probe = probeHarness(createHarnessMachine(nudgeOnly), nudgeOnly, { at: 'build.think' });
    const notes = turns(
      probe,
      times(30, () => ran('make', 2, 'error: x')),
    );
    expect(probe.state).toMatch(/^build\./);
    expect(notes.length).toBe(10);
  });
});

describe('repeatedFailure: the same action failing with nothing new in its output', () => {
  it('a command flapping between two errors it has shown before is nudged', () => {
    const probe = start();
    const notes = turns(
      probe,
      ['error A', 'error B', 'error A', 'error B'].map((output) => ran('make', 2, output)),
    );
    expect(rulesOf(notes)).toEqual(['repeatedFailure']);
  });

  it('looks like one but is not: a failing command whose output says something new each time', () => {
    const probe = start();
    expect(
      turns(
        probe,
        times(6, (index) => ran('make', 2, `error in module_${index}.c`)),
      ),
    ).toEqual([]);
  });

  it('blocked commands and tool errors are failures', () => {
    const probe = start();
    const notes = turns(probe, [
      blocked('sudo make'),
      toolError('run', 'boom', { command: 'sudo make' }),
      blocked('sudo make'),
      toolError('run', 'boom', { command: 'sudo make' }),
    ]);
    expect(rulesOf(notes)).toEqual(['repeatedFailure']);
  });
});

describe('alternation: A-B-A-B with nothing new', () => {
  it('two actions alternating over six calls, showing the same outputs, are nudged', () => {
    const probe = start();
    const notes = turns(
      probe,
      times(6, (index) => (index % 2 ? ran('cat config.yml', 0, 'debug: false') : ran('ls src', 0, 'app.py'))),
    );
    expect(rulesOf(notes)).toEqual(['alternation']);
  });

  it('looks like one but is not: test, edit, test, edit with a new result each run (TDD)', () => {
    const probe = start();
    const results = times(5, (index) => [
      ran('npm test', 1, `${5 - index} failing`),
      edited('calc.js', { before: `c${index}`, after: `c${index + 1}` }),
    ]).flat();
    expect(turns(probe, results)).toEqual([]);
  });
});

describe('editThrash: a file put back to an earlier version', () => {
  it('an edit undone and redone is nudged on the fourth edit, naming the file', () => {
    const probe = start();
    const notes = turns(
      probe,
      times(4, (index) => edited('src/a.py', index % 2 ? { before: 'changed', after: 'original' } : { before: 'original', after: 'changed' })),
    );
    expect(rulesOf(notes)).toEqual(['editThrash']);
    expect(notes[0]!.message).toBe(
      'You have put src/a.py back to an earlier version 3 times. Step back: re-read the task and the failing output, then make one change you have not tried.',
    );
  });

  it('looks like one but is not: fifteen distinct edits to one big file', () => {
    const probe = start();
    expect(
      turns(
        probe,
        times(15, (index) => edited('big.py', { before: `v${index}`, after: `v${index + 1}` })),
      ),
    ).toEqual([]);
  });

  it('a test run with a new result starts the count over', () => {
    const back = (index: number) => edited('a.py', index % 2 ? { before: 'x', after: 'y' } : { before: 'y', after: 'x' });
    const probe = start();
    turns(probe, [edited('a.py', { before: 'x', after: 'y' }), back(0), back(1)]);
    turns(probe, [ran('npm test', 0, 'ok')]);
    expect(turns(probe, [back(2), back(3)])).toEqual([]);
  });
});

describe('readLoop: reading again what was already seen, without changing anything', () => {
  it('is a loop: five reads of things already seen since the last change are nudged, and the run ends when it goes on', () => {
    const probe = start();
    const notes = turns(
      probe,
      times(40, (index) => read('app.py', `page ${index % 3}`)),
    );
    expect(rulesOf(notes).slice(0, 1)).toEqual(['readLoop']);
    expect(notes[0]).toMatchObject({ count: 5 });
    expect(probe.state).toBe('stalled');
  });

  it('only looks like one: eight different reads, each showing something new, get no nudge (the old count nudged the eighth)', () => {
    const probe = start();
    expect(
      turns(
        probe,
        times(8, (index) => read(`lib/f${index}.py`, `content ${index}`)),
      ),
    ).toEqual([]);
  });

  it('a new read in between does not start the count over: repeats interleaved with new reads still add up', () => {
    const probe = start();
    const seenOnce = read('a.py', 'page a');
    turns(probe, [seenOnce]);
    const mixed = times(10, (index) => (index % 2 ? read(`new${index}.py`, `fresh ${index}`) : { ...seenOnce, args: { path: 'a.py', n: index } }));
    const notes = turns(probe, mixed);
    expect(rulesOf(notes)).toEqual(['readLoop']);
    expect(notes[0]).toMatchObject({ count: 5 });
  });

  it('an edit to a new version starts the count over (four repeats, an edit, four repeats: no nudge)', () => {
    const probe = start();
    const repeats = (prefix: string) => times(5, (index) => read(`${prefix}${index}.py`, 'same text'));
    turns(probe, repeats('f'));
    turns(probe, [edited('x.py', { before: 'a', after: 'b' })]);
    expect(
      turns(
        probe,
        times(4, (index) => read(`g${index}.py`, 'same text')),
      ),
    ).toEqual([]);
  });

  it('a todo update that adds or ticks an item starts the count over; rewriting the same list does not', () => {
    const repeats = (prefix: string) => times(4, (index) => read(`${prefix}${index}.py`, 'same text'));
    const item = (done: boolean) => [{ task: 'find the parser', done }];
    const updated = start();
    turns(updated, [todo(item(false)), read('seed.py', 'same text'), ...repeats('f'), todo(item(true))]);
    expect(turns(updated, repeats('g'))).toEqual([]);
    const rewritten = start();
    turns(rewritten, [todo(item(false)), read('seed.py', 'same text'), ...repeats('f'), todo(item(false))]);
    expect(rulesOf(turns(rewritten, repeats('g')))).toEqual(['readLoop']);
  });

  it('searches count like reads: a search that finds what an earlier one found counts, a new hit does not', () => {
    const same = start();
    expect(
      rulesOf(
        turns(
          same,
          times(6, (index) => searched(`name${index}`, 'a.py:1: hit')),
        ),
      ),
    ).toEqual(['readLoop']);
    const fresh = start();
    expect(
      turns(
        fresh,
        times(8, (index) => searched(`name${index}`, `a.py:${index}: hit`)),
      ),
    ).toEqual([]);
  });
});

describe('longExploration: a long exploration that never turns into a change', () => {
  it('fifty reads since the last change get one reminder even when each is new; it never ends a run that keeps finding new things', () => {
    const probe = start();
    const notes = turns(
      probe,
      times(120, (index) => read(`lib/f${index}.py`, `content ${index}`)),
    );
    expect(rulesOf(notes)).toEqual(['longExploration', 'longExploration']);
    expect(notes.map((note) => note.count)).toEqual([50, 50]);
    expect(probe.state).toMatch(/^build\./);
  });

  it('an edit starts it over: 45 new reads, an edit, 45 new reads get no reminder', () => {
    const probe = start();
    turns(
      probe,
      times(45, (index) => read(`f${index}.py`, `f ${index}`)),
    );
    turns(probe, [edited('x.py', { before: 'a', after: 'b' })]);
    expect(
      turns(
        probe,
        times(45, (index) => read(`g${index}.py`, `g ${index}`)),
      ),
    ).toEqual([]);
  });
});

describe('nothingNew: a run that has stopped learning', () => {
  it('is a loop: three commands cycling, each printing what it printed before, are nudged at six and ended', () => {
    const probe = start();
    const cycle = ['ls src', 'cat setup.cfg', 'git status'];
    const notes = turns(
      probe,
      times(40, (index) => ran(cycle[index % 3]!, 0, `output of ${cycle[index % 3]}`)),
    );
    expect(rulesOf(notes)[0]).toBe('nothingNew');
    expect(notes[0]).toMatchObject({ count: 6 });
    expect(probe.state).toBe('stalled');
  });

  it('only looks like one: the same three commands printing something new each time are never nudged', () => {
    const probe = start();
    const cycle = ['tail -n 3 build.log', 'ls out', 'git status'];
    expect(
      turns(
        probe,
        times(40, (index) => ran(cycle[index % 3]!, 0, `step ${index} of ${cycle[index % 3]}`)),
      ),
    ).toEqual([]);
  });

  it('yields to the rule that names the loop: the same failing command is nudged by repeatedAction, not twice', () => {
    const probe = start();
    const notes = turns(
      probe,
      times(9, () => ran('make', 2, 'error: x')),
    );
    expect(rulesOf(notes)).toEqual(['repeatedAction', 'repeatedAction', 'repeatedAction']);
  });
});

describe('noToolCalls: replies without a tool call', () => {
  it('each such reply gets exactly one message: the reminder twice, then the nudge instead of the reminder', () => {
    const probe = start();
    const delivered: string[] = [];
    for (let index = 0; index < 3; index++) {
      if (probe.state.endsWith('compact')) probe.contextReady();
      // The reply's turn ends at once (no tools), so its message is delivered in the same step.
      const step = probe.reply({ content: `thinking ${index}` });
      delivered.push(...step.appended.filter((message) => message.role === 'user').map((message) => String(message.content)));
    }
    expect(delivered).toEqual([
      '[harness] Use a tool, or call finish.',
      '[harness] Use a tool, or call finish.',
      '[harness] You replied 3 times without using a tool. Use a tool to make progress (read, edit, run the tests), or call finish.',
    ]);
  });

  it('a monologue ends the run; a tool call between replies starts the count over', () => {
    const talker = start();
    for (let index = 0; index < 12; index++) {
      if (talker.state.endsWith('compact')) talker.contextReady();
      talker.reply({ content: 'hmm' });
    }
    expect(talker.state).toBe('stalled');
    const thinker = start();
    for (let index = 0; index < 12; index++) {
      if (thinker.state.endsWith('compact')) thinker.contextReady();
      if (index % 2) thinker.reply({ content: 'hmm' });
      else turn(thinker, [read(`f${index}.py`, `new ${index}`)]);
    }
    expect(thinker.context.stall.counters.noToolCalls!.firings).toBe(0);
  });
});

describe('one stall, one message', () => {
  it('a turn that trips several rules at once is nudged once, by the first rule in order', () => {
    const probe = start();
    const notes = turns(
      probe,
      times(3, () => read('same.py', 'same')),
    );
    expect(rulesOf(notes)).toEqual(['repeatedAction']);
  });

  it('a phase can word a nudge its own way; other phases keep the default', () => {
    const worded = rulesSchema.parse({ phases: { fix: { nudges: { repeatedAction: 'Read the failing assertion before running the tests again.' } } } });
    const wordedMachine = createHarnessMachine(worded);
    const nudgeIn = (phase: string) => {
      const probe = probeHarness(wordedMachine, worded, { at: `${phase}.think` });
      return turns(
        probe,
        times(3, () => ran('make', 2, 'error')),
      ).at(0)?.message;
    };
    expect(nudgeIn('fix')).toBe('Read the failing assertion before running the tests again.');
    expect(nudgeIn('plan')).toBe(
      'The same action produced the same result 3 times. Do something different: read something you have not seen, change a file, or run the tests.',
    );
  });
});

describe('what makes two results the same action', () => {
  it('looks like repeatedAction but is not: three different files with the same content (empty __init__.py files)', () => {
    const probe = start();
    expect(turns(probe, [read('a/__init__.py', ''), read('b/__init__.py', ''), read('c/__init__.py', ''), read('d/__init__.py', '')])).toEqual([]);
  });

  it('looks like repeatedFailure but is not: edits to different files, each rejected with the same message', () => {
    const probe = start();
    expect(
      turns(
        probe,
        ['a.py', 'b.py', 'c.py', 'd.py'].map((path) => rejectedEdit(path)),
      ),
    ).toEqual([]);
  });

  it('the same edit rejected again and again with the same message is a loop', () => {
    const probe = start();
    expect(
      rulesOf(
        turns(
          probe,
          times(3, () => rejectedEdit('a.py')),
        ),
      ),
    ).toEqual(['repeatedAction']);
  });

  it('looks like editThrash but is not: an edit the guard keeps rejecting with a new error each time changes no file', () => {
    const probe = start();
    expect(
      turns(
        probe,
        times(6, (index) => rejectedEdit('a.py', `SyntaxError at line ${index + 1}`)),
      ),
    ).toEqual([]);
  });
});

describe('alternation counts from two different actions in a row', () => {
  const limited = (limit: number) => {
    const strict = rulesSchema.parse({ budgets: { maxSteps: 200 }, stall: { rules: [{ guard: 'alternation', limit }] } });
    return probeHarness(createHarnessMachine(strict), strict, { at: 'build.think' });
  };
  // Different files with the same content: after the first, nothing is new.
  const a = () => read('a.py', 'same');
  const b = () => read('b.py', 'same');
  const c = () => read('c.py', 'same');

  it('at a limit of 2, one action and then another is nudged', () => {
    expect(rulesOf(turns(limited(2), [a(), b()]))).toEqual(['alternation']);
  });

  it('at a limit of 2, the first action of a run, or the same action twice, is not', () => {
    expect(turns(limited(2), [a()])).toEqual([]);
    expect(turns(limited(2), [a(), a()])).toEqual([]);
  });

  it('at a limit of 3, A-B-A is nudged on its third action; A-B-C is no alternation', () => {
    expect(rulesOf(turns(limited(3), [a(), b(), a()]))).toEqual(['alternation']);
    expect(turns(limited(3), [a(), b(), c(), a(), b(), c()])).toEqual([]);
  });
});

describe("one rule's nudge and the other rules' counts", () => {
  it("a nudge starts over only the rules that saw the same turn at their limit: reading on after another rule's nudge still adds up", () => {
    const probe = start();
    const repeats = (prefix: string, count: number) => times(count, (index) => read(`${prefix}${index}.py`, 'same text'));
    const notes = turns(probe, [read('seed.py', 'same text'), ...repeats('f', 3), ...times(3, () => ran('make', 2, 'error: x')), ...repeats('g', 2)]);
    expect(rulesOf(notes)).toEqual(['repeatedAction', 'readLoop']);
    expect(notes[1]).toMatchObject({ count: 5 });
  });
});

describe('a stall rule of its own (a guard registered from code)', () => {
  // Holds on every turn whose test run failed.
  const custom = rulesSchema.parse({ budgets: { maxSteps: 200 }, stall: { rules: [{ guard: 'redRun', limit: 2 }] } });
  const customMachine = createHarnessMachine(custom, { guards: { redRun: (view) => view.turn.testRan && view.turn.testPassed === false } });
  const begin = () => probeHarness(customMachine, custom, { at: 'build.think' });

  it('is nudged with its limit as the count, its nudges counted, and ends the run when it holds again after them', () => {
    const probe = begin();
    const notes = turns(
      probe,
      times(5, () => ran('npm test', 1, 'FAILED tests/test_a.py::test_x')),
    );
    expect(notes.map((note) => [note.rule, note.count, note.firings])).toEqual([
      ['redRun', 2, 1],
      ['redRun', 2, 2],
      ['redRun', 2, 3],
    ]);
    expect(notes[0]!.message).toBe('Stall detected (redRun). Do something different.');
    expect(probe.state).toBe('stalled');
    expect(probe.context.reason).toBe('redRun: redRun held (2), still after 3 nudges with nothing new in between.');
  });

  it('looks like one but is not: failing runs that each fail another test are progress, so its nudges start over and the run goes on', () => {
    const probe = begin();
    const notes = turns(
      probe,
      times(8, (index) => ran('npm test', 1, `FAILED tests/test_a.py::test_${index}`)),
    );
    expect(notes.map((note) => note.firings)).toEqual(times(8, () => 1));
    expect(probe.state).toMatch(/^(build|fix|verify)\./);
  });
});

describe('what a nudge says it saw', () => {
  it('the count is how far the pattern ran in the turn, past the limit when the turn went further', () => {
    const probe = start();
    const [note] = stallNotes(
      turn(
        probe,
        times(4, () => ran('make', 2, 'error: x')),
      ).notes,
    );
    expect(note).toMatchObject({ rule: 'repeatedAction', limit: 3, count: 4 });
    expect(note!.message).toMatch(/^The same action produced the same result 4 times\./);
  });

  it('{path} in the words of a rule that names no file reads "the same file"', () => {
    const worded = rulesSchema.parse({ phases: { build: { nudges: { repeatedAction: 'You keep running the same thing on {path}.' } } } });
    const probe = probeHarness(createHarnessMachine(worded), worded, { at: 'build.think' });
    const notes = turns(
      probe,
      times(3, () => ran('make', 2, 'error')),
    );
    expect(notes[0]!.message).toBe('You keep running the same thing on the same file.');
  });
});
