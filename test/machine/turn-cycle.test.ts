import { describe, expect, it } from 'vitest';
import { ContextLengthError } from '../../machines/actor-contracts.js';
import { MAX_PROMPT_REJECTIONS } from '../../machines/harness-machine.js';
import { initialContextState } from '../../context/context-state.js';
import { ModelEndpointError } from '../../lib/errors.js';
import { blocked, createHarnessMachine, defaultRules, edited, probeHarness, ran, read, rulesSchema, searched, toolError } from '../../testing/index.js';

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

  it('a reply without tool calls is reminded to use a tool, after which the next turn starts', () => {
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
    const step = probe.reply({ calls: [
      { name: 'read_file', args: {}, id: '' }, { name: 'grep', args: {}, id: 'x' }, { name: 'grep', args: {}, id: provider }, { name: 'grep', args: {}, id: provider },
    ] });
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

  it('a prompt the provider rejects as too long makes the context manager aim lower each time, and fails after a few in a row', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 20_000 });
    const caps: number[] = [];
    for (let attempt = 1; attempt <= MAX_PROMPT_REJECTIONS; attempt++) {
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
    const { completionAllowance } = await import('../../machines/budget.js');
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    probe.contextReady({ messages: [{ role: 'user', content: 'hi' }], tokens: 2_000 });
    const rejected = probe.send({ type: 'xstate.error.actor.model', error: new ContextLengthError("400 This model's maximum context length is 3000 tokens. However, you requested 6096 tokens.") });
    expect(rejected.context.contextState.windowCap).toBe(3_000);
    const usage = { calls: 1, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
    const price = { input: 0, cachedInput: 0, output: 0 };
    const state = { ...rejected.context.contextState, reportedRatio: 1 };
    expect(completionAllowance({ usage, viewTokens: 2_000, contextState: state }, { maxCompletionTokens: 4096, windowTokens: 32_768 }, price)).toBe(3_000 - 2_200);
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

  it('a tool actor or context manager crash (a harness bug) ends the run as failed, not an unhandled error', () => {
    const acting = probeHarness(machine, rules, { at: 'build.act' });
    expect(acting.send({ type: 'xstate.error.actor.tools', error: new Error('bug') }).state).toBe('failed');
    const compacting = probeHarness(machine, rules, { at: 'build.compact' });
    expect(compacting.send({ type: 'xstate.error.actor.contextManager', error: new Error('bug') }).state).toBe('failed');
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
    const step = probe.send({ type: 'xstate.done.actor.summarizer', output: { summary: { text: 'did things', through: 40 }, foldedChars: 50_000, summaryChars: 900 } });
    expect(step.state).toBe('build.compact');
    expect(step.context.contextState.summary).toEqual({ text: 'did things', through: 40 });
    expect(step.context.contextState.summaries).toBe(1);
  });

  it('a summary that does not shrink the view, or a failing summarizer, is counted as a failure', () => {
    const probe = probeHarness(machine, rules, { at: 'build.summarize' });
    const grew = probe.send({ type: 'xstate.done.actor.summarizer', output: { summary: { text: 'x'.repeat(5000), through: 40 }, foldedChars: 1000, summaryChars: 5000 } });
    expect(grew.state).toBe('build.compact');
    expect(grew.context.contextState.summary).toBeNull();
    expect(grew.context.contextState.summaryFailures).toBe(1);
    const failing = probeHarness(machine, rules, { at: 'build.summarize' });
    expect(failing.send({ type: 'xstate.error.actor.summarizer', error: new Error('timeout') }).context.contextState.summaryFailures).toBe(1);
  });
});

describe('stall detector (review)', () => {
  function turns(probe: ReturnType<typeof probeHarness>, count: number, result: Parameters<typeof probe.tools>[0][number]) {
    let step;
    for (let index = 0; index < count; index++) {
      if (probe.state.endsWith('compact')) probe.contextReady();
      probe.reply({ calls: [{ name: result.name, args: result.args }] });
      step = probe.tools([result]);
    }
    return step!;
  }

  it('same action with the same result 3 times: nudged after all tool results, and traced', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const third = turns(probe, 3, ran('make', 2, 'error: x'));
    expect(third.notes).toContainEqual({ kind: 'stall', data: expect.objectContaining({ rule: 'repeatedAction', limit: 3 }) });
    expect(third.context.notices).toEqual([]);
    // The nudge is delivered when the next turn starts: after the tool result, as a user message.
    const lastTwo = third.appended.slice(-2);
    expect(lastTwo[0]).toMatchObject({ role: 'tool' });
    expect(lastTwo[1]).toEqual({ role: 'user', content: '[harness] The same action produced the same result 3 times. Do something different.' });
  });

  it('a stall that persists after maxNudges nudges ends the run as stalled', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const step = turns(probe, 12, ran('make', 2, 'error: x'));
    expect(step.state).toBe('stalled');
    expect(step.context.stall.counters.repeatedAction!.firings).toBe(3);
  });

  it('the same action failing 3 times with different output fires repeatedFailure', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    let step;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (probe.state.endsWith('compact')) probe.contextReady();
      probe.reply({ calls: [{ name: 'run', args: { command: 'make' } }] });
      step = probe.tools([ran('make', 2, `error at ${attempt}`)]);
    }
    expect(step!.notes.map((note) => note.data.rule)).toContain('repeatedFailure');
  });

  it('A-B-A-B alternation over 6 actions fires alternation', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [1, 2, 3, 4, 5, 6].map((index) => ({ name: index % 2 ? 'read_file' : 'grep', args: {} })) });
    const step = probe.tools([read('a.py'), searched('x'), read('a.py', 'v2'), searched('x', 'v2'), read('a.py', 'v3'), searched('x', 'v3')]);
    expect(step.notes.map((note) => note.data.rule)).toContain('alternation');
  });

  it('5 successful edits to one file fire editThrash, naming the file', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [1, 2, 3, 4, 5].map(() => ({ name: 'edit_file', args: {} })) });
    const results = [1, 2, 3, 4, 5].map((index) => ({ ...edited('src/a.py'), args: { path: 'src/a.py', n: index } }));
    const step = probe.tools(results);
    const note = step.notes.find((entry) => entry.kind === 'stall');
    expect(note?.data.rule).toBe('editThrash');
    expect(String(note?.data.message)).toContain('src/a.py 5 times');
  });

  it('8 reads or searches without an edit fire readLoop; an edit resets the count', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [...Array.from({ length: 7 }, () => ({ name: 'read_file', args: {} })), { name: 'edit_file', args: {} }] });
    const reads = Array.from({ length: 7 }, (_, index) => read(`f${index}.py`));
    expect(probe.tools([...reads, edited('x.py')]).notes.some((note) => note.kind === 'stall')).toBe(false);
    probe.contextReady();
    probe.reply({ calls: Array.from({ length: 8 }, () => ({ name: 'read_file', args: {} })) });
    const step = probe.tools(Array.from({ length: 8 }, (_, index) => read(`g${index}.py`)));
    expect(step.notes.find((note) => note.kind === 'stall')?.data.rule).toBe('readLoop');
  });

  it('3 replies in a row without a tool call fire noToolCalls', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    let step;
    for (let index = 0; index < 3; index++) {
      if (probe.state.endsWith('compact')) probe.contextReady();
      step = probe.reply({ content: `thinking ${index}` });
    }
    expect(step!.notes.find((note) => note.kind === 'stall')?.data.rule).toBe('noToolCalls');
  });

  it('thresholds are rules: a repeat limit of 5 does not fire at 3 (legitimate polling)', () => {
    const patient = rulesSchema.parse({ stall: { rules: [{ guard: 'repeatedAction', limit: 5 }] } });
    const probe = probeHarness(createHarnessMachine(patient), patient, { at: 'build.think' });
    expect(turns(probe, 3, ran('curl localhost:8080/health', 7)).notes.some((note) => note.kind === 'stall')).toBe(false);
    expect(turns(probe, 2, ran('curl localhost:8080/health', 7)).notes.some((note) => note.kind === 'stall')).toBe(true);
  });

  it('blocked commands and tool errors count as failures', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'run', args: {} }, { name: 'run', args: {} }, { name: 'run', args: {} }] });
    const step = probe.tools([blocked('sudo rm'), blocked('sudo rm'), toolError('run', 'no such file', { command: 'make' })]);
    // Two blocked runs of one command are a repeated failure of 2; a failure of another call starts over at 1.
    expect(step.context.stall.counters.repeatedFailure).toMatchObject({ count: 1, peak: 2 });
    // A tool error counts as a failure even when its text changes each time (so repeatedAction does not see it).
    const again = probeHarness(machine, rules, { at: 'build.think' });
    again.reply({ calls: [{ name: 'run', args: {} }, { name: 'run', args: {} }, { name: 'run', args: {} }] });
    const errors = again.tools([1, 2, 3].map((attempt) => toolError('run', `attempt ${attempt} failed`, { command: 'make' })));
    expect(errors.notes.find((note) => note.kind === 'stall')?.data.rule).toBe('repeatedFailure');
    expect(errors.context.stall.counters.repeatedAction!.peak).toBe(1);
  });
});

