import { describe, expect, it } from 'vitest';
import { initialContextState } from '../../context/context-state.js';
import { createHarnessMachine, defaultRules, probeHarness, ran, rulesSchema } from '../../testing/index.js';

const rules = defaultRules();
const machine = createHarnessMachine(rules);

describe('budgets', () => {
  it('step limit: the turn after the last allowed step ends as step_limit', () => {
    const tight = rulesSchema.parse({ budgets: { maxSteps: 2 } });
    const probe = probeHarness(createHarnessMachine(tight), tight, { at: 'build.think', context: { step: 1 } });
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    expect(probe.tools([ran('ls', 0)]).state).toBe('step_limit');
  });

  it('warns once at the warning share of the step budget, delivered before the next model call, with the share and the count', () => {
    const tight = rulesSchema.parse({ budgets: { maxSteps: 4 } });
    const probe = probeHarness(createHarnessMachine(tight), tight, { at: 'build.think', context: { step: 2 } });
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    const step = probe.tools([ran('ls', 0)]);
    expect(step.context.warned.steps).toBe(true);
    expect(step.appended.at(-1)).toEqual({
      role: 'user',
      content: '[harness] Step check: 75% of the step budget is used (3 steps of 4 steps). Wrap up and move to verification.',
    });
    expect(step.notes).toContainEqual({ kind: 'budget_warning', budget: 'steps', step: 3, share: 0.75, used: 3, limit: 4 });
    // Once: the next turn past the share says nothing more.
    probe.contextReady();
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    expect(probe.tools([ran('ls', 0)]).state).toBe('step_limit');
  });

  it('the share is a rule, and its number is in the text: warnAt 0.5 warns at half the steps', () => {
    const half = rulesSchema.parse({ budgets: { maxSteps: 10, warnAt: 0.5 } });
    const probe = probeHarness(createHarnessMachine(half), half, { at: 'build.think', context: { step: 3 } });
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    expect(probe.tools([ran('ls', 0)]).context.warned.steps).toBeUndefined();
    probe.contextReady();
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    expect(probe.tools([ran('ls', 0)]).appended.at(-1)?.content).toBe(
      '[harness] Step check: 50% of the step budget is used (5 steps of 10 steps). Wrap up and move to verification.',
    );
  });

  it('tokens and cost caps warn at their share too, by the same mechanism', () => {
    const capped = rulesSchema.parse({ budgets: { maxTokens: 100_000, maxCostUsd: 2 }, model: { prices: { m: { input: 10, cachedInput: 1, output: 30 } } } });
    const probe = probeHarness(createHarnessMachine(capped), capped, { at: 'build.think', context: { model: 'm' } });
    // 80,000 tokens: past 75% of the token cap; cost 80,000 × $10/M = $0.80, under 75% of $2.
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] }, { promptTokens: 80_000, completionTokens: 0, cachedTokens: 0 });
    const step = probe.tools([ran('ls', 0)]);
    expect(step.notes.filter((note) => note.kind === 'budget_warning').map((note) => note.kind === 'budget_warning' && note.budget)).toEqual(['tokens']);
    expect(step.appended.at(-1)?.content).toBe(
      '[harness] Token check: 75% of the token budget is used (80,000 tokens of 100,000 tokens). Wrap up and move to verification.',
    );
    probe.contextReady();
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] }, { promptTokens: 10_000, completionTokens: 25_000, cachedTokens: 0 });
    const costly = probe.tools([ran('ls', 0)]);
    expect(costly.notes.filter((note) => note.kind === 'budget_warning').map((note) => note.kind === 'budget_warning' && note.budget)).toEqual(['cost']);
  });

  it('time: the warning is queued once and the expiry ends the run as timeout from any state', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const warned = probe.send({ type: 'clock.warning' });
    expect(warned.context.notices).toEqual(['Time check: 75% of the time budget is used (675 s of 900 s). Wrap up and move to verification.']);
    expect(warned.notes).toEqual([{ kind: 'budget_warning', budget: 'time', step: 0, share: 0.75, used: 675, limit: 900 }]);
    expect(probe.send({ type: 'clock.warning' }).context.notices).toHaveLength(1);
    expect(probe.send({ type: 'clock.expired' }).state).toBe('timeout');
  });

  it('tokens: stops before the call that would exceed the cap', () => {
    const capped = rulesSchema.parse({ budgets: { maxTokens: 10_000 } });
    const usage = { calls: 3, promptTokens: 8000, completionTokens: 700, cachedTokens: 0, costUsd: 0 };
    // Calibrated: the provider has reported real prompt sizes, so the estimate gets only a small margin.
    const contextState = { ...initialContextState(4), reportedRatio: 1 };
    const probe = probeHarness(createHarnessMachine(capped), capped, { at: 'build.compact', context: { usage, contextState } });
    const ended = probe.contextReady({ tokens: 1200, contextState });
    expect(ended.state).toBe('budget');
    expect(ended.context.reason).toContain('maxTokens 10000 cap');
    const roomy = probeHarness(createHarnessMachine(capped), capped, { at: 'build.compact', context: { usage, contextState } });
    expect(roomy.contextReady({ tokens: 600, contextState }).state).toBe('build.think');
  });

  it('tokens: the caps correct the estimate by what the provider reported, and before any report assume a dense tokenizer (2 chars a token)', async () => {
    const { completionAllowance, promptTokensForCaps } = await import('../../machines/budgets.js');
    const usage = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
    const guessed = { viewTokens: 1_000, usage, contextState: initialContextState(4) };
    expect(promptTokensForCaps(guessed)).toBe(2_000);
    // After a reply: the provider counted 1.3 tokens for each one rein estimated.
    expect(promptTokensForCaps({ ...guessed, contextState: { ...initialContextState(4), reportedRatio: 1.3 } })).toBe(1_430);
    const price = { input: 0, cachedInput: 0, output: 0 };
    expect(completionAllowance(guessed, { maxCompletionTokens: 4096, maxTokens: 3_000 }, price)).toBe(1_000);
  });

  it('window: max_tokens leaves the prompt room in the window', async () => {
    const { completionAllowance } = await import('../../machines/budgets.js');
    const price = { input: 0, cachedInput: 0, output: 0 };
    const usage = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
    expect(completionAllowance({ usage, viewTokens: 5_000 }, { maxCompletionTokens: 4096, windowTokens: 8192 }, price)).toBe(3192);
    expect(completionAllowance({ usage, viewTokens: 1_000 }, { maxCompletionTokens: 4096, windowTokens: 8192 }, price)).toBe(4096);
  });

  it('cost: stops before a call whose uncached prompt alone would pass the cap', () => {
    const capped = rulesSchema.parse({ budgets: { maxCostUsd: 0.05 }, model: { prices: { m: { input: 3, cachedInput: 0.3, output: 15 } } } });
    const usage = { calls: 3, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0.04 };
    const probe = probeHarness(createHarnessMachine(capped), capped, { at: 'build.compact', context: { usage, model: 'm' } });
    expect(probe.contextReady({ tokens: 3000 }).state).toBe('budget');
  });
});
