import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../../actors/model/retry.js';
import { collectStream } from '../../actors/model/stream-completion.js';

const chunk = (content: string) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

describe('a streamed reply is capped', () => {
  it('in size: a runaway stream is cut off with a retryable error, and the stream is aborted', async () => {
    const controller = new AbortController();
    async function* endless() {
      for (;;) yield chunk('x'.repeat(1000)) as never;
    }
    const stream = Object.assign(endless(), { controller });
    await expect(collectStream(stream, 10_000, 50_000)).rejects.toBeInstanceOf(MalformedResponseError);
    expect(controller.signal.aborted).toBe(true);
  });

  it('in time: a stream that stops sending is ended after the request timeout', async () => {
    const controller = new AbortController();
    async function* stalled() {
      yield chunk('a') as never;
      await new Promise((_resolve, reject) => controller.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    const error = await collectStream(Object.assign(stalled(), { controller }), 50).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toContain('longer than 50 ms');
  });
});
