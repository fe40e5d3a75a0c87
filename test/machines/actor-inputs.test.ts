import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import type { ChatMessage } from '../../context/messages.js';
import type { ContextInput, ContextOutput, ModelInput, SummaryInput, SummaryOutput, ToolsInput } from '../../machines/actor-contracts.js';
import type { ModelReply, ToolsOutput } from '../../machines/types.js';
import { createHarnessMachine, rulesSchema, todo } from '../../testing/index.js';

// What the machine hands its actors (machines/phase-state.ts): the model gets the working view the context manager
// built this turn and the step, the summarizer the context state and the todo list, the tool actor the calls after the
// cursor. A run with scripted actors records every input.

const rules = rulesSchema.parse({ phases: { plan: { enabled: false } }, budgets: { maxSteps: 2 } });
const plan = [
  { task: 'read a.js', done: true },
  { task: 'fix the bug', done: false },
];

type Call = { name: string; args: unknown };
const toolCalls = (calls: Call[]) =>
  calls.map((call, index) => ({
    id: `call_${index}_abcdefghijklmnop`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
const usage = { promptTokens: 100, completionTokens: 10, cachedTokens: 0 };

/**
 * Turn 1: the model writes a plan, calls finish (refused: no test ran), then reads a file. Turn 2: the context
 * manager asks for a summary first; the model replies with text only, as OpenAI does, without a `tool_calls` field.
 * The step budget (2) ends the run.
 */
async function recordRun() {
  const seen = { context: [] as ContextInput[], summarizer: [] as SummaryInput[], model: [] as ModelInput[], tools: [] as ToolsInput[] };
  const views: ChatMessage[][] = [];
  const contextManager = fromPromise<ContextOutput, ContextInput>(async ({ input }) => {
    seen.context.push(input);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are rein.' },
      { role: 'user', content: `view ${seen.context.length}` },
    ];
    views.push(messages);
    // The second turn's first pass is over the hard limit; the pass after the summary fits.
    const action = seen.context.length === 2 ? 'summarize' : 'none';
    return { contextState: input.contextState, messages, tokens: 50, action, before: { chars: 200, tokens: 50 }, chars: 200 };
  });
  const summarizer = fromPromise<SummaryOutput, SummaryInput>(async ({ input }) => {
    seen.summarizer.push(input);
    return { summary: { text: 'read a.js', through: 3 }, foldedChars: 1000, summaryChars: 100 };
  });
  const replies: ModelReply[] = [
    {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: toolCalls([
          { name: 'update_todo', args: { items: plan } },
          { name: 'finish', args: { summary: 'done' } },
          { name: 'read_file', args: { path: 'a.js' } },
        ]),
      },
      usage,
    },
    { message: { role: 'assistant', content: 'I think it is fixed.' }, usage },
  ];
  const model = fromPromise<ModelReply, ModelInput>(async ({ input }) => {
    seen.model.push(input);
    return replies[seen.model.length - 1]!;
  });
  const tools = fromPromise<ToolsOutput, ToolsInput>(async ({ input }) => {
    seen.tools.push(input);
    const finishAt = input.calls.findIndex((call) => call.function.name === 'finish');
    const run = finishAt < 0 ? input.calls : input.calls.slice(0, finishAt);
    const results = run.map((call) => {
      const spec =
        call.function.name === 'update_todo'
          ? todo(plan)
          : { name: call.function.name, args: {}, outcome: { content: 'x', ok: true, effect: { kind: 'read', path: 'a.js' } } };
      return { id: call.id, name: spec.name, args: spec.args ?? {}, outcome: spec.outcome, ms: 1 } as ToolsOutput['results'][number];
    });
    return { results, finish: finishAt < 0 ? null : { summary: 'done' } };
  });
  const machine = createHarnessMachine(rules).provide({ actors: { contextManager, summarizer, model, tools } as never });
  const appended: ChatMessage[] = [];
  const actor = createActor(machine, { input: { task: 'fix the bug', testCmd: 'npm test' } });
  actor.on('record.append', (event) => appended.push(...event.messages));
  actor.start();
  const output = await toPromise(actor);
  return { seen, views, appended, output, notices: actor.getSnapshot().context.notices };
}

describe('what the actors are invoked with', () => {
  it('the model gets the view the context manager built that turn, and the number of steps taken so far', async () => {
    const { seen, views, output } = await recordRun();
    expect(output.status).toBe('step_limit');
    expect(seen.model).toHaveLength(2);
    // Turn 1 used the first view; turn 2 the view built after the summary (the third pass of the context manager).
    expect(seen.model.map((input) => input.messages)).toEqual([views[0], views[2]]);
    expect(seen.model.map((input) => input.step)).toEqual([0, 1]);
    for (const input of seen.model) expect(input.maxCompletionTokens).toBeGreaterThan(0);
  });

  it('the summarizer gets the context state and the todo list the model wrote', async () => {
    const { seen } = await recordRun();
    expect(seen.summarizer).toHaveLength(1);
    expect(seen.summarizer[0]!.todo).toEqual(plan);
    expect(seen.summarizer[0]!.contextState).toEqual(seen.context[1]!.contextState);
  });

  it('the tool actor gets the calls after the cursor: after a refused finish, only the calls that follow it', async () => {
    const { seen } = await recordRun();
    const names = (input: ToolsInput) => input.calls.map((call) => call.function.name);
    expect(seen.tools.map(names)).toEqual([['update_todo', 'finish', 'read_file'], ['read_file']]);
    expect(seen.tools.map((input) => input.offset)).toEqual([0, 2]);
    expect(seen.tools.map((input) => [input.phase, input.step, input.allowed])).toEqual([
      ['build', 1, 'all'],
      ['build', 1, 'all'],
    ]);
  });

  it('a reply without a tool_calls field (OpenAI leaves it out) is a reply without tools: it gets the reminder, the reply with calls does not', async () => {
    const { appended, notices } = await recordRun();
    // Turn 2 began by delivering what turn 1 queued: nothing (the refusal is the finish call's result, not a notice).
    expect(appended.filter((message) => message.role === 'user' && String(message.content).startsWith('[harness]'))).toEqual([]);
    expect(appended.at(-1)).toEqual({ role: 'assistant', content: 'I think it is fixed.' });
    // The text-only reply of turn 2 queued the reminder for the next turn (the step budget ended the run first).
    expect(notices).toEqual([rules.messages.noToolCall]);
  });
});
