import { describe, expect, it } from 'vitest';
import { type AnyStateNode, createActor, fromPromise, type InspectionEvent, toPromise } from 'xstate';
import type { ContextInput, ContextOutput, ModelInput, ToolsInput } from '../../machines/actor-contracts.js';
import { guardName, microstepTransitions, stateLabel } from '../../machines/introspection.js';
import type { ModelReply, ToolsOutput } from '../../machines/types.js';
import { createHarnessMachine, defaultRules, probeHarness, rulesSchema } from '../../testing/index.js';

// The machine's own guards and how its actions reach the context and the record (machines/harness-setup.ts), the
// actions on the context manager's transitions (machines/phase-state.ts), and the end states the rules make
// possible (machines/harness-machine.ts).

const rules = defaultRules();
const machine = createHarnessMachine(rules);
const messages = [
  { role: 'system' as const, content: 'You are rein.' },
  { role: 'user' as const, content: 'the task' },
];

describe("the context manager's verdict is stored before the machine acts on it", () => {
  it('a full window ends the run as budget, and the view it could not shrink is still traced with its sizes', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact', context: { step: 5 } });
    const contextState = { ...probe.context.contextState, version: 9 };
    const ended = probe.contextReady({
      contextState,
      messages,
      action: 'overflow',
      tokens: 40_000,
      chars: 160_000,
      before: { chars: 170_000, tokens: 42_000 },
    });
    expect(ended.state).toBe('budget');
    expect(ended.notes[0]).toEqual({
      kind: 'context',
      action: 'overflow',
      before: { chars: 170_000, tokens: 42_000 },
      after: { chars: 160_000, tokens: 40_000 },
      step: 5,
    });
    expect(ended.notes.at(-1)).toMatchObject({ kind: 'end', status: 'budget' });
    expect(ended.context.viewTokens).toBe(40_000);
    expect(ended.context.contextState.version).toBe(9);
  });

  it('a view over the hard limit is stored (and traced) before the summarizer folds it', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact', context: { step: 2 } });
    const contextState = { ...probe.context.contextState, version: 4 };
    const step = probe.contextReady({
      contextState,
      messages,
      action: 'summarize',
      tokens: 30_000,
      chars: 120_000,
      before: { chars: 120_000, tokens: 30_000 },
    });
    expect(step.state).toBe('build.summarize');
    expect(step.context.view?.messages).toEqual(messages);
    expect(step.context.viewTokens).toBe(30_000);
    expect(step.context.contextState.version).toBe(4);
    expect(step.notes).toEqual([
      { kind: 'context', action: 'summarize', before: { chars: 120_000, tokens: 30_000 }, after: { chars: 120_000, tokens: 30_000 }, step: 2 },
    ]);
  });
});

describe('summaryShrank', () => {
  it('a summary only as long as what it folds is not applied; one character shorter is', () => {
    const summarized = (summaryChars: number) =>
      probeHarness(machine, rules, { at: 'build.summarize' }).send({
        type: 'xstate.done.actor.summarizer',
        output: { summary: { text: 'did things', through: 40 }, foldedChars: 900, summaryChars },
      });
    const same = summarized(900);
    expect(same.state).toBe('build.compact');
    expect(same.context.contextState.summary).toBeNull();
    expect(same.context.contextState.summaryFailures).toBe(1);
    const shorter = summarized(899);
    expect(shorter.context.contextState.summary).toEqual({ text: 'did things', through: 40 });
    expect(shorter.context.contextState.summaryFailures).toBe(0);
  });
});

describe('a failed summary is traced with its own cause', () => {
  const failed = (event: { type: string; [key: string]: unknown }) => probeHarness(machine, rules, { at: 'build.summarize', context: { step: 3 } }).send(event);

  it('a summary that did not shrink the view says so', () => {
    const grew = failed({ type: 'xstate.done.actor.summarizer', output: { summary: { text: 'long', through: 40 }, foldedChars: 100, summaryChars: 400 } });
    expect(grew.notes).toEqual([{ kind: 'context', action: 'summary_failed', error: 'the summary did not shrink the view', step: 3 }]);
  });

  it('a summarizer that rejects with something other than an Error is traced with what it rejected with, not as a summary that did not shrink', () => {
    // The bug: any non-Error rejection was traced as "the summary did not shrink the view".
    expect(failed({ type: 'xstate.error.actor.summarizer', error: 'rate limited' }).notes[0]).toMatchObject({
      action: 'summary_failed',
      error: 'rate limited',
    });
    // An Error is traced with its message, as before.
    expect(failed({ type: 'xstate.error.actor.summarizer', error: new Error('timeout') }).notes[0]).toMatchObject({ error: 'timeout' });
  });
});

