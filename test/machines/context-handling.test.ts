import { describe, expect, it } from 'vitest';
import { ContextLengthError } from '../../machines/actor-contracts.js';
import { createHarnessMachine, defaultRules, probeHarness } from '../../testing/index.js';

const rules = defaultRules();
const machine = createHarnessMachine(rules);

describe('a prompt the provider rejects as too long', () => {
  it('a prompt the provider rejects as too long makes the context manager aim lower each time, and fails after a few in a row', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 20_000 });
    const caps: number[] = [];
    for (let attempt = 1; attempt <= rules.context.maxPromptRejections; attempt++) {
      const rejected = probe.send({ type: 'xstate.error.actor.model', error: new ContextLengthError('context_length_exceeded') });
      expect(rejected.state).toBe('build.compact');
      expect(rejected.context.forceCompaction).toBe(true);
      expect(rejected.context.promptRejections).toBe(attempt);
      caps.push(rejected.context.contextState.windowCap!);
      // The compaction that follows clears the force flag; the rejection count stays until a reply gets through.
      const compacted = probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: Math.floor(caps.at(-1)! * 0.9), action: 'elided' });
      expect(compacted.state).toBe('build.think');
      expect(compacted.context.forceCompaction).toBe(false);
    }
    expect(caps).toEqual([15_000, 10_125, 6_834]);
    const last = probe.send({ type: 'xstate.error.actor.model', error: new ContextLengthError('still too long') });
    expect(last.state).toBe('failed');
    expect(last.context.reason).toContain('still too long');
  });

  it('a rejection that states the window teaches that window, and max_tokens then fits it (never below a useful answer)', async () => {
    const { completionAllowance } = await import('../../machines/budgets.js');
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 2_000 });
    const rejected = probe.send({
      type: 'xstate.error.actor.model',
      error: new ContextLengthError("400 This model's maximum context length is 3000 tokens. However, you requested 6096 tokens."),
    });
    expect(rejected.context.contextState.windowCap).toBe(3_000);
    const usage = { calls: 1, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
    const price = { input: 0, cachedInput: 0, output: 0 };
    const state = { ...rejected.context.contextState, reportedRatio: 1 };
    expect(completionAllowance({ usage, viewTokens: 2_000, contextState: state }, { maxCompletionTokens: 4096, windowTokens: 32_768 }, price)).toBe(
      3_000 - 2_200,
    );
    expect(completionAllowance({ usage, viewTokens: 2_900, contextState: state }, { maxCompletionTokens: 4096, windowTokens: 32_768 }, price)).toBe(256);
  });

  it('a reply that gets through resets the rejection count, and the smaller window stays', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 20_000 });
    probe.send({ type: 'xstate.error.actor.model', error: new ContextLengthError('context_length_exceeded') });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 12_000, action: 'elided' });
    const replied = probe.reply({ calls: [{ name: 'read_file', args: { path: 'a.js' } }] });
    expect(replied.context.promptRejections).toBe(0);
    expect(replied.context.contextState.windowCap).toBe(15_000);
  });
});

describe('context manager transitions', () => {
  it('overflow (context management off and the window full) ends the run as budget', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    const ended = probe.contextReady({ action: 'overflow', tokens: 40_000 });
    expect(ended.state).toBe('budget');
    expect(ended.context.reason).toBe('The context window (32768 tokens) is full and nothing more can be elided or summarized.');
  });

  it('stage 2: a view over the hard limit goes to the summarizer; a shrinking summary is applied', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    expect(probe.contextReady({ action: 'summarize', tokens: 30_000 }).state).toBe('build.summarize');
    const step = probe.send({
      type: 'xstate.done.actor.summarizer',
      output: { summary: { text: 'did things', through: 40 }, foldedChars: 50_000, summaryChars: 900 },
    });
    expect(step.state).toBe('build.compact');
    expect(step.context.contextState.summary).toEqual({ text: 'did things', through: 40 });
    expect(step.context.contextState.summaries).toBe(1);
  });

  it('a summary that does not shrink the view, or a failing summarizer, is counted as a failure', () => {
    const probe = probeHarness(machine, rules, { at: 'build.summarize' });
    const grew = probe.send({
      type: 'xstate.done.actor.summarizer',
      output: { summary: { text: 'x'.repeat(5000), through: 40 }, foldedChars: 1000, summaryChars: 5000 },
    });
    expect(grew.state).toBe('build.compact');
    expect(grew.context.contextState.summary).toBeNull();
    expect(grew.context.contextState.summaryFailures).toBe(1);
    const failing = probeHarness(machine, rules, { at: 'build.summarize' });
    expect(failing.send({ type: 'xstate.error.actor.summarizer', error: new Error('timeout') }).context.contextState.summaryFailures).toBe(1);
  });
});

