import { describe, expect, it } from 'vitest';
import type { ToolEffect } from '../../lib/tool-effect.js';
import { foldReply, foldStall, initialStall, isFailure, noteFiring } from '../../machines/stall/counters.js';
import { createHarnessMachine, edited, probeHarness, type ResultSpec, ran, read, rulesSchema } from '../../testing/index.js';

const asResult = (spec: ResultSpec) => ({ id: 'c', name: spec.name, args: spec.args ?? {}, outcome: spec.outcome, ms: 1 });
const counter = (count: number, firings = 0) => ({ count, peak: count, firings });

describe("the stall counters' bookkeeping (machines/stall/counters.ts)", () => {
  it('a counter missing from the state (a snapshot saved before the rule existed) starts from zero', () => {
    const empty = { ...initialStall(), counters: {} };
    const folded = foldStall(empty, asResult(read('a.py', 'x')), {});
    // The first read is new: readLoop counts only reads of things seen before, longExploration every read.
    expect(folded.counters.readLoop?.count ?? 0).toBe(0);
    expect(folded.counters.longExploration).toEqual(counter(1));
    expect(folded.counters.repeatedAction).toEqual(counter(1));
    expect(foldReply(empty, false).counters.noToolCalls).toEqual(counter(1));
    expect(noteFiring(empty, 'repeatedAction', { repeatedAction: 3 }).counters.repeatedAction).toEqual(counter(0, 1));
  });

  it('a nudge starts over the rules at their limit on the same turn, keeping their nudges; the others keep counting', () => {
    const stall = {
      ...initialStall(),
      counters: { ...initialStall().counters, repeatedAction: counter(3), repeatedFailure: counter(2, 1), readLoop: counter(5) },
    };
    const after = noteFiring(stall, 'repeatedAction', { repeatedAction: 3, repeatedFailure: 2, readLoop: 8 });
    expect(after.counters.repeatedAction).toEqual(counter(0, 1));
    expect(after.counters.repeatedFailure).toEqual(counter(0, 1));
    expect(after.counters.readLoop).toEqual(counter(5));
    expect(after.fired).toBe('repeatedAction');
  });
});

describe('each kind of effect in the stall counters (the tables in machines/stall/counters.ts)', () => {
  // One effect of every kind, each in a call that reported ok.
  const effects: ToolEffect[] = [
    { kind: 'read', path: 'a.py' },
    { kind: 'search', pattern: 'x' },
    { kind: 'edit', path: 'a.py', applied: true },
    { kind: 'command', command: 'make', exitCode: 0, timedOut: false, blocked: false },
    { kind: 'job', action: 'read', id: '1', command: 'make', state: 'running', exitCode: null, log: '1.log', newBytes: 0, running: 1 },
    { kind: 'todo', items: [] },
    { kind: 'finish', summary: 'done' },
    { kind: 'mcp', server: 'docs', tool: 'lookup', outcome: 'ok', readOnly: true },
    { kind: 'none' },
  ];
  const okResult = (effect: ToolEffect) => ({ id: 'c', name: 'tool', args: { n: effect.kind }, outcome: { content: 'same', ok: true, effect }, ms: 1 });

  it('only reads and searches count as exploring', () => {
    const exploring = effects.filter((effect) => (foldStall(initialStall(), okResult(effect), {}).counters.longExploration?.count ?? 0) > 0);
    expect(exploring.map((effect) => effect.kind)).toEqual(['read', 'search']);
  });

  it('a call that reported ok failed all the same only as a rejected edit or a failing, blocked or timed-out command', () => {
    expect(effects.filter((effect) => isFailure(okResult(effect))).map((effect) => effect.kind)).toEqual([]);
    const failing: ToolEffect[] = [
      { kind: 'edit', path: 'a.py', applied: false },
      { kind: 'command', command: 'make', exitCode: 2, timedOut: false, blocked: false },
      { kind: 'command', command: 'make', exitCode: 0, timedOut: false, blocked: true },
      { kind: 'command', command: 'make', exitCode: 0, timedOut: true, blocked: false },
    ];
    expect(failing.map((effect) => isFailure(okResult(effect)))).toEqual([true, true, true, true]);
    expect(effects.every((effect) => isFailure({ ...okResult(effect), outcome: { ...okResult(effect).outcome, ok: false } }))).toBe(true);
  });
});

describe("the turn's progress, as the state records it", () => {
  it('lists what each result of the turn made new, in order, and starts empty on the next turn', () => {
    const rules = rulesSchema.parse({});
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    probe.reply({
      calls: [
        { name: 'read_file', args: { path: 'a.py' } },
        { name: 'edit_file', args: { path: 'a.py' } },
        { name: 'run', args: { command: 'npm test' } },
      ],
    });
    const step = probe.tools([read('a.py', 'v0'), edited('a.py', { before: 'v0', after: 'v1' }), ran('npm test', 1, 'FAILED t::x')]);
    expect(step.context.stall.progress).toEqual(['newInfo', 'newInfo', 'newFileState', 'newInfo', 'testChange']);
    // The trace says which result made what new.
    const ids = probe.snapshot.context.calls.map((call) => call.id);
    expect(step.notes.filter((note) => note.kind === 'progress')).toEqual([
      {
        kind: 'progress',
        step: 1,
        results: [
          { id: ids[0], name: 'read_file', kinds: ['newInfo'] },
          { id: ids[1], name: 'edit_file', kinds: ['newInfo', 'newFileState'] },
          { id: ids[2], name: 'run', kinds: ['newInfo', 'testChange'] },
        ],
      },
    ]);
    if (probe.state.endsWith('compact')) probe.contextReady();
    expect(probe.reply({ content: 'thinking' }).context.stall.progress).toEqual([]);
  });

  it('a turn whose results are all old news writes no progress line; one new result among them is the only one named', () => {
    const rules = rulesSchema.parse({});
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    const turn = (content: string[]) => {
      if (probe.state.endsWith('compact')) probe.contextReady();
      probe.reply({ calls: content.map(() => ({ name: 'read_file', args: { path: 'a.py' } })) });
      return probe.tools(content.map((text) => read('a.py', text)));
    };
    turn(['v0']);
    // Nothing new: the only note is the nudge the third identical read earns.
    expect(turn(['v0', 'v0']).notes.map((note) => note.kind)).toEqual(['stall']);
    const mixed = turn(['v0', 'v1']);
    expect(mixed.notes.filter((note) => note.kind === 'progress')).toEqual([
      { kind: 'progress', step: 3, results: [{ id: probe.snapshot.context.calls[1]!.id, name: 'read_file', kinds: ['newInfo'] }] },
    ]);
  });
});

describe('temp paths in a repeated command’s output', () => {
  const foldAll = (outputs: string[]) => outputs.reduce((stall, output) => foldStall(stall, asResult(ran('make bundle', 0, output)), {}), initialStall());

  it('a loop: the same command whose output differs only in the temp directory it used counts as repeated', () => {
    const stall = foldAll(['bundle at /tmp/tmp.a81/out.js', 'bundle at /tmp/tmp.k02/out.js', 'bundle at /tmp/tmp.zz9/out.js']);
    expect(stall.counters.repeatedAction?.count).toBe(3);
  });

  it('a look-alike: the same command writing a new build under /var/tmp each time is not repeating itself', () => {
    const stall = foldAll(['bundle at /var/tmp/build-1/out.js', 'bundle at /var/tmp/build-2/out.js', 'bundle at /var/tmp/build-3/out.js']);
    expect(stall.counters.repeatedAction?.count).toBe(1);
    expect(stall.progress).toEqual(['newInfo', 'newInfo', 'newInfo']);
  });
});