describe('budgets', () => {
  it('step limit: the turn after the last allowed step ends as step_limit', () => {
    const tight = rulesSchema.parse({ budgets: { maxSteps: 2 } });
    const probe = probeHarness(createHarnessMachine(tight), tight, { at: 'build.think', context: { step: 1 } });
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    expect(probe.tools([ran('ls', 0)]).state).toBe('step_limit');
  });

  it('warns once at 75% of the step budget, delivered before the next model call', () => {
    const tight = rulesSchema.parse({ budgets: { maxSteps: 4 } });
    const probe = probeHarness(createHarnessMachine(tight), tight, { at: 'build.think', context: { step: 2 } });
    probe.reply({ calls: [{ name: 'run', args: { command: 'ls' } }] });
    const step = probe.tools([ran('ls', 0)]);
    expect(step.context.warned.steps).toBe(true);
    expect(step.appended.at(-1)).toEqual({ role: 'user', content: '[harness] Step check: 75% of the step budget is used. Wrap up and move to verification.' });
    expect(step.notes).toContainEqual({ kind: 'budget_warning', data: expect.objectContaining({ budget: 'steps' }) });
  });

  it('time: the warning is queued once and the expiry ends the run as timeout from any state', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const warned = probe.send({ type: 'clock.warning' });
    expect(warned.context.notices).toEqual(['Time check: 75% of the budget is used. Wrap up and move to verification.']);
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
    const { completionAllowance, promptTokensForCaps } = await import('../../machines/budget.js');
    const usage = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
    const guessed = { viewTokens: 1_000, usage, contextState: initialContextState(4) };
    expect(promptTokensForCaps(guessed)).toBe(2_000);
    // After a reply: the provider counted 1.3 tokens for each one rein estimated.
    expect(promptTokensForCaps({ ...guessed, contextState: { ...initialContextState(4), reportedRatio: 1.3 } })).toBe(1_430);
    const price = { input: 0, cachedInput: 0, output: 0 };
    expect(completionAllowance(guessed, { maxCompletionTokens: 4096, maxTokens: 3_000 }, price)).toBe(1_000);
  });

  it('window: max_tokens leaves the prompt room in the window', async () => {
    const { completionAllowance } = await import('../../machines/budget.js');
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

describe('nudge texts are rules', () => {
  it('a phase can word a stall nudge its own way; other phases keep the default', () => {
    const worded = rulesSchema.parse({ phases: { fix: { nudges: { repeatedFailure: 'Read the failing assertion before running the tests again.' } } } });
    const machine = createHarnessMachine(worded);
    const nudgeIn = (phase: string) => {
      const probe = probeHarness(machine, worded, { at: `${phase}.think` });
      probe.reply({ calls: [0, 1, 2].map(() => ({ name: 'run', args: { command: 'make' } })) });
      const step = probe.tools([0, 1, 2].map((attempt) => ran('make', 2, `error ${attempt}`)));
      return step.notes.find((note) => note.kind === 'stall')?.data.message;
    };
    expect(nudgeIn('fix')).toBe('Read the failing assertion before running the tests again.');
    expect(nudgeIn('build')).toBe('The same action failed 3 times in a row, even with different output. Stop retrying it; find the cause or take another route.');
  });
});

describe('the probe refuses input the machine would never get', () => {
  it('a reply outside a think state, results that do not match the pending calls', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    expect(() => probe.reply({ calls: [{ name: 'read_file', args: {} }] })).toThrow('probe.reply(): the machine is in build.compact');
    probe.contextReady();
    expect(() => probe.tools([read('a.py')])).toThrow('probe.tools(): the machine is in build.think');
    probe.reply({ calls: [{ name: 'read_file', args: {} }, { name: 'run', args: { command: 'ls' } }] });
    expect(() => probe.tools([read('a.py')])).toThrow('1 result(s) for 2 call(s) (read_file, run)');
    expect(() => probe.tools([read('a.py'), edited('a.py')])).toThrow('result 2 is for edit_file, but call 2 is run');
    expect(probe.tools([read('a.py'), ran('ls', 0)]).state).toBe('build.compact');
  });

  it('a finish with valid arguments ends the results and needs its summary; a malformed finish is a call like any other', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'finish', args: '{"summ' }, { name: 'read_file', args: {} }, { name: 'finish', args: { summary: 'done' } }] });
    expect(() => probe.tools([toolError('finish', 'bad JSON')])).toThrow('1 result(s) for 2 call(s) (finish, read_file, before the finish)');
    expect(() => probe.tools([toolError('finish', 'bad JSON'), read('a.py')])).toThrow('call 3 is a finish');
    expect(probe.tools([toolError('finish', 'bad JSON'), read('a.py')], { summary: 'done' }).state).toMatch(/^(build|verify)\./);
    // An extra argument fails finish's strict schema in the real tool actor, so it is a call like any other here too.
    const strict = probeHarness(machine, rules, { at: 'build.think' });
    strict.reply({ calls: [{ name: 'finish', args: { summary: 'done', confidence: 'high' } }] });
    expect(strict.tools([toolError('finish', 'unknown argument')]).state).toBe('build.compact');
  });
});