describe('what context handling traces', () => {
  it('a view the manager changed is traced with its sizes before and after; an unchanged one is not', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact', context: { step: 4 } });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const elided = probe.contextReady({ messages, tokens: 900, chars: 3600, action: 'elided', before: { chars: 8000, tokens: 2000 } });
    expect(elided.notes).toEqual([{ kind: 'context', action: 'elided', before: { chars: 8000, tokens: 2000 }, after: { chars: 3600, tokens: 900 }, step: 4 }]);
    expect(elided.context.view?.messages).toEqual(messages);
    expect(elided.context.viewTokens).toBe(900);
    const plain = probeHarness(machine, rules, { at: 'build.compact' });
    expect(plain.contextReady({ messages, tokens: 900 }).notes).toEqual([]);
  });

  it('an applied summary bumps the state version and is traced with what it folded', () => {
    const probe = probeHarness(machine, rules, { at: 'build.summarize', context: { step: 6 } });
    const version = probe.context.contextState.version;
    const step = probe.send({
      type: 'xstate.done.actor.summarizer',
      output: { summary: { text: 'did things', through: 40 }, foldedChars: 50_000, summaryChars: 900 },
    });
    expect(step.context.contextState.version).toBe(version + 1);
    expect(step.notes).toEqual([{ kind: 'context', action: 'summarized', foldedChars: 50_000, summaryChars: 900, through: 40, step: 6 }]);
  });

  it("a failed summary is traced with the summarizer's error, or with why it was not applied", () => {
    const failing = probeHarness(machine, rules, { at: 'build.summarize', context: { step: 2 } });
    expect(failing.send({ type: 'xstate.error.actor.summarizer', error: new Error('timeout') }).notes).toEqual([
      { kind: 'context', action: 'summary_failed', error: 'timeout', step: 2 },
    ]);
    const odd = probeHarness(machine, rules, { at: 'build.summarize', context: { step: 2 } });
    expect(odd.send({ type: 'xstate.error.actor.summarizer', error: 'not an Error' }).notes).toEqual([
      { kind: 'context', action: 'summary_failed', error: 'not an Error', step: 2 },
    ]);
  });

  it('a rejection is traced with the rejected size, the window learnt and the attempt; a stated window is believed only the first time', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact', context: { step: 3 } });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 20_000 });
    const stated = () => new ContextLengthError("This model's maximum context length is 9000 tokens.");
    const first = probe.send({ type: 'xstate.error.actor.model', error: stated() });
    expect(first.notes).toEqual([{ kind: 'context', action: 'provider_rejected_length', rejectedTokens: 20_000, windowCap: 9000, attempt: 1, step: 3 }]);
    expect(first.context.contextState.version).toBe(1);
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 8000, action: 'elided' });
    // The same stated window again did not help: aim at 75% of the smaller of the prompt and the window learnt.
    const second = probe.send({ type: 'xstate.error.actor.model', error: stated() });
    expect(second.context.contextState.windowCap).toBe(6000);
    expect(second.notes).toEqual([expect.objectContaining({ attempt: 2, rejectedTokens: 8000, windowCap: 6000 })]);
  });

  it('a learnt window never goes below one token, nor above what was learnt before', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 1 });
    expect(probe.send({ type: 'xstate.error.actor.model', error: new ContextLengthError('too long') }).context.contextState.windowCap).toBe(1);
    const bigger = probeHarness(machine, rules, { at: 'build.compact', context: { contextState: { ...probe.context.contextState, windowCap: 5000 } } });
    bigger.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 1000, contextState: { ...probe.context.contextState, windowCap: 5000 } });
    expect(
      bigger.send({ type: 'xstate.error.actor.model', error: new ContextLengthError('maximum context length is 90000 tokens') }).context.contextState.windowCap,
    ).toBe(5000);
  });
});
