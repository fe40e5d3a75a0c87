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

  it("keeps the provider's ids, however short, and gives empty and duplicate ones unique ids so every result pairs with its call", () => {
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
    expect(ids).toEqual(['call_1_0', 'x', provider, 'call_1_3']);
    expect((step.appended[0] as { tool_calls: Array<{ id: string }> }).tool_calls.map((call) => call.id)).toEqual(ids);
    // Both ids are in the trace where they differ, and the run remembers every id it gave.
    expect(step.notes).toContainEqual({
      kind: 'call_ids',
      step: 1,
      calls: [
        { index: 0, given: null, id: 'call_1_0', why: 'missing' },
        { index: 3, given: provider, id: 'call_1_3', why: 'duplicate' },
      ],
    });
    expect(step.context.callIds).toEqual(ids);
    // An id of an earlier reply is not given again: the second reply's `x` becomes the machine's own.
    const later = probeHarness(machine, rules, { at: 'build.think', context: { step: 4, callIds: ids } }).reply({
      calls: [{ name: 'grep', args: {}, id: 'x' }],
    });
    expect(later.context.calls.map((call) => call.id)).toEqual(['call_5_0']);
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

describe('the record and facts a turn writes (machines/turn-cycle.ts)', async () => {
  const cycle = await import('../../machines/turn-cycle.js');
  const { initialContextState } = await import('../../context/context-state.js');
  const assistant = (calls: Array<{ id?: unknown; name?: unknown; arguments?: unknown }>) =>
    ({
      role: 'assistant' as const,
      content: null,
      tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
    }) as never;

  it('the run opens with the system prompt and the task, the verification command and any todo list left on the workspace', () => {
    const probe = probeHarness(machine, rules, {
      context: {
        task: '  Fix the median.  ',
        testCmd: 'npm test',
        facts: {
          ...probeHarness(machine, rules).context.facts,
          todo: [
            { task: 'read', done: true },
            { task: 'fix', done: false },
          ],
        },
      },
    });
    const opening = cycle.openingUpdate(probe.context, { systemPrompt: 'You are rein.' });
    expect(opening.append).toEqual([
      { role: 'system', content: 'You are rein.' },
      {
        role: 'user',
        content:
          'Fix the median.\n\nVerification command: `npm test`\n\nTodo list left by an earlier session on this workspace (.rein/progress.json):\n[x] read\n[ ] fix',
      },
    ]);
    const bare = probeHarness(machine, rules, { context: { task: 'Fix it.', testCmd: '' } });
    expect(cycle.openingUpdate(bare.context, { systemPrompt: 's' }).append?.[1]).toEqual({ role: 'user', content: 'Fix it.' });
  });

  it('entering a phase marks where its phase-relative guards start counting', () => {
    const probe = probeHarness(machine, rules, { context: { step: 9, facts: { ...probeHarness(machine, rules).context.facts, seq: 14, testRuns: 3 } } });
    const entered = cycle.enterPhaseUpdate(probe.context, { phase: 'fix' });
    expect(entered.context?.phase).toBe('fix');
    expect(entered.context?.facts).toMatchObject({ phaseStartSeq: 14, phaseStartStep: 9, phaseStartTestRuns: 3 });
  });

  it('no notices, nothing delivered', () => {
    expect(cycle.deliveryUpdate(probeHarness(machine, rules).context)).toEqual({});
  });

  it("sends the provider's id back as it came, however short; makes one only where none came, it is unusable, or taken in the run", () => {
    const long = 'a'.repeat(256);
    const { calls, changes } = cycle.normalizeCalls(
      assistant([
        { id: 'call_ab12cd34', name: 'read_file', arguments: '{}' },
        { id: '0', name: 'read_file', arguments: '{}' },
        { id: 'functions.run:7', name: 'run', arguments: '{}' },
        { id: long, name: 'grep', arguments: '{}' },
        { id: `${long}b`, name: 'grep', arguments: '{}' },
        { id: 'call id with spaces', name: 'grep', arguments: '{}' },
        { id: 'call_ab12cd34', name: 7, arguments: { path: 'a.js' } },
        { id: 42, name: 'run' },
        { id: 'seen_before', name: 'run', arguments: '{}' },
      ]),
      5,
      { used: ['seen_before', 'call_5_7'] },
    );
    expect(calls.map((call) => call.id)).toEqual(['call_ab12cd34', '0', 'functions.run:7', long, 'call_5_4', 'call_5_5', 'call_5_6', 'call_5_7_1', 'call_5_8']);
    expect(changes).toEqual([
      { index: 4, given: `${long}b`.slice(0, 200), id: 'call_5_4', why: 'invalid' },
      { index: 5, given: 'call id with spaces', id: 'call_5_5', why: 'invalid' },
      { index: 6, given: 'call_ab12cd34', id: 'call_5_6', why: 'duplicate' },
      { index: 7, given: null, id: 'call_5_7_1', why: 'missing' },
      { index: 8, given: 'seen_before', id: 'call_5_8', why: 'duplicate' },
    ]);
    expect(calls[6]!.function).toEqual({ name: '', arguments: '{"path":"a.js"}' });
    expect(calls[7]!.function).toEqual({ name: 'run', arguments: '{}' });
    expect(calls.every((call) => call.type === 'function')).toBe(true);
    expect(cycle.normalizeCalls({ role: 'assistant', content: 'no calls' }, 1)).toEqual({ calls: [], changes: [] });
  });

  it('never keeps an id that names a property every object has: calls are keyed by id in plain records', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    const { calls, changes } = cycle.normalizeCalls(assistant(names.map((id) => ({ id, name: 'run', arguments: '{}' }))), 2);
    expect(calls.map((call) => call.id)).toEqual(names.map((_, index) => `call_2_${index}`));
    expect(changes.map((change) => change.why)).toEqual(names.map(() => 'invalid'));
  });

  it('for a Mistral-style endpoint keeps nine letters and digits and makes ids of that form, unique in the run', () => {
    const { calls, changes } = cycle.normalizeCalls(
      assistant([
        { id: 'abcDEF123', name: 'read_file', arguments: '{}' },
        { id: 'call_0fypS1hVX', name: 'read_file', arguments: '{}' },
        { id: 'abcDEF12', name: 'run', arguments: '{}' },
        { name: 'run', arguments: '{}' },
        { id: 'abcDEF123', name: 'run', arguments: '{}' },
      ]),
      3,
      { format: 'alphanumeric-9', used: ['r00003030'] },
    );
    expect(calls[0]!.id).toBe('abcDEF123');
    for (const call of calls) expect(call.id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(calls.map((call) => call.id)).size).toBe(5);
    expect(calls.map((call) => call.id)).not.toContain('r00003030');
    expect(changes.map((change) => change.why)).toEqual(['invalid', 'invalid', 'missing', 'duplicate']);
  });

  it('a reply starts a new turn: the step, the calls, the usage; a forced compaction and the rejection count are over', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think', context: { step: 3, forceCompaction: true, promptRejections: 2, cursor: 4 } });
    const step = probe.reply({ calls: [{ name: 'read_file', args: { path: 'a' } }] }, { promptTokens: 50, completionTokens: 5 });
    expect(step.context).toMatchObject({ step: 4, cursor: 0, forceCompaction: false, promptRejections: 0 });
    expect(step.context.turn).toMatchObject({ toolCalls: 1, edited: false });
    expect(step.context.usage).toMatchObject({ calls: 1, promptTokens: 50, completionTokens: 5 });
    expect(step.appended[0]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_4_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
    });
    // A reply without calls is recorded without a tool_calls field.
    const plain = probeHarness(machine, rules, { at: 'build.think' }).reply({ content: 'hm' });
    expect(plain.appended[0]).toEqual({ role: 'assistant', content: 'hm' });
  });

  it('calibration: the first report is taken as it is, later ones are averaged in; short requests and empty reports teach nothing', () => {
    const base = probeHarness(machine, rules).context;
    const context = { ...base, viewTokens: 1000, overheadTokens: 100, contextState: initialContextState(4) };
    const reply = (promptTokens: number, requestChars?: number) =>
      ({
        message: { role: 'assistant', content: 'x' },
        usage: { promptTokens, completionTokens: 1, cachedTokens: 0 },
        ...(requestChars !== undefined ? { requestChars } : {}),
      }) as never;
    // 3,000 chars over (1,100 − 100) content tokens: 3 chars a token; the provider counted 1.1 for each estimated token.
    const first = cycle.replyUpdate(context, reply(1100, 3000)).context!.contextState!;
    expect(first).toMatchObject({ charsPerToken: 3, reportedRatio: 1.1 });
    // Next: 5 chars a token observed, averaged with the 3 learnt.
    const second = cycle.replyUpdate({ ...context, contextState: first }, reply(1100, 5000)).context!.contextState!;
    expect(second.charsPerToken).toBe(4);
    // Observations are clamped to 1.5–8 chars a token.
    expect(cycle.replyUpdate(context, reply(1100, 100_000)).context!.contextState!.charsPerToken).toBe(8);
    expect(cycle.replyUpdate(context, reply(1100, 400)).context!.contextState!.charsPerToken).toBe(1.5);
    // Under 400 chars the request says too little about the tokenizer; the ratio is still learnt.
    const short = cycle.replyUpdate(context, reply(1100, 399)).context!.contextState!;
    expect(short.charsPerToken).toBe(4);
    expect(short.reportedRatio).toBe(1.1);
    // A report no bigger than the overhead, or none at all, changes nothing.
    expect(cycle.replyUpdate(context, reply(100, 3000)).context!.contextState!.charsPerToken).toBe(4);
    expect(cycle.replyUpdate(context, reply(0, 3000)).context!.contextState).toBe(context.contextState);
    expect(cycle.replyUpdate({ ...context, viewTokens: 0 }, reply(1100, 3000)).context!.contextState).toEqual({ ...context.contextState, charsPerToken: 3 });
  });
});
