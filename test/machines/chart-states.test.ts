import { describe, expect, it } from 'vitest';
import { createHarnessMachine, listTransitions, probeHarness, type Rules, read, rulesSchema } from '../../testing/index.js';

// The gate and review states as the rules build them (machines/phase-state.ts, gateState and reviewState), and the
// budget warning a short first phase keeps: what each variant does when the machine runs it.

const rulesWith = (input: unknown): Rules => rulesSchema.parse(input);

describe('the gate state, as the rules build it', () => {
  it('with the gate off, finish is accepted at once: its summary is the run’s and the finish note says the gate was off', () => {
    const rules = rulesWith({ verification: { gate: false } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'finish', args: { summary: 'done without tests' } }] });
    const step = probe.tools([], { summary: 'done without tests' });
    expect(step.state).toBe('done');
    expect(step.context.summary).toBe('done without tests');
    expect(step.notes).toContainEqual({ kind: 'finish', allowed: true, step: 1, summary: 'done without tests', gate: false });
    expect(step.appended).toEqual([{ role: 'tool', tool_call_id: 'call_1_0', content: 'Finished.' }]);
  });

  it('in a phase where no test can have run (a plan phase without run), finish is refused with the rules’ refusal, and later calls run', () => {
    const rules = rulesWith({
      phases: { plan: { tools: ['read_file', 'update_todo', 'finish'], exits: [] } },
      verification: { refusal: 'No: {why}. Run `{cmd}` first.' },
    });
    const machine = createHarnessMachine(rules);
    // The plan's gate has no guarded branch: it can only refuse.
    expect(listTransitions(machine).filter((transition) => transition.source === 'plan.gate')).toHaveLength(1);
    const probe = probeHarness(machine, rules, { at: 'plan.think' });
    probe.reply({
      calls: [
        { name: 'finish', args: { summary: 'nothing to do' }, id: 'call_finish_00000001' },
        { name: 'read_file', args: { path: 'a.py' } },
      ],
    });
    const refused = probe.tools([], { summary: 'nothing to do' });
    expect(refused.state).toBe('plan.act');
    expect(refused.appended).toEqual([{ role: 'tool', tool_call_id: 'call_finish_00000001', content: 'No: no passing test run yet. Run `npm test` first.' }]);
    expect(refused.notes).toContainEqual({
      kind: 'finish',
      allowed: false,
      step: 1,
      refusals: 1,
      why: 'no passing test run yet',
      guard: 'testsPassedSinceLastEdit',
    });
    expect(refused.context.facts.gateRefusals).toBe(1);
    expect(probe.tools([read('a.py')]).state).toBe('plan.compact');
  });
});

describe('the review state, as the rules build it', () => {
  it('a stall rule whose built-in guard a rules module replaced ends the run by the replacement, after its nudges', () => {
    // The replacement sees a stall the built-in counter does not (no tool result was ever repeated).
    const rules = rulesWith({ stall: { rules: [{ guard: 'repeatedAction', limit: 2 }], maxNudges: 1 } });
    const machine = createHarnessMachine(rules, { guards: { repeatedAction: { override: true, test: (view) => view.step >= 1 } } });
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const first = probe.reply({ content: 'thinking' });
    expect(first.state).toBe('build.compact');
    expect(first.notes).toMatchObject([{ kind: 'stall', rule: 'repeatedAction', firings: 1 }]);
    probe.contextReady();
    const second = probe.reply({ content: 'still thinking' });
    expect(second.state).toBe('stalled');
    expect(second.context.stall.counters.repeatedAction?.count ?? 0).toBe(0);
  });
});

describe('the budget warning in a first phase of a few steps', () => {
  it('a plan phase capped below the step warning still warns about a token budget running low', () => {
    const rules = rulesWith({ phases: { plan: { maxSteps: 2, onMaxSteps: 'build' } }, budgets: { maxTokens: 1000 } });
    const probe = probeHarness(createHarnessMachine(rules), rules, {
      at: 'plan.think',
      context: { usage: { calls: 1, promptTokens: 800, completionTokens: 0, cachedTokens: 0, costUsd: 0 } },
    });
    const step = probe.reply({ content: 'reading' });
    expect(step.state).toBe('plan.compact');
    expect(step.notes.filter((note) => note.kind === 'budget_warning')).toMatchObject([{ budget: 'tokens' }]);
  });

  it('without a token or cost budget, such a phase has no warning transition at all (it cannot reach the step warning)', () => {
    const rules = rulesWith({ phases: { plan: { maxSteps: 2, onMaxSteps: 'build' } } });
    const observe = listTransitions(createHarnessMachine(rules)).filter((transition) => transition.source === 'plan.observe');
    expect(observe.map((transition) => transition.guard)).toEqual([null]);
  });
});
