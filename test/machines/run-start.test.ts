import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { replyUpdate } from '../../machines/turn-cycle.js';
import { fillTemplate } from '../../machines/update.js';
import { createHarnessMachine, probeHarness, type Rules, rulesSchema } from '../../testing/index.js';

// Where a run starts (machines/initial-context.ts, the root of machines/harness-machine.ts): its phase, its
// clock, its record, what a resumed run brings along.

const rulesWith = (input: unknown): Rules => rulesSchema.parse(input);
const start = (rules: Rules, input: Record<string, unknown> = {}) => {
  const [snapshot, actions] = initialTransition(createHarnessMachine(rules), { task: '  Fix the parser.  ', testCmd: 'npm test', ...input } as never);
  return { snapshot, actions: actions as Array<{ type: string; params?: unknown }> };
};

describe('a run starts', () => {
  it('in plan, with an empty record of its own, nothing spent and nothing warned', () => {
    const rules = rulesWith({ budgets: { maxSeconds: 90, warnAt: 0.5 } });
    const { snapshot } = start(rules);
    expect(snapshot.value).toEqual({ plan: 'compact' });
    expect(snapshot.context).toMatchObject({
      task: '  Fix the parser.  ',
      testCmd: 'npm test',
      model: 'unknown',
      phase: 'plan',
      step: 0,
      overheadTokens: 0,
      elapsedMs: 0,
      timeLimitMs: 90_000,
      timeWarningMs: 45_000,
      status: null,
      summary: '',
      reason: '',
      warned: {},
      notices: [],
      calls: [],
      cursor: 0,
      // The opening system prompt and task are the record's first two messages.
      recordLength: 2,
      // Nothing forces the first compaction.
      forceCompaction: false,
      promptRejections: 0,
    });
    expect(snapshot.context.facts.todo).toEqual([]);
    expect(snapshot.context.price).toEqual({ input: 0, output: 0, cachedInput: 0 });
  });

  it('in build when the rules leave plan out', () => {
    const { snapshot } = start(rulesWith({ phases: { plan: { enabled: false } } }));
    expect(snapshot.value).toEqual({ build: 'compact' });
    expect(snapshot.context.phase).toBe('build');
  });

  it('a resumed run brings its model and price, its todo list, the time used and the tool schemas overhead', () => {
    const rules = rulesWith({ model: { prices: { 'm-1': { input: 2, output: 4, cachedInput: 1 } } } });
    const todo = [{ task: 'fix a', done: true }];
    const { snapshot, actions } = start(rules, { model: 'm-1', todo, elapsedMs: 1234, overheadTokens: 321 });
    expect(snapshot.context).toMatchObject({ model: 'm-1', price: { input: 2, output: 4, cachedInput: 1 }, elapsedMs: 1234, overheadTokens: 321 });
    expect(snapshot.context.facts.todo).toEqual(todo);
    // The record opens with the system prompt and the task, trimmed, with the command and the todo list left behind.
    const opened = actions.find((action) => action.type === 'xstate.emit')?.params as { event: { type: string; messages: unknown[] } };
    expect(opened.event.messages).toEqual([
      { role: 'system', content: rules.systemPrompt },
      {
        role: 'user',
        content:
          'Fix the parser.\n\nVerification command: `npm test`\n\nTodo list left by an earlier session on this workspace (.rein/progress.json):\n[x] fix a',
      },
    ]);
  });

  it('a run that ends says why, from the end state unless an action said more', () => {
    const rules = rulesWith({ budgets: { maxSteps: 1 } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    const end = probe.reply({ content: 'done?' });
    expect(end.state).toBe('step_limit');
    expect(end.context).toMatchObject({ status: 'step_limit', reason: 'The step budget ran out.', view: null });
    expect(end.notes.at(-1)).toMatchObject({ kind: 'end', status: 'step_limit', reason: 'The step budget ran out.', steps: 1, summary: '' });
    // A stall nudged earlier is named only when the run ends stalled.
    const strict = rulesWith({ budgets: { maxSteps: 1 }, stall: { rules: [{ guard: 'noToolCalls', limit: 1 }] } });
    const nudged = probeHarness(createHarnessMachine(strict), strict, { at: 'build.think' }).reply({ content: 'done?' });
    expect(nudged.notes.map((note) => note.kind)).toEqual(['stall', 'end']);
    expect(nudged.notes.at(-1)).toMatchObject({ status: 'step_limit' });
    expect(nudged.notes.at(-1)).not.toHaveProperty('rule');
  });
});

describe('what a reply and a rule text become', () => {
  it('a reply without content is recorded with content null, as the chat API wants', () => {
    const rules = rulesWith({});
    const context = probeHarness(createHarnessMachine(rules), rules).context;
    const update = replyUpdate(context, {
      message: { role: 'assistant', tool_calls: [{ id: 'x', type: 'function', function: { name: 'finish', arguments: '{}' } }] } as never,
      usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
    });
    expect(update.append?.[0]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'x', type: 'function', function: { name: 'finish', arguments: '{}' } }],
    });
  });

  it('placeholders are filled in; unknown ones stay as written', () => {
    expect(fillTemplate('{budget} at {percent}% ({used}/{limit}) {other}', { budget: 'steps', percent: 75, used: 30, limit: 40 })).toBe(
      'steps at 75% (30/40) {other}',
    );
  });
});
