import { describe, expect, it } from 'vitest';
import { and, createActor, createMachine, not, or, setup } from 'xstate';
import { COMBINATOR_NAMES, namedGuardLabel } from '../../lib/guard-labels.js';
import {
  actionName,
  guardLabel,
  guardName,
  guardShape,
  isCheckpoint,
  listTransitions,
  microstepTransitions,
  stateIds,
  stateLabel,
} from '../../machines/introspection.js';
import { call, createHarnessMachine, defaultRules, probeHarness, reply } from '../../testing/index.js';

// How coverage, the visualizer and the trace read a built machine (machines/introspection.ts).

describe('reading a built machine', () => {
  it('a state value as a dotted path', () => {
    expect(stateLabel('done')).toBe('done');
    expect(stateLabel({ build: 'act' })).toBe('build.act');
    expect(stateLabel({ a: { b: 'c' } })).toBe('a.b.c');
    expect(stateLabel({ verify: {} })).toBe('verify');
    expect(stateLabel({})).toBe('');
  });

  it('the run is saved after the model replied with calls (build.act), not while it thinks', () => {
    const rules = defaultRules();
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    expect(isCheckpoint(probe.snapshot)).toBe(false);
    probe.reply(reply(call('read_file', { path: 'a.js' })));
    expect(probe.state).toBe('build.act');
    expect(isCheckpoint(probe.snapshot)).toBe(true);
  });

  it('a guard read as a name with parameters, or a combinator of parts', () => {
    expect(guardShape(undefined)).toBeNull();
    expect(guardShape(null)).toBeNull();
    expect(guardShape('testRun')).toEqual({ name: 'testRun' });
    expect(guardShape({ type: 'phaseSteps', params: { min: 2 } })).toEqual({ name: 'phaseSteps', params: { min: 2 } });
    // Empty, missing or computed parameters are not part of the description.
    expect(guardShape({ type: 'testRun', params: {} })).toEqual({ name: 'testRun' });
    expect(guardShape({ type: 'testRun', params: null })).toEqual({ name: 'testRun' });
    expect(guardShape({ type: 'hasToolCalls', params: () => ({}) })).toEqual({ name: 'hasToolCalls' });
    expect(guardShape({ type: 3 })).toEqual({ name: 'inline guard' });
    function namedCheck() {
      return true;
    }
    expect(guardShape(namedCheck)).toEqual({ name: 'namedCheck' });
    expect(guardShape(Object.defineProperty(() => true, 'name', { value: '' }))).toEqual({ name: 'inline guard' });
    expect(guardShape(and(['testRun', { type: 'phaseSteps', params: { min: 2 } }]))).toEqual({
      combinator: 'all',
      parts: [{ name: 'testRun' }, { name: 'phaseSteps', params: { min: 2 } }],
    });
    // A missing part (a rules bug the rules check reports) is left out rather than read as a guard.
    expect(guardShape(and([null as never, 'testRun']))).toEqual({ combinator: 'all', parts: [{ name: 'testRun' }] });
    expect(guardShape(or(['testRun', not('editMade')]))).toEqual({
      combinator: 'any',
      parts: [{ name: 'testRun' }, { combinator: 'not', parts: [{ name: 'editMade' }] }],
    });
  });

  it('guard names match the trace and the chart; labels show the numbers', () => {
    const guard = and(['testRun', { type: 'phaseSteps', params: { min: 2 } }]);
    expect(guardName(guard)).toBe('all(testRun, phaseSteps)');
    expect(guardLabel(guard)).toBe('all(testRun, phaseSteps(min=2))');
    expect(guardLabel(not({ type: 'gateRefusals', params: { min: 3 } }))).toBe('not(gateRefusals(min=3))');
    expect(guardName(undefined)).toBeNull();
    expect(guardLabel(null)).toBeNull();
    expect(guardLabel('always')).toBe('always');
  });

  it('an action by name', () => {
    expect(actionName('deliverNotices')).toBe('deliverNotices');
    expect(actionName({ type: 'nudge', params: { rule: 'readLoop' } })).toBe('nudge');
    function recordStep() {}
    expect(actionName(recordStep)).toBe('recordStep');
    expect(actionName(Object.defineProperty(() => undefined, 'name', { value: '' }))).toBe('inline action');
    expect(actionName(null)).toBe('');
    expect(actionName({ type: 7 })).toBe('');
  });

  it('every transition once, in document order, with short state ids; repeats are numbered', () => {
    const machine = setup({ guards: { ready: () => true } }).createMachine({
      id: 'm',
      initial: 'a',
      on: { reset: { target: '.a' } },
      states: {
        a: {
          on: {
            go: [
              { guard: 'ready', target: 'b' },
              { guard: 'ready', target: 'b' },
              { guard: 'ready', target: 'b' },
            ],
            stay: { actions: () => undefined },
          },
          always: [{ guard: { type: 'ready', params: { n: 1 } }, target: 'elsewhere' }],
        },
        b: { initial: 'inner', states: { inner: {} } },
        elsewhere: { id: 'far', type: 'final' },
      },
    });
    const list = listTransitions(machine);
    expect(list.map((transition) => transition.key)).toEqual([
      'm --reset--> a',
      'a --go [ready]--> b',
      'a --go [ready]--> b #2',
      'a --go [ready]--> b #3',
      'a --stay--> (self)',
      'a --always [ready(n=1)]--> far',
    ]);
    expect(list[1]).toMatchObject({ source: 'a', event: 'go', guard: 'ready', targets: ['b'] });
    expect(list[4]).toMatchObject({ source: 'a', event: 'stay', guard: null, targets: [] });
    expect(list[1]?.definition.eventType).toBe('go');
    expect(stateIds(machine)).toEqual(['a', 'b', 'b.inner', 'far']);
  });

  it('a transition into several regions names each target', () => {
    const machine = createMachine({
      id: 'p',
      type: 'parallel',
      on: { both: { target: ['.x.x2', '.y.y2'] } },
      states: { x: { initial: 'x1', states: { x1: {}, x2: {} } }, y: { initial: 'y1', states: { y1: {}, y2: {} } } },
    });
    expect(listTransitions(machine).map((transition) => transition.key)).toEqual(['p --both--> x.x2,y.y2']);
  });

  it('the transitions XState took in a microstep, from the inspection stream', () => {
    const machine = createMachine({ initial: 'a', states: { a: { on: { go: 'b' } }, b: {} } });
    const taken: string[] = [];
    const actor = createActor(machine, {
      inspect: (event) => {
        if (event.type === '@xstate.microstep') taken.push(...microstepTransitions(event).map((transition) => transition.eventType));
      },
    });
    actor.start();
    actor.send({ type: 'go' });
    expect(taken).toEqual(['go']);
    expect(microstepTransitions({ type: 'x' })).toEqual([]);
  });
});

