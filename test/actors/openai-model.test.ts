import { afterEach, describe, expect, it } from 'vitest';
import { type EndpointOptions, openEndpoint } from '../../actors/model/openai-model.js';
import { backoffMs } from '../../actors/model/retry.js';
import { ModelEndpointError } from '../../lib/errors.js';
import { ContextLengthError } from '../../machines/actor-contracts.js';
import { type OpenAIStub, type StubAnswer, startOpenAIStub } from '../../testing/index.js';

const KEY = 'sk-live-abcdefghijklmnopqrstuvwxyz0123';
let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function endpointWith(answers: StubAnswer[], options: Partial<EndpointOptions> = {}) {
  stub = await startOpenAIStub((_request, index) => answers[Math.min(index, answers.length - 1)]!);
  const sleeps: number[] = [];
  const endpoint = openEndpoint({
    baseURL: stub.url,
    apiKey: KEY,
    model: 'm',
    requestTimeoutMs: 2000,
    retry: {
      retries: 4,
      baseDelayMs: 100,
      maxDelayMs: 2000,
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
    ...options,
  });
  const ask = () => endpoint.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], maxTokens: 50 }, new AbortController().signal);
  return { ask, sleeps };
}

/** The stub keeps the whole request body; the key is not one of the fields its type names. */
const cacheKeyOf = (request: { prompt_cache_key?: string }) => request.prompt_cache_key;

const ok: StubAnswer = { content: 'hello', usage: { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 8 } };

