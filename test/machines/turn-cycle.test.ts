import { describe, expect, it } from 'vitest';
import { ModelEndpointError } from '../../lib/errors.js';
import { createHarnessMachine, defaultRules, edited, probeHarness, ran, read, rulesSchema, toolError } from '../../testing/index.js';

const rules = defaultRules();
const machine = createHarnessMachine(rules);

describe('turn cycle: observe → compact → checkBudget → think → act → review → route', () => {
  it('a new turn delivers queued notices, then the context manager output reaches the model', () => {
    const probe = probeHarness(machine, rules, { at: 'build.observe', context: { notices: ['Time check'] } });
    const entered = probe.send({ type: 'clock.restart' });
    expect(entered.state).toBe('build.compact');
    expect(entered.appended).toEqual([{ role: 'user', content: '[harness] Time check' }]);
    expect(entered.context.notices).toEqual([]);
    const probe2 = probeHarness(machine, rules, { at: 'build.compact' });
    const step = probe2.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 500 });
    expect(step.state).toBe('build.think');
    expect(step.context.view?.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(step.context.viewTokens).toBe(500);
  });

  it('a reply without tool calls gets one reminder to use a tool, after which the next turn starts', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const step = probe.reply({ content: 'I think it is fixed.' });
    expect(step.state).toBe('build.compact');
    expect(step.appended).toEqual([
      { role: 'assistant', content: 'I think it is fixed.' },
      { role: 'user', content: '[harness] Use a tool, or call finish.' },
    ]);
  });

  it('usage and cost are added per call, with cached tokens at the cached price', () => {
    const priced = rulesSchema.parse({ model: { prices: { m: { input: 3, cachedInput: 0.3, output: 15 } } } });
    const probe = probeHarness(createHarnessMachine(priced), priced, { at: 'build.think', context: { model: 'm' } });
    const step = probe.reply({ content: 'x' }, { promptTokens: 1_000_000, cachedTokens: 500_000, completionTokens: 100_000 });
    expect(step.context.usage.costUsd).toBeCloseTo(1.5 + 0.15 + 1.5, 6);
    expect(step.context.usage.cachedTokens).toBe(500_000);
  });

  it('gives empty and duplicate tool-call ids unique ids so every result pairs with its call', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const provider = 'call_Qx7fN2kLm9PzR4sT';
    const step = probe.reply({
      calls: [
        { name: 'read_file', args: {}, id: '' },
        { name: 'grep', args: {}, id: 'x' },
        { name: 'grep', args: {}, id: provider },
        { name: 'grep', args: {}, id: provider },
      ],
    });
    const ids = step.context.calls.map((call) => call.id);
    expect(ids).toEqual(['call_1_0', 'call_1_1', provider, 'call_1_3']);
    expect((step.appended[0] as { tool_calls: Array<{ id: string }> }).tool_calls.map((call) => call.id)).toEqual(ids);
  });

  it('a model endpoint failure after retries ends the run as failed with the reason', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const step = probe.send({ type: 'xstate.error.actor.model', error: new ModelEndpointError('model endpoint failed: 503') });
    expect(step.state).toBe('failed');
    expect(step.context.reason).toContain('503');
  });

  it('a tool actor or context manager crash (a harness bug) ends the run as failed, not an unhandled error', () => {
    const acting = probeHarness(machine, rules, { at: 'build.act' });
    expect(acting.send({ type: 'xstate.error.actor.tools', error: new Error('bug') }).state).toBe('failed');
    const compacting = probeHarness(machine, rules, { at: 'build.compact' });
    expect(compacting.send({ type: 'xstate.error.actor.contextManager', error: new Error('bug') }).state).toBe('failed');
  });
});

describe('the probe refuses input the machine would never get', () => {
  it('a reply outside a think state, results that do not match the pending calls', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    expect(() => probe.reply({ calls: [{ name: 'read_file', args: {} }] })).toThrow('probe.reply(): the machine is in build.compact');
    probe.contextReady();
    expect(() => probe.tools([read('a.py')])).toThrow('probe.tools(): the machine is in build.think');
    probe.reply({
      calls: [
        { name: 'read_file', args: {} },
        { name: 'run', args: { command: 'ls' } },
      ],
    });
    expect(() => probe.tools([read('a.py')])).toThrow('1 result(s) for 2 call(s) (read_file, run)');
    expect(() => probe.tools([read('a.py'), edited('a.py')])).toThrow('result 2 is for edit_file, but call 2 is run');
    expect(probe.tools([read('a.py'), ran('ls', 0)]).state).toBe('build.compact');
  });

  it('a finish with valid arguments ends the results and needs its summary; a malformed finish is a call like any other', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({
      calls: [
        { name: 'finish', args: '{"summ' },
        { name: 'read_file', args: {} },
        { name: 'finish', args: { summary: 'done' } },
      ],
    });
    expect(() => probe.tools([toolError('finish', 'bad JSON')])).toThrow('1 result(s) for 2 call(s) (finish, read_file, before the finish)');
    expect(() => probe.tools([toolError('finish', 'bad JSON'), read('a.py')])).toThrow('call 3 is a finish');
    expect(probe.tools([toolError('finish', 'bad JSON'), read('a.py')], { summary: 'done' }).state).toMatch(/^(build|verify)\./);
    // An extra argument fails finish's strict schema in the real tool actor, so it is a call like any other here too.
    const strict = probeHarness(machine, rules, { at: 'build.think' });
    strict.reply({ calls: [{ name: 'finish', args: { summary: 'done', confidence: 'high' } }] });
    expect(strict.tools([toolError('finish', 'unknown argument')]).state).toBe('build.compact');
  });
});