describe('how a guard reads on the chart, at the edges (lib/guard-labels.ts)', () => {
  it('the combinators under the names the rules give them', () => {
    expect(COMBINATOR_NAMES).toEqual({ and: 'all', or: 'any', not: 'not', all: 'all', any: 'any' });
  });

  it('an overridden guard keeps the short form of the guard it replaces', () => {
    const rules = [{ rule: 'readLoop', limit: 8 }];
    expect(namedGuardLabel('stallPersists (overridden)', { maxNudges: 2, rules })).toBe('stallPersists (overridden)(maxNudges=2)');
    expect(namedGuardLabel('stallPersists', { maxNudges: 2, rules })).toBe('stallPersists(maxNudges=2)');
  });

  it('values of every kind, and a value of exactly 32 characters shown whole', () => {
    expect(namedGuardLabel('x', { a: undefined, b: true, c: null, d: 3 })).toBe('x(a=undefined, b=true, c=null, d=3)');
    const list = ['abcdefghij', 'abcdefghij', 'ab'];
    expect(JSON.stringify(list)).toHaveLength(32);
    expect(namedGuardLabel('x', { list })).toBe(`x(list=${JSON.stringify(list)})`);
    expect(namedGuardLabel('x', { list: [...list, 'c'] })).toBe('x(list=[4])');
  });
});
