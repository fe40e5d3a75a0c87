import type OpenAI from 'openai';
import { fromPromise } from 'xstate';
import type { ChatMessage } from '../../context/messages.js';
import { totalChars } from '../../context/messages.js';
import { ModelEndpointError, ReinError } from '../../lib/errors.js';
import { redact } from '../../lib/secrets/redact.js';
import { shortHash } from '../../lib/short-hash.js';
import { ContextLengthError, type ModelInput } from '../../machines/actor-contracts.js';
import type { ModelReply } from '../../machines/types.js';
import type { CallIdFormat } from '../../rules/call-ids.js';
import { boundedErrorText } from './body-limits.js';
import { ForeignBodyError } from './content-type.js';
import { diagnoseEndpointError } from './endpoint-diagnosis.js';
import { normalizingErrorFetch } from './error-body.js';
import { loadOpenAI, openAIErrors } from './openai-sdk.js';
import { promptedMessages, toolPrompt } from './prompted-tools.js';
import { type IntakeNote, shownTexts, takeReply, type WireReply } from './reply-intake.js';
import { MalformedResponseError, type RetryPolicy, withRetries } from './retry.js';
import { collectStream } from './stream-completion.js';
import { toolList } from './text-calls/tool-list.js';

type MaxTokensParam = 'max_tokens' | 'max_completion_tokens';

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
  /** Ask for a streamed reply (some gateways only stream); usage comes from `stream_options.include_usage`. */
  stream?: boolean;
  /** With `stream`: send `stream_options.include_usage` (default true; dropped for good when the endpoint refuses it). */
  streamUsage?: boolean;
  /** `reasoning_effort` for reasoning models. */
  reasoningEffort?: string;
  /** The role the system prompt is sent with: `developer` for OpenAI's reasoning models. */
  systemRole?: 'system' | 'developer';
  /** More body fields for this server (`chat_template_kwargs`, `top_k`, …); rein's own fields win. */
  extraBody?: Record<string, unknown>;
  /** Bytes a reply body may have, streamed or not (default 16 MiB); past it the request fails unread beyond it. */
  maxResponseBytes?: number;
  /** Called on every retried failure, with the key already redacted. */
  onRetry?: (message: string, attempt: number, delayMs: number) => void;
  /** A custom fetch (tests). */
  fetch?: typeof fetch;
}

/** A chat-completions client bound to one endpoint, with rein's retry and error rules. */
export interface ChatEndpoint {
  complete(body: { messages: readonly ChatMessage[]; tools?: unknown[]; maxTokens: number }, signal: AbortSignal): Promise<WireReply>;
}

/** The endpoint answered a request with `tools` by a 400 about tools: it has no tool calling (or none enabled). */
class ToolsRejectedError extends ReinError {}