describe('budgetWarningDue', () => {
  /**
   * The transitions out of `observe` in a run whose model reads a file each turn at 500 prompt tokens, under a
   * 2000-token cap: as the trace writes them (run/record/inspection-trace.ts), with the guard that held.
   */
  async function observeExits() {
    const capped = rulesSchema.parse({ phases: { plan: { enabled: false } }, budgets: { maxSteps: 6, maxTokens: 2000 } });
    const contextManager = fromPromise<ContextOutput, ContextInput>(async ({ input }) => ({
      contextState: input.contextState,
      messages,
      tokens: 10,
      action: 'none',
      before: { chars: 40, tokens: 10 },
      chars: 40,
    }));
    let turn = 0;
    const model = fromPromise<ModelReply, ModelInput>(async () => {
      turn++;
      const call = { id: `call_${turn}_abcdefghijklmnopqrst`, type: 'function' as const, function: { name: 'read_file', arguments: `{"path":"a${turn}.js"}` } };
      return { message: { role: 'assistant', content: null, tool_calls: [call] }, usage: { promptTokens: 500, completionTokens: 10, cachedTokens: 0 } };
    });
    const tools = fromPromise<ToolsOutput, ToolsInput>(async ({ input }) => ({
      results: input.calls.map((call) => ({
        id: call.id,
        name: 'read_file',
        args: {},
        outcome: { content: call.id, ok: true, effect: { kind: 'read', path: call.id } },
        ms: 1,
      })),
      finish: null,
    }));
    const exits: Array<{ to: string; guard: string | null }> = [];
    const actor = createActor(createHarnessMachine(capped).provide({ actors: { contextManager, model, tools } as never }), {
      input: { task: 't', testCmd: 'npm test' },
      inspect: (event: InspectionEvent) => {
        if (event.type !== '@xstate.microstep') return;
        const taken = microstepTransitions(event)[0];
        if (taken?.source.key === 'observe')
          exits.push({ to: stateLabel((event.snapshot as unknown as { value: never }).value), guard: guardName(taken.guard) });
      },
    });
    actor.start();
    const output = await toPromise(actor);
    return { exits, output };
  }

  it('the warning transition is taken only on the turn a warning is due; the trace shows a plain turn start before it', async () => {
    const { exits, output } = await observeExits();
    expect(output.status).toBe('budget');
    // Turns 1 to 3 start plain; after three replies (1500 of 2000 tokens, warnAt 0.75) the fourth starts with the warning.
    expect(exits).toEqual([
      { to: 'build.compact', guard: null },
      { to: 'build.compact', guard: null },
      { to: 'build.compact', guard: null },
      { to: 'build.compact', guard: 'budgetWarningDue' },
    ]);
  });
});

describe('what an action emits', () => {
  it('an action that appends nothing emits no record.append event; one that appends emits the messages once', () => {
    const probe = probeHarness(machine, rules, { at: 'build.compact' });
    // storeView changes the context and writes a trace note, but adds nothing to the record.
    const elided = probe.contextReady({ messages, action: 'elided', tokens: 900 });
    expect(elided.emitted.map((event) => event.type)).toEqual(['harness.note']);
    const before = probe.context.recordLength;
    const replied = probe.reply({ content: 'thinking', calls: [{ name: 'read_file', args: { path: 'a.js' } }] });
    const appends = replied.emitted.filter((event) => event.type === 'record.append');
    expect(appends).toEqual([{ type: 'record.append', messages: [expect.objectContaining({ role: 'assistant', content: 'thinking' })] }]);
    expect(replied.context.recordLength).toBe(before + 1);
  });
});

describe('end states the rules make possible', () => {
  it('an exit rule to stalled keeps the stalled end state when no stall rule can end the run', () => {
    const exitToStalled = rulesSchema.parse({
      stall: { enabled: false },
      phases: { build: { exits: [{ guard: 'always', to: 'stalled', reason: 'build gave up' }] } },
    });
    const probe = probeHarness(createHarnessMachine(exitToStalled), exitToStalled, { at: 'build.think' });
    const ended = probe.reply({ content: 'nothing to do' });
    expect(ended.state).toBe('stalled');
    expect(ended.context.status).toBe('stalled');
    expect(ended.context.reason).toBe('build gave up');
  });

  it('a state the rules add (a budget check under a token cap, the summary, the settle pass) says what it is for, like the others', () => {
    const capped = rulesSchema.parse({ budgets: { maxTokens: 100_000 } });
    const found: Record<string, string> = {};
    const visit = (node: AnyStateNode, path: string) => {
      found[path] = node.description ?? '';
      for (const [key, child] of Object.entries(node.states)) visit(child, path ? `${path}.${key}` : key);
    };
    visit(createHarnessMachine(capped).root, '');
    expect(Object.keys(found)).toEqual(expect.arrayContaining(['build.checkBudget', 'build.summarize', 'verify.settle']));
    for (const [state, text] of Object.entries(found)) expect(text, state || 'harness').toMatch(/^[A-Z].{10,}[.)]$/);
    const build = Object.entries(found).filter(([state]) => state.startsWith('build.'));
    expect(new Set(build.map(([, text]) => text)).size).toBe(build.length);
  });
});
