import OpenAI, { APIError } from 'openai';
import { fromPromise } from 'xstate';
import type { AssistantMessage, ChatMessage } from '../context/messages.js';
import { totalChars } from '../context/messages.js';
import { ModelEndpointError } from '../lib/errors.js';
import { redact } from '../lib/redact.js';
import { shortHash } from '../lib/short-hash.js';
import { ContextLengthError, type ModelInput } from '../machines/actor-contracts.js';
import type { ModelReply } from '../machines/types.js';
import { normalizingErrorFetch } from './error-body.js';
import { MalformedResponseError, type RetryPolicy, withRetries } from './retry.js';

export type MaxTokensParam = 'max_tokens' | 'max_completion_tokens';

/** Where and how to reach an OpenAI-compatible endpoint. */
export interface EndpointOptions {
  baseURL?: string;
  apiKey?: string;
  model: string;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  temperature?: number;
  /** `max_tokens` works with vLLM, Ollama, LM Studio and most of OpenAI; reasoning models want `max_completion_tokens`. */
  maxTokensParam?: MaxTokensParam;
  /**
   * Send `prompt_cache_key`, a hash of the system prompt, the task and the tool schemas, so the provider routes a
   * run's requests (which share that prefix) to the same prompt cache. On by default; dropped for good the first
   * time the endpoint rejects the field.
   */
  promptCacheKey?: boolean;
  /** Called on every retried failure, with the key already redacted. */
  onRetry?: (message: string, attempt: number, delayMs: number) => void;
  /** A custom fetch (tests). */
  fetch?: typeof fetch;
}

/** A chat-completions client bound to one endpoint, with rein's retry and error rules. */
export interface ChatEndpoint {
  complete(body: { messages: readonly ChatMessage[]; tools?: unknown[]; maxTokens: number }, signal: AbortSignal): Promise<ModelReply>;
}

const CONTEXT_LENGTH = /context[_ ]length|maximum context|too many tokens|prompt is too long|context window/i;

/**
 * Opens an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio).
 * Retries 429 (honouring Retry-After), 5xx, connection errors, timeouts and
 * malformed bodies with exponential backoff and jitter; a prompt that is too
 * long becomes a `ContextLengthError` so the machine can compact and retry.
 *
 * @example const endpoint = openEndpoint({ model: 'gpt-4o-mini', requestTimeoutMs: 300_000, retry: { retries: 4, baseDelayMs: 500, maxDelayMs: 20_000 } });
 */
export function openEndpoint(options: EndpointOptions): ChatEndpoint {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? 'not-needed',
    maxRetries: 0,
    timeout: options.requestTimeoutMs,
    fetch: normalizingErrorFetch(options.fetch ?? fetch),
  });
  const secrets = [options.apiKey];
  // Which name the completion limit goes by; switched for good the first time the endpoint asks for the other one.
  let maxTokensParam = options.maxTokensParam ?? 'max_tokens';
  let sendCacheKey = options.promptCacheKey ?? true;
  const cacheKey = memoizedCacheKey();
  // An endpoint that rejects one of rein's choices says which: the request is adapted and sent again, and the choice kept.
  const adapt = (error: unknown): boolean => {
    const other = otherMaxTokensParam(error, maxTokensParam);
    if (other) maxTokensParam = other;
    else if (sendCacheKey && rejectsField(error, 'prompt_cache_key')) sendCacheKey = false;
    else return false;
    return true;
  };
  return {
    async complete(body, signal) {
      const started = Date.now();
      const request = () =>
        ({
          model: options.model,
          messages: body.messages as OpenAI.Chat.ChatCompletionMessageParam[],
          ...(body.tools && body.tools.length > 0 ? { tools: body.tools as OpenAI.Chat.ChatCompletionTool[] } : {}),
          [maxTokensParam]: body.maxTokens,
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(sendCacheKey ? { prompt_cache_key: cacheKey(body.messages, body.tools) } : {}),
        }) as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
      const attempt = async () => {
        for (let adapted = 0; ; adapted++) {
          try {
            return checkShape(await client.chat.completions.create(request(), { signal }));
          } catch (error) {
            if (adapted >= 2 || !adapt(error)) throw error;
          }
        }
      };
      try {
        const response = await withRetries(attempt, options.retry, signal, (error, attempt, delay) =>
          options.onRetry?.(redact(describe(error), secrets), attempt, delay),
        );
        return toReply(response, totalChars(body.messages), Date.now() - started);
      } catch (error) {
        throw classify(error, secrets, signal);
      }
    },
  };
}