/** The default of `model.maxResponseBytes`: far above any chat reply, far below what would strain memory. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

const TOOLS_REJECTED = /\btools?\b|tool_choice|tool[ _-]?call|function[ _-]?call/i;

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
  const baseFetch = options.fetch ?? fetch;
  // The client (and the SDK) comes with the first request.
  let client: Promise<OpenAI> | null = null;
  const connect = () =>
    (client ??= loadOpenAI().then(
      ({ default: OpenAI }) =>
        new OpenAI({
          baseURL: options.baseURL,
          apiKey: options.apiKey ?? 'not-needed',
          maxRetries: 0,
          timeout: options.requestTimeoutMs,
          fetch: normalizingErrorFetch(baseFetch, options.maxResponseBytes ?? MAX_RESPONSE_BYTES),
        }),
    ));
  const secrets = [options.apiKey];
  // Which name the completion limit goes by; switched for good the first time the endpoint asks for the other one.
  let maxTokensParam = options.maxTokensParam ?? 'max_tokens';
  let sendCacheKey = options.promptCacheKey ?? true;
  let sendStreamUsage = options.streamUsage ?? true;
  const cacheKey = memoizedCacheKey();
  // An endpoint that rejects one of rein's choices says which: the request is adapted and sent again, and the choice kept.
  const adapt = (error: unknown): boolean => {
    const other = otherMaxTokensParam(error, maxTokensParam);
    if (other) maxTokensParam = other;
    else if (sendCacheKey && rejectsField(error, 'prompt_cache_key')) sendCacheKey = false;
    else if (options.stream && sendStreamUsage && rejectsField(error, 'stream_options')) sendStreamUsage = false;
    else return false;
    return true;
  };
  return {
    async complete(body, signal) {
      const started = Date.now();
      const request = () =>
        ({
          ...options.extraBody,
          model: options.model,
          messages: withSystemRole(body.messages, options.systemRole) as OpenAI.Chat.ChatCompletionMessageParam[],
          ...(options.reasoningEffort ? { reasoning_effort: options.reasoningEffort } : {}),
          ...(body.tools && body.tools.length > 0 ? { tools: body.tools as OpenAI.Chat.ChatCompletionTool[] } : {}),
          [maxTokensParam]: body.maxTokens,
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(sendCacheKey ? { prompt_cache_key: cacheKey(body.messages, body.tools) } : {}),
        }) as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
      const attempt = async () => {
        const sdk = await connect();
        for (let adapted = 0; ; adapted++) {
          try {
            if (!options.stream) return checkShape(await sdk.chat.completions.create(request(), { signal }));
            const streamed = await sdk.chat.completions.create(
              { ...request(), stream: true, ...(sendStreamUsage ? { stream_options: { include_usage: true } } : {}) },
              { signal },
            );
            return checkShape(await collectStream(streamed, options.requestTimeoutMs));
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
        const where = {
          baseURL: options.baseURL ?? OPENAI_BASE_URL,
          model: options.model,
          fetch: baseFetch,
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        };
        const advice = signal.aborted ? null : await diagnoseEndpointError(error, where);
        throw classify(error, secrets, signal, Boolean(body.tools && body.tools.length > 0), advice);
      }
    },
  };
}

export type ToolCalling = 'native' | 'prompted' | 'auto';

interface ModelActorOptions {
  toolCalling?: ToolCalling;
  /** Run calls written as text (default true). */
  recover?: boolean;
  /** Repair bent arguments (default true). */
  repair?: boolean;
  /** The ids the endpoint accepts back (`model.toolCallIds`). */
  callIds?: CallIdFormat;
  /** A trace line: a recovery, a repair, the switch to prompted tool calling. */
  note?: (note: ModelNote) => void;
}

export type ModelNote =
  | ({ kind: 'calls_recovered' } & Extract<IntakeNote, { shapes: unknown }>)
  | ({ kind: 'arguments_repaired' } & Extract<IntakeNote, { repair: unknown }>)
  | { kind: 'tool_calling'; step: number; mode: 'prompted'; from: 'native'; why: string };

/** Replies in a row with calls only in the text after which `auto` switches to prompted tool calling. */
const TEXT_REPLIES_BEFORE_PROMPTED = 2;

/**
 * The model actor: one chat completion with the run's fixed tool schemas,
 * sent natively or described in the system prompt (`toolCalling`), the reply
 * taken in by the intake (text calls recovered, arguments repaired, each traced).
 *
 * @example createOpenAIModel(endpoint, schemas, { toolCalling: 'auto', note: (line) => trace.log(line.kind, line) })
 */
export function createOpenAIModel(endpoint: ChatEndpoint, toolSchemas: unknown[], options: ModelActorOptions = {}) {
  const tools = toolList(toolSchemas);
  const prompt = toolPrompt(toolSchemas);
  let mode: 'native' | 'prompted' = options.toolCalling === 'prompted' ? 'prompted' : 'native';
  let textReplies = 0;
  // Once the endpoint has sent native calls, a model that writes bare JSON or a Python list is writing data, not calls.
  let nativeSeen = false;
  const note = options.note ?? (() => undefined);
  const switchToPrompted = (step: number, why: string) => {
    mode = 'prompted';
    note({ kind: 'tool_calling', step, mode: 'prompted', from: 'native', why });
  };
  const ask = (input: ModelInput, signal: AbortSignal) =>
    mode === 'prompted'
      ? endpoint.complete({ messages: promptedMessages(input.messages, prompt), maxTokens: input.maxCompletionTokens }, signal)
      : endpoint.complete({ messages: input.messages, tools: toolSchemas, maxTokens: input.maxCompletionTokens }, signal);
  return fromPromise<ModelReply, ModelInput>(async ({ input, signal }) => {
    const step = input.step + 1;
    let wire: WireReply;
    try {
      wire = await ask(input, signal);
    } catch (error) {
      if (!(error instanceof ToolsRejectedError) || options.toolCalling !== 'auto' || mode !== 'native') throw error;
      switchToPrompted(step, `the endpoint rejected \`tools\`: ${error.message.slice(0, 300)}`);
      wire = await ask(input, signal);
    }
    if ((wire.message.tool_calls ?? []).length > 0) nativeSeen = true;
    const { reply, recovered, repairs } = takeReply(wire, step, {
      tools,
      recover: options.recover ?? true,
      repair: options.repair ?? true,
      shown: shownTexts(input.messages),
      markedOnly: nativeSeen && mode === 'native',
      ...(options.callIds ? { callIds: options.callIds } : {}),
    });
    if (recovered) note({ kind: 'calls_recovered', ...recovered });
    for (const repair of repairs) note({ kind: 'arguments_repaired', ...repair });
    textReplies = reply.recovered && mode === 'native' ? textReplies + 1 : 0;
    if (options.toolCalling === 'auto' && mode === 'native' && textReplies >= TEXT_REPLIES_BEFORE_PROMPTED)
      switchToPrompted(step, `${textReplies} replies in a row wrote their calls as text instead of tool_calls`);
    return reply;
  });
}

