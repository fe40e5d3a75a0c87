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

describe('budget arithmetic (machines/budgets.ts)', async () => {
  const budgets = await import('../../machines/budgets.js');
  const noUsage = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
  const free = { input: 0, cachedInput: 0, output: 0 };

  it('each budget is measured in its own unit: steps taken, whole seconds, prompt plus completion tokens, dollars', () => {
    const context = { step: 7, elapsedMs: 2_600, usage: { ...noUsage, promptTokens: 900, completionTokens: 100, costUsd: 0.25 } };
    expect(['steps', 'time', 'tokens', 'cost'].map((budget) => budgets.budgetUsed(context, budget as never))).toEqual([7, 3, 1000, 0.25]);
  });

  it('a warning is due from the exact share on, once: not one unit before it, and not after it was given', () => {
    const rules = [{ budget: 'steps' as const, share: 0.75, limit: 4 }];
    const at = (step: number, warned = {}) => budgets.dueWarnings({ step, elapsedMs: 0, usage: noUsage, warned } as never, rules);
    expect(at(2)).toEqual([]);
    expect(at(3)).toEqual(rules);
    expect(at(3, { steps: true })).toEqual([]);
  });

  it('warning rules: steps at stepWarnAt when set, tokens and cost only when capped, time always', () => {
    const plain = budgets.warningRulesOf(rulesSchema.parse({ budgets: { maxSteps: 40, maxSeconds: 600, warnAt: 0.5, stepWarnAt: 0.9 } }));
    expect(plain).toEqual({ perTurn: [{ budget: 'steps', share: 0.9, limit: 40 }], time: { budget: 'time', share: 0.5, limit: 600 } });
    const capped = budgets.warningRulesOf(rulesSchema.parse({ budgets: { maxSteps: 40, maxTokens: 1000, maxCostUsd: 3 } }));
    expect(capped.perTurn).toEqual([
      { budget: 'steps', share: 0.75, limit: 40 },
      { budget: 'tokens', share: 0.75, limit: 1000 },
      { budget: 'cost', share: 0.75, limit: 3 },
    ]);
  });

  it("the warning names the budget and says the share, what is used and the limit in the budget's unit", () => {
    const context = { step: 2, elapsedMs: 0, usage: { ...noUsage, costUsd: 1.5 }, warned: {}, notices: ['earlier'] } as never;
    const update = budgets.warningUpdate(
      context,
      [
        { budget: 'cost', share: 0.7, limit: 2 },
        { budget: 'time', share: 0.5, limit: 300 },
      ],
      '{Budget}|{budget}|{percent}|{used}|{limit}',
    );
    expect(update.context?.notices).toEqual(['earlier', 'Cost|cost|70|$1.50|$2.00', 'Time|time|50|150 s|300 s']);
    expect(update.context?.warned).toEqual({ cost: true, time: true });
    // Budgets warned about before stay warned.
    const earlier = budgets.warningUpdate({ ...(context as object), warned: { steps: true } } as never, [{ budget: 'cost', share: 0.7, limit: 2 }], '{budget}');
    expect(earlier.context?.warned).toEqual({ steps: true, cost: true });
    expect(update.notes).toEqual([
      { kind: 'budget_warning', budget: 'cost', step: 2, share: 0.7, used: 1.5, limit: 2 },
      { kind: 'budget_warning', budget: 'time', step: 2, share: 0.5, used: 150, limit: 300 },
    ]);
  });

  it('cost: cached prompt tokens at the cached price, never more cached than prompted', () => {
    const price = { input: 2, cachedInput: 1, output: 10 };
    expect(budgets.costOf({ promptTokens: 1000, completionTokens: 100, cachedTokens: 400 }, price)).toBeCloseTo((600 * 2 + 400 * 1 + 100 * 10) / 1e6, 12);
    expect(budgets.costOf({ promptTokens: 100, completionTokens: 0, cachedTokens: 500 }, price)).toBeCloseTo(100 / 1e6, 12);
    expect(budgets.priceOf({ m: price }, 'm')).toBe(price);
    expect(budgets.priceOf({ m: price }, 'other')).toEqual(free);
  });

  it('usage adds up call by call, cost included', () => {
    const price = { input: 1, cachedInput: 0.5, output: 2 };
    const total = budgets.addUsage(
      { calls: 1, promptTokens: 10, completionTokens: 5, cachedTokens: 2, costUsd: 1 },
      { promptTokens: 100, completionTokens: 50, cachedTokens: 20 },
      price,
    );
    expect(total).toEqual({ calls: 2, promptTokens: 110, completionTokens: 55, cachedTokens: 22, costUsd: 1 + (80 * 1 + 20 * 0.5 + 50 * 2) / 1e6 });
  });

  it('before a reply the caps count 2 chars a token: a sparse estimate is scaled up, a dense one still gets the margin', () => {
    const state = (charsPerToken: number) => ({ viewTokens: 1000, contextState: { charsPerToken } });
    expect(budgets.promptTokensForCaps(state(4))).toBe(2000);
    expect(budgets.promptTokensForCaps(state(2))).toBe(1100);
    expect(budgets.promptTokensForCaps({ viewTokens: 1000 })).toBe(1000);
  });

  it('the completion allowance stays within the token cap and the cost cap, counting the prompt as uncached', () => {
    const calibrated = { charsPerToken: 4, reportedRatio: 1 };
    const context = { usage: { ...noUsage, promptTokens: 1000, completionTokens: 500, costUsd: 0.01 }, viewTokens: 1000, contextState: calibrated };
    // Tokens: 10,000 − 1,500 used − 1,100 prompt (with the 1.1 margin).
    expect(budgets.completionAllowance(context, { maxCompletionTokens: 100_000, maxTokens: 10_000 }, free)).toBe(7400);
    // Cost: ($0.05 − $0.01 − 1,100 × $10/M) / ($20/M) = 1,450 tokens.
    expect(budgets.completionAllowance(context, { maxCompletionTokens: 100_000, maxCostUsd: 0.05 }, { input: 10, cachedInput: 1, output: 20 })).toBe(1450);
    // Free output: only a prompt that alone passes the cost cap stops the call.
    expect(budgets.completionAllowance(context, { maxCompletionTokens: 4096, maxCostUsd: 0.05 }, { input: 10, cachedInput: 1, output: 0 })).toBe(4096);
    expect(budgets.completionAllowance(context, { maxCompletionTokens: 4096, maxCostUsd: 0.02 }, { input: 10, cachedInput: 1, output: 0 })).toBe(0);
    // Without a cost cap, a priced call is limited by nothing but the completion cap.
    expect(budgets.completionAllowance(context, { maxCompletionTokens: 4096 }, { input: 10, cachedInput: 1, output: 20 })).toBe(4096);
    // A call that costs nothing is allowed even with the cost cap reached.
    const atCap = { ...context, usage: { ...context.usage, costUsd: 0.5 } };
    expect(budgets.completionAllowance(atCap, { maxCompletionTokens: 4096, maxCostUsd: 0.5 }, free)).toBe(4096);
    // Never negative.
    expect(budgets.completionAllowance(context, { maxCompletionTokens: 4096, maxTokens: 1000 }, free)).toBe(0);
    // Free output with a prompt that costs exactly what is left of the cap: the call may still be made, at full length.
    const exact = { usage: noUsage, viewTokens: 1000 };
    expect(budgets.completionAllowance(exact, { maxCompletionTokens: 4096, maxCostUsd: 1 }, { input: 1000, cachedInput: 0, output: 0 })).toBe(4096);
  });

  it("a window the provider taught is smaller than the rules' one bounds the allowance; an empty view is not bounded by the window", () => {
    const context = { usage: noUsage, viewTokens: 1000, contextState: { charsPerToken: 4, reportedRatio: 1, windowCap: 2000 } };
    expect(budgets.completionAllowance(context, { maxCompletionTokens: 4096, windowTokens: 32_768 }, free)).toBe(900);
    expect(budgets.completionAllowance({ ...context, viewTokens: 0 }, { maxCompletionTokens: 4096, windowTokens: 1000 }, free)).toBe(4096);
  });

  it('the budget is spent when the allowance is below 256 tokens, or below maxCompletionTokens when that is smaller', () => {
    const context = { usage: noUsage, viewTokens: 1000, contextState: { charsPerToken: 4, reportedRatio: 1 }, price: free } as never;
    expect(budgets.budgetSpent(context, { maxCompletionTokens: 4096, maxTokens: 1100 + 256 })).toBe(false);
    expect(budgets.budgetSpent(context, { maxCompletionTokens: 4096, maxTokens: 1100 + 255 })).toBe(true);
    expect(budgets.budgetSpent(context, { maxCompletionTokens: 100, maxTokens: 1100 + 100 })).toBe(false);
    expect(budgets.budgetSpent(context, { maxCompletionTokens: 100, maxTokens: 1100 + 99 })).toBe(true);
  });

  it('a budget end names the caps it came from', () => {
    expect(budgets.capReason({ maxCompletionTokens: 1, maxTokens: 5000, maxCostUsd: 2 })).toBe(
      'The next call could exceed the maxTokens 5000 / maxCostUsd 2 cap, counting its whole prompt as uncached; rein stopped before it.',
    );
    expect(budgets.capReason({ maxCompletionTokens: 1, maxCostUsd: 2 })).toBe(
      'The next call could exceed the maxCostUsd 2 cap, counting its whole prompt as uncached; rein stopped before it.',
    );
    expect(budgets.capReason({ maxCompletionTokens: 1 })).toBe(
      'The next call could exceed the token or cost cap, counting its whole prompt as uncached; rein stopped before it.',
    );
  });

  it('the caps of a rules set: the token and cost caps only when set, with the completion cap and the window', () => {
    expect(budgets.budgetCapsOf(rulesSchema.parse({ budgets: { maxTokens: 9000 } }))).toEqual({
      maxTokens: 9000,
      maxCompletionTokens: defaultRules().model.maxCompletionTokens,
      windowTokens: defaultRules().context.windowTokens,
    });
    expect(budgets.budgetCapsOf(defaultRules())).not.toHaveProperty('maxTokens');
    expect(budgets.budgetCapsOf(defaultRules())).not.toHaveProperty('maxCostUsd');
    expect(budgets.budgetCapsOf(rulesSchema.parse({ budgets: { maxCostUsd: 1 } })).maxCostUsd).toBe(1);
  });
});
