import type OpenAI from 'openai';
import { MalformedResponseError } from './retry.js';

/** Most characters a streamed reply may bring (content and arguments together) before it is cut off as runaway. */
const MAX_STREAM_CHARS = 4_000_000;
/** Calls a streamed reply may number (indices 0 to this minus one): far beyond any real reply, small enough to hold. */
const MAX_STREAMED_CALLS = 1024;

/**
 * A streamed chat completion put together as the non-streaming one would be:
 * content and each call's id, name and arguments joined by index, the finish
 * reason, and the usage of the last chunk (`stream_options.include_usage`).
 * A stream longer than `maxChars` or than `timeoutMs` in all is a
 * `MalformedResponseError`, retried like a cut body.
 *
 * @example const completion = await collectStream(await client.chat.completions.create({ ...body, stream: true }), 300_000);
 */
export async function collectStream(
  stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk> & { controller?: AbortController },
  timeoutMs: number,
  maxChars = MAX_STREAM_CHARS,
): Promise<OpenAI.Chat.ChatCompletion> {
  let content = '';
  let finishReason: string | null = null;
  let id = '';
  let model = '';
  let usage: OpenAI.CompletionUsage | undefined;
  let chars = 0;
  // By index in a Map, not an array: an index of 2^32 - 2 or "__proto__" from the endpoint is refused, never a hole or a key.
  const calls = new Map<number, { id: string; type: 'function'; function: { name: string; arguments: string } }>();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stream.controller?.abort();
  }, timeoutMs);
  try {
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      // Every chunk repeats the response's id and model.
      if (typeof chunk.id === 'string' && chunk.id) id = chunk.id;
      if (typeof chunk.model === 'string' && chunk.model) model = chunk.model;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') content += delta.content;
      for (const part of delta.tool_calls ?? []) {
        const index = part.index ?? calls.size;
        if (!Number.isInteger(index) || index < 0 || index >= MAX_STREAMED_CALLS) {
          stream.controller?.abort();
          throw new MalformedResponseError(
            `the streamed reply numbered a tool call ${JSON.stringify(index).slice(0, 40)}; indices run from 0 to ${MAX_STREAMED_CALLS - 1}`,
          );
        }
        let call = calls.get(index);
        if (!call) {
          call = { id: '', type: 'function', function: { name: '', arguments: '' } };
          calls.set(index, call);
        }
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += part.function.name;
        if (typeof part.function?.arguments === 'string') call.function.arguments += part.function.arguments;
        chars += (part.function?.arguments?.length ?? 0) + (part.function?.name?.length ?? 0);
      }
      chars += typeof delta.content === 'string' ? delta.content.length : 0;
      if (chars > maxChars) {
        stream.controller?.abort();
        throw new MalformedResponseError(`the streamed reply passed ${maxChars} characters`);
      }
    }
  } catch (error) {
    if (timedOut) throw new MalformedResponseError(`the streamed reply took longer than ${timeoutMs} ms`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const message = {
    role: 'assistant',
    content: content === '' && calls.size > 0 ? null : content,
    refusal: null,
    ...(calls.size > 0 ? { tool_calls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call) } : {}),
  };
  return {
    id,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, finish_reason: (finishReason ?? 'stop') as 'stop', logprobs: null, message: message as OpenAI.Chat.ChatCompletionMessage }],
    ...(usage ? { usage } : {}),
  };
}