/** The model actor: one chat completion with the run's fixed tool schemas. */
export function createOpenAIModel(endpoint: ChatEndpoint, toolSchemas: unknown[]) {
  return fromPromise<ModelReply, ModelInput>(({ input, signal }) =>
    endpoint.complete({ messages: input.messages, tools: toolSchemas, maxTokens: input.maxCompletionTokens }, signal),
  );
}

/** The completion-limit parameter a 400 asks for instead of the one sent (reasoning models refuse `max_tokens`), or null. */
function otherMaxTokensParam(error: unknown, sent: MaxTokensParam): MaxTokensParam | null {
  if (!(error instanceof APIError) || error.status !== 400) return null;
  const other: MaxTokensParam = sent === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
  return error.message.includes(sent) && error.message.includes(other) ? other : null;
}

/** True when a 400 names `field` as the problem (an endpoint that refuses fields it does not know). */
function rejectsField(error: unknown, field: string): boolean {
  return error instanceof APIError && error.status === 400 && (error.message.includes(field) || (error as { param?: unknown }).param === field);
}

/**
 * The prompt cache key of a request: the same for every request that starts with the same system prompt, task
 * and tool schemas (all of a run's, and a resumed run's), computed once while those stay the same objects.
 */
function memoizedCacheKey(): (messages: readonly ChatMessage[], tools: unknown[] | undefined) => string {
  let last: { system: unknown; task: unknown; tools: unknown; key: string } | null = null;
  return (messages, tools) => {
    const [system, task] = messages;
    if (last && last.system === system && last.task === task && last.tools === tools) return last.key;
    const key = `rein-${shortHash(JSON.stringify([system ?? null, task ?? null, tools ?? []]))}`;
    last = { system, task, tools, key };
    return key;
  };
}

function checkShape(response: OpenAI.Chat.ChatCompletion): OpenAI.Chat.ChatCompletion {
  const message = response?.choices?.[0]?.message;
  if (!message || typeof message !== 'object') throw new MalformedResponseError('the response has no choices[0].message');
  return response;
}

function toReply(response: OpenAI.Chat.ChatCompletion, requestChars: number, ms: number): ModelReply {
  const raw = response.choices[0]!.message;
  const message: AssistantMessage = { role: 'assistant', content: typeof raw.content === 'string' ? raw.content : null };
  const calls = (raw.tool_calls ?? []).filter((call) => call.type === 'function' || 'function' in call);
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } }).function ?? {};
      return {
        id: String(call.id ?? ''),
        type: 'function',
        function: { name: String(fn.name ?? ''), arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}) },
      };
    });
  }
  const usage = response.usage;
  const finishReason = response.choices[0]!.finish_reason;
  return {
    message,
    usage: {
      promptTokens: usage?.prompt_tokens ?? 0,
      completionTokens: usage?.completion_tokens ?? 0,
      cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    },
    requestChars,
    ms,
    // The provider's own word on why it stopped (`length` says max_tokens cut the answer): kept in the trace and the spans.
    ...(typeof finishReason === 'string' && finishReason ? { finishReason } : {}),
  };
}

function describe(error: unknown): string {
  if (error instanceof APIError) return `${error.constructor.name} ${error.status ?? ''}: ${error.message}`.trim();
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function classify(error: unknown, secrets: (string | undefined)[], signal: AbortSignal): Error {
  if (signal.aborted) return error instanceof Error ? error : new Error(String(error));
  const text = redact(describe(error), secrets);
  if (
    error instanceof APIError &&
    (error.status === 400 || error.status === 413) &&
    (CONTEXT_LENGTH.test(error.message) || (error as { code?: unknown }).code === 'context_length_exceeded')
  ) {
    return new ContextLengthError(text);
  }
  return new ModelEndpointError(`model endpoint failed: ${text}`);
}
