import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import { initialContextState } from '../../context/context-state.js';
import { normalizeCalls, replyUpdate } from '../../machines/turn-cycle.js';
import { createHarnessMachine, probeHarness, rulesSchema } from '../../testing/index.js';

// What the machine makes of a model's reply (machines/turn-cycle.ts), and what happens when a run is started
// without one of its actors (machines/actor-contracts.ts).

const rules = rulesSchema.parse({});

describe('tool calls as a broken or scripted model sends them', () => {
  it('an id that is not a string, or has odd characters anywhere, is replaced; a call without a function has an empty name and no arguments', () => {
    const { calls } = normalizeCalls(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 1234567890, type: 'function', function: { name: 'read_file', arguments: '{}' } },
          { id: '$$$$ call_abcdefghijklmnop', type: 'function', function: { name: 'grep', arguments: '{}' } },
          { id: 'call_abcdefghijklmnop\u0000', type: 'function', function: { name: 'grep', arguments: '{}' } },
          { id: 'call_abcdefghijklmnopqrst', type: 'function' },
        ],
      } as never,
      3,
    );
    expect(calls).toEqual([
      { id: 'call_3_0', type: 'function', function: { name: 'read_file', arguments: '{}' } },
      { id: 'call_3_1', type: 'function', function: { name: 'grep', arguments: '{}' } },
      { id: 'call_3_2', type: 'function', function: { name: 'grep', arguments: '{}' } },
      { id: 'call_abcdefghijklmnopqrst', type: 'function', function: { name: '', arguments: '{}' } },
    ]);
  });

  it('a request too short to calibrate on keeps what was learnt; a reply without a ratio keeps the last one', () => {
    const base = probeHarness(createHarnessMachine(rules), rules).context;
    const learnt = { ...initialContextState(4), charsPerToken: 3.5, reportedRatio: 1.2 };
    const reply = (promptTokens: number, requestChars: number) =>
      ({ message: { role: 'assistant', content: 'x' }, usage: { promptTokens, completionTokens: 1, cachedTokens: 0 }, requestChars }) as never;
    const noRatio = replyUpdate({ ...base, viewTokens: 0, overheadTokens: 100, contextState: learnt }, reply(1100, 3000)).context!.contextState!;
    expect(noRatio.reportedRatio).toBe(1.2);
    expect(noRatio.charsPerToken).toBe(3.25);
    const short = replyUpdate({ ...base, viewTokens: 1000, overheadTokens: 100, contextState: learnt }, reply(1100, 100)).context!.contextState!;
    expect(short.charsPerToken).toBe(3.5);
    expect(short.reportedRatio).toBe(1.1);
  });
});

describe('a run started without one of its actors', () => {
  const contextManager = fromPromise(async ({ input }: { input: { contextState: unknown } }) => ({
    contextState: input.contextState,
    messages: [],
    tokens: 10,
    action: 'none',
    before: { chars: 0, tokens: 0 },
    chars: 0,
  }));
  const run = async (actors: Record<string, unknown>) => {
    const actor = createActor(createHarnessMachine(rules).provide({ actors } as never), { input: { task: 't', testCmd: 'npm test' } });
    actor.start();
    return toPromise(actor);
  };
  const message = (name: string) => `ReinError: The harness was started without a "${name}" actor; provide it with machine.provide({ actors: { ${name} } }).`;

  it('fails with a reason that names the missing actor and how to provide it', async () => {
    expect(await run({})).toMatchObject({ status: 'failed', reason: message('contextManager') });
    expect(await run({ contextManager })).toMatchObject({ status: 'failed', reason: message('model') });
    const model = fromPromise(async () => ({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_abcdefghijklmnopqrst', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      },
      usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
    }));
    expect(await run({ contextManager, model })).toMatchObject({ status: 'failed', reason: message('tools') });
  });

  it('a missing summarizer is a failed summary, noted with the same words', async () => {
    let calls = 0;
    const summarizing = fromPromise(async ({ input }: { input: { contextState: unknown } }) => ({
      contextState: input.contextState,
      messages: [],
      tokens: 10,
      action: calls++ === 0 ? 'summarize' : 'overflow',
      before: { chars: 0, tokens: 0 },
      chars: 0,
    }));
    const notes: Array<Record<string, unknown>> = [];
    const actor = createActor(createHarnessMachine(rules).provide({ actors: { contextManager: summarizing } } as never), {
      input: { task: 't', testCmd: 'npm test' },
    });
    actor.on('harness.note', (event) => notes.push(event.note as never));
    actor.start();
    expect(await toPromise(actor)).toMatchObject({ status: 'budget' });
    expect(notes.find((note) => note.action === 'summary_failed')?.error).toBe(
      'The harness was started without a "summarizer" actor; provide it with machine.provide({ actors: { summarizer } }).',
    );
  });
});