describe('the OpenAI-compatible model actor', () => {
  it('records usage, including cached prompt tokens', async () => {
    const { ask } = await endpointWith([ok]);
    const reply = await ask();
    expect(reply.message).toEqual({ role: 'assistant', content: 'hello' });
    expect(reply.usage).toEqual({ promptTokens: 12, completionTokens: 3, cachedTokens: 8 });
    expect(reply.finishReason).toBe('stop');
  });

  it("keeps the provider's finish reason: `length` says max_tokens cut the answer", async () => {
    const { ask } = await endpointWith([{ ...ok, finishReason: 'length' }]);
    expect((await ask()).finishReason).toBe('length');
  });

  it('retries 429 after the Retry-After the server asked for', async () => {
    const { ask, sleeps } = await endpointWith([{ status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after': '3' } }, ok]);
    expect((await ask()).message.content).toBe('hello');
    expect(sleeps).toEqual([3000]);
  });

  it('honours retry-after-ms, the milliseconds form, over the seconds form', async () => {
    const { ask, sleeps } = await endpointWith([
      { status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after-ms': '1250', 'retry-after': '9' } },
      ok,
    ]);
    expect((await ask()).message.content).toBe('hello');
    expect(sleeps).toEqual([1250]);
  });

  it('honours an HTTP-date Retry-After: it waits until that time', async () => {
    // HTTP dates have whole seconds: a date 30 s ahead is 29-30 s away when the header is read (more on a loaded machine, never more than 30).
    const until = new Date(Math.floor(Date.now() / 1000) * 1000 + 30_000).toUTCString();
    const { ask, sleeps } = await endpointWith([{ status: 503, body: '{"error":{"message":"maintenance"}}', headers: { 'retry-after': until } }, ok]);
    expect((await ask()).message.content).toBe('hello');
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(15_000);
    expect(sleeps[0]).toBeLessThanOrEqual(30_000);
  });

  it('retries 5xx and malformed bodies with exponential backoff and jitter', async () => {
    const { ask, sleeps } = await endpointWith([
      { status: 503, body: '{"error":{"message":"overloaded"}}' },
      { status: 200, body: '{"choices": [' },
      { status: 200, body: '{"id":"x","choices":[]}' },
      ok,
    ]);
    expect((await ask()).message.content).toBe('hello');
    expect(sleeps).toEqual([75, 150, 300]);
    expect(stub!.requests).toHaveLength(4);
  });

  it('retries a connection reset', async () => {
    const { ask, sleeps } = await endpointWith([{ reset: true }, ok]);
    expect((await ask()).message.content).toBe('hello');
    // The first backoff (base 100 ms, jitter 0.5 → 75 ms), and the second request is the one that answered.
    expect(sleeps).toEqual([75]);
    expect(stub!.requests).toHaveLength(2);
  });

  it('retries a hung request after the request timeout', async () => {
    // The timeout has to be long enough for the answering request on a loaded CI machine;
    // the hang is what must be cut short, and each retry is one more request seen.
    const { ask, sleeps } = await endpointWith([{ hang: true }, ok], { requestTimeoutMs: 1500 });
    expect((await ask()).message.content).toBe('hello');
    // Normally one timeout and one answer; on a loaded machine the answering request may time out too,
    // and each such retry must still back off on the doubling schedule (75, 150, 300, 600 ms).
    expect(sleeps.length).toBeGreaterThanOrEqual(1);
    expect(sleeps).toEqual([75, 150, 300, 600].slice(0, sleeps.length));
    expect(stub!.requests).toHaveLength(sleeps.length + 1);
  });

  it('gives up after the retries with a ModelEndpointError that never contains the key', async () => {
    const { ask } = await endpointWith([{ status: 500, body: JSON.stringify({ error: { message: `bad key ${KEY}` } }) }]);
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelEndpointError);
    expect(String((error as Error).message)).not.toContain(KEY.slice(8, 30));
    expect(stub!.requests).toHaveLength(5);
  });

  it('does not retry authentication errors', async () => {
    const { ask } = await endpointWith([{ status: 401, body: '{"error":{"message":"Incorrect API key"}}' }]);
    await expect(ask()).rejects.toBeInstanceOf(ModelEndpointError);
    expect(stub!.requests).toHaveLength(1);
  });

  it('turns context_length_exceeded into a ContextLengthError the machine can compact on', async () => {
    const { ask } = await endpointWith([
      { status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } }) },
    ]);
    await expect(ask()).rejects.toBeInstanceOf(ContextLengthError);
    expect(stub!.requests).toHaveLength(1);
  });

  it('reads vLLM\'s older error body ({ "message" } with no "error"): a long prompt is still a ContextLengthError', async () => {
    const { ask } = await endpointWith([
      {
        status: 400,
        body: JSON.stringify({ object: 'error', message: "This model's maximum context length is 8192 tokens.", type: 'BadRequestError', code: 400 }),
      },
    ]);
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContextLengthError);
    expect((error as Error).message).toContain('maximum context length is 8192');
  });

  it('a plain-text error body is shown, not "no body"', async () => {
    const { ask } = await endpointWith([{ status: 400, body: 'model "m" not found' }]);
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelEndpointError);
    expect((error as Error).message).toContain('model "m" not found');
  });

  it('switches to max_completion_tokens when the endpoint refuses max_tokens (reasoning models), and keeps it', async () => {
    stub = await startOpenAIStub((request) =>
      request.max_tokens !== undefined
        ? {
            status: 400,
            body: JSON.stringify({
              error: {
                message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                type: 'invalid_request_error',
                param: 'max_tokens',
                code: 'unsupported_parameter',
              },
            }),
          }
        : ok,
    );
    const endpoint = openEndpoint({
      baseURL: stub.url,
      apiKey: KEY,
      model: 'o-model',
      requestTimeoutMs: 2000,
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const ask = () => endpoint.complete({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 50 }, new AbortController().signal);
    expect((await ask()).message.content).toBe('hello');
    expect((await ask()).message.content).toBe('hello');
    expect(stub.requests.map((request) => [request.max_tokens, request.max_completion_tokens])).toEqual([
      [50, undefined],
      [undefined, 50],
      [undefined, 50],
    ]);
  });

  it('sends a prompt_cache_key that is the same for every request sharing the system prompt, task and tools', async () => {
    const { ask } = await endpointWith([ok]);
    const endpoint = openEndpoint({
      baseURL: stub!.url,
      apiKey: KEY,
      model: 'm',
      requestTimeoutMs: 2000,
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const tools = [{ type: 'function', function: { name: 'run', parameters: {} } }];
    const send = (task: string, more: Array<{ role: 'assistant'; content: string }> = []) =>
      endpoint.complete(
        { messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: task }, ...more], tools, maxTokens: 50 },
        new AbortController().signal,
      );
    await send('fix the parser');
    await send('fix the parser', [{ role: 'assistant', content: 'looking' }]);
    await send('fix the lexer');
    await ask();
    const keys = stub!.requests.map((request) => cacheKeyOf(request));
    expect(keys[0]).toMatch(/^rein-/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(new Set(keys).size).toBe(3);
  });

  it('drops prompt_cache_key for good when the endpoint rejects unknown fields, and still adapts max_tokens', async () => {
    stub = await startOpenAIStub((request) => {
      if (cacheKeyOf(request) !== undefined)
        return {
          status: 400,
          body: JSON.stringify({ error: { message: 'Unrecognized request argument supplied: prompt_cache_key', type: 'invalid_request_error' } }),
        };
      if (request.max_tokens !== undefined)
        return {
          status: 400,
          body: JSON.stringify({
            error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." },
          }),
        };
      return ok;
    });
    const endpoint = openEndpoint({
      baseURL: stub.url,
      apiKey: KEY,
      model: 'strict',
      requestTimeoutMs: 2000,
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const ask = () => endpoint.complete({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 50 }, new AbortController().signal);
    expect((await ask()).message.content).toBe('hello');
    expect((await ask()).message.content).toBe('hello');
    expect(stub.requests.map((request) => [cacheKeyOf(request) === undefined ? 'no key' : 'key', request.max_tokens ?? request.max_completion_tokens])).toEqual(
      [
        ['key', 50],
        ['no key', 50],
        ['no key', 50],
        ['no key', 50],
      ],
    );
    expect(stub.requests.map((request) => request.max_tokens === undefined)).toEqual([false, false, true, true]);
  });

  it("backoff never exceeds its ceiling and honours the server's Retry-After up to ten minutes", () => {
    const policy = { retries: 5, baseDelayMs: 500, maxDelayMs: 8000, random: () => 1 };
    expect([0, 1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, policy, null))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffMs(0, policy, 120_000)).toBe(120_000);
    expect(backoffMs(0, policy, 3_600_000)).toBe(600_000);
  });
});