/** The completion-limit parameter a 400 asks for instead of the one sent (reasoning models refuse `max_tokens`), or null. */
function otherMaxTokensParam(error: unknown, sent: MaxTokensParam): MaxTokensParam | null {
  const { APIError } = openAIErrors();
  if (!(error instanceof APIError) || error.status !== 400) return null;
  const other: MaxTokensParam = sent === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
  return error.message.includes(sent) && error.message.includes(other) ? other : null;
}

/** True when a 400 names `field` as the problem (an endpoint that refuses fields it does not know). */
function rejectsField(error: unknown, field: string): boolean {
  const { APIError } = openAIErrors();
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

/** The reply as sent; the intake makes its calls and arguments whole (and says how). */
function toReply(response: OpenAI.Chat.ChatCompletion, requestChars: number, ms: number): WireReply {
  const raw = response.choices[0]!.message;
  const message: WireReply['message'] = { role: 'assistant', content: contentText(raw.content) };
  const calls = (Array.isArray(raw.tool_calls) ? raw.tool_calls : []).filter((call) => call && (call.type === 'function' || 'function' in call));
  if (calls.length > 0) message.tool_calls = calls as NonNullable<WireReply['message']['tool_calls']>;
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
    // Which response and which model answered (a router or an alias may differ from the model asked for).
    ...(typeof response.id === 'string' && response.id ? { responseId: response.id.slice(0, 200) } : {}),
    ...(typeof response.model === 'string' && response.model ? { responseModel: response.model.slice(0, 200) } : {}),
  };
}

/** The messages with the system prompt sent under the role the model wants. */
function withSystemRole(messages: readonly ChatMessage[], role: 'system' | 'developer' | undefined): readonly unknown[] {
  if (role !== 'developer') return messages;
  return messages.map((message) => (message.role === 'system' ? { role: 'developer', content: message.content } : message));
}

/** Content as text: a string, or the text parts of a content array (some gateways send `[{ type: 'text', text }]`). */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts = content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).filter(Boolean);
  return parts.length > 0 ? parts.join('') : null;
}

/** One line about a failure, never longer than a person reads (an endpoint's 10 MB error message included). */
function describe(error: unknown): string {
  const { APIError } = openAIErrors();
  if (error instanceof APIError) return boundedErrorText(`${error.constructor.name} ${error.status ?? ''}: ${error.message}`.trim());
  return boundedErrorText(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

function classify(error: unknown, secrets: (string | undefined)[], signal: AbortSignal, sentTools: boolean, advice: string | null): Error {
  const { APIError } = openAIErrors();
  if (signal.aborted) return error instanceof Error ? error : new Error(String(error));
  const text = redact(describe(error), secrets);
  if (sentTools && error instanceof APIError && error.status === 400 && TOOLS_REJECTED.test(error.message)) return new ToolsRejectedError(text);
  // Not the model API at all: its own words say what came back and what to check.
  if (error instanceof ForeignBodyError) return new ModelEndpointError(`model endpoint failed: ${redact(error.message, secrets)}`);
  if (
    error instanceof APIError &&
    (error.status === 400 || error.status === 413) &&
    (CONTEXT_LENGTH.test(error.message) || (error as { code?: unknown }).code === 'context_length_exceeded')
  ) {
    return new ContextLengthError(text);
  }
  return new ModelEndpointError(`model endpoint failed: ${text}${advice ? `; ${redact(advice, secrets)}` : ''}`);
}
