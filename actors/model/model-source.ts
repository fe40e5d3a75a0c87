import type { AnyActorLogic } from 'xstate';
import type { ChatMessage } from '../../context/messages.js';
import { UsageError } from '../../lib/errors.js';
import type { RetryEvent } from '../../lib/trace/trace-events.js';
import type { ModelReply } from '../../machines/types.js';
import type { CallIdFormat } from '../../rules/call-ids.js';
import type { Rules } from '../../rules/schema.js';
import { extractiveSummary, type SummarizeText } from '../summarizer.js';
import { type ChatEndpoint, createOpenAIModel, type ModelNote, openEndpoint, type ToolCalling } from './openai-model.js';
import { shownTexts, takeReply } from './reply-intake.js';
import { createScriptedModel, type Script } from './scripted-model.js';
import { toolList } from './text-calls/tool-list.js';

/** Where the model comes from: built once the run's tool schemas are known. */
export interface ModelSource {
  name: string;
  /** One line for the start message and the trace, e.g. `openai-compatible endpoint http://…`. */
  description: string;
  /** The endpoint, kept in run.json so `rein resume` finds it again without the environment. */
  baseURL?: string;
  /** `note` writes a line to the run's trace (a retry, for example). */
  createActor(toolSchemas: unknown[], hooks: ModelHooks): AnyActorLogic;
  summarize: SummarizeText;
}

/** What a model source's actor is given: a trace writer, and the run's tool-calling settings. */
interface ModelHooks {
  note(event: RetryEvent | ModelNote): void;
  toolCalling?: ToolCalling;
  recoverToolCalls?: boolean;
  repairArguments?: boolean;
  toolCallIds?: CallIdFormat;
}

interface EndpointFlags {
  model?: string;
  baseURL?: string;
  env: NodeJS.ProcessEnv;
}

/** The endpoint settings from flags and environment, or a one-line usage error saying what is missing. */
export function resolveEndpoint(flags: EndpointFlags): { model: string; baseURL?: string; apiKey?: string } {
  const model = flags.model ?? flags.env.REIN_MODEL;
  const baseURL = flags.baseURL ?? flags.env.OPENAI_BASE_URL;
  const apiKey = flags.env.OPENAI_API_KEY;
  if (!model) throw new UsageError('no model: pass --model NAME or set REIN_MODEL (try `rein demo` for an offline run)');
  if (!baseURL && !apiKey)
    throw new UsageError('no endpoint: set OPENAI_BASE_URL (vLLM, Ollama, LM Studio, a gateway) or OPENAI_API_KEY (OpenAI), or pass --base-url');
  return { model, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
}

/**
 * An OpenAI-compatible model: the model actor and the summarizer share one
 * endpoint with rein's retry rules.
 *
 * @example const source = openAIModelSource(resolveEndpoint({ env: process.env }), rules);
 */
export function openAIModelSource(endpoint: { model: string; baseURL?: string; apiKey?: string }, rules: Rules): ModelSource {
  let note: ModelHooks['note'] = () => undefined;
  const chat: ChatEndpoint = openEndpoint({
    ...endpoint,
    requestTimeoutMs: rules.model.requestTimeoutSeconds * 1000,
    retry: { retries: rules.model.retries, baseDelayMs: 500, maxDelayMs: 20_000 },
    ...(rules.model.temperature !== undefined ? { temperature: rules.model.temperature } : {}),
    maxTokensParam: rules.model.maxTokensParam,
    stream: rules.model.stream,
    streamUsage: rules.model.streamUsage,
    maxResponseBytes: rules.model.maxResponseBytes,
    systemRole: rules.model.systemRole,
    ...(rules.model.reasoningEffort ? { reasoningEffort: rules.model.reasoningEffort } : {}),
    ...(rules.model.extraBody ? { extraBody: rules.model.extraBody } : {}),
    onRetry: (error, attempt, delayMs) => note({ kind: 'retry', error, attempt: attempt + 1, delayMs: Math.round(delayMs) }),
  });
  return {
    name: endpoint.model,
    description: `openai-compatible endpoint ${endpoint.baseURL ?? 'https://api.openai.com/v1'}`,
    ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
    createActor: (schemas, hooks) => {
      note = hooks.note;
      return createOpenAIModel(chat, schemas, {
        toolCalling: hooks.toolCalling ?? rules.model.toolCalling,
        recover: hooks.recoverToolCalls ?? rules.model.recoverToolCalls,
        repair: hooks.repairArguments ?? rules.model.repairArguments,
        callIds: hooks.toolCallIds ?? rules.model.toolCallIds,
        note,
      });
    },
    summarize: async (prompt, transcript, signal) => {
      const reply = await chat.complete(
        {
          messages: [
            { role: 'system', content: prompt },
            { role: 'user', content: transcript },
          ],
          maxTokens: 1024,
        },
        signal,
      );
      return reply.message.content ?? '';
    },
  };
}

/**
 * A scripted model as a model source (the demo, tests, the offline eval suite).
 *
 * @example startRun({ ..., model: scriptedModelSource('demo', [reply(call('finish', { summary: 'done' }))]) })
 */
export function scriptedModelSource(name: string, script: Script): ModelSource {
  return {
    name,
    description: 'built-in scripted model (offline, no API key)',
    createActor: (schemas, hooks) => createScriptedModel(script, { intake: scriptedIntake(schemas, hooks) }).actor,
    summarize: extractiveSummary,
  };
}

/**
 * The reply intake for a scripted model: calls it writes as text are recovered and arguments repaired, as for an
 * endpoint, so rules can be tested against models that answer in those shapes.
 */
export function scriptedIntake(schemas: unknown[], hooks: ModelHooks): (reply: ModelReply, step: number, messages: readonly ChatMessage[]) => ModelReply {
  const tools = toolList(schemas);
  return (wire, step, messages) => {
    const { reply, recovered, repairs } = takeReply(wire, step, {
      tools,
      recover: hooks.recoverToolCalls ?? true,
      repair: hooks.repairArguments ?? true,
      shown: shownTexts(messages),
      ...(hooks.toolCallIds ? { callIds: hooks.toolCallIds } : {}),
    });
    if (recovered) hooks.note({ kind: 'calls_recovered', ...recovered });
    for (const repair of repairs) hooks.note({ kind: 'arguments_repaired', ...repair });
    return reply;
  };
}
