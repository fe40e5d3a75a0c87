import { createOpenAIModel, openEndpoint, type ChatEndpoint } from '../actors/openai-model.js';
import { createScriptedModel, type Script } from '../actors/scripted-model.js';
import { extractiveSummary } from '../actors/summarizer.js';
import { UsageError } from '../lib/errors.js';
import type { Rules } from '../rules/schema.js';
import type { ModelSource } from '../run/session.js';

export interface EndpointFlags {
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
  if (!baseURL && !apiKey) throw new UsageError('no endpoint: set OPENAI_BASE_URL (vLLM, Ollama, LM Studio, a gateway) or OPENAI_API_KEY (OpenAI), or pass --base-url');
  return { model, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
}

/**
 * An OpenAI-compatible model for `rein run`: the model actor and the
 * summarizer share one endpoint with rein's retry rules.
 *
 * @example const source = openAIModelSource(resolveEndpoint({ env: process.env }), rules);
 */
export function openAIModelSource(endpoint: { model: string; baseURL?: string; apiKey?: string }, rules: Rules): ModelSource {
  let note: (kind: string, data: Record<string, unknown>) => void = () => undefined;
  const chat: ChatEndpoint = openEndpoint({
    ...endpoint,
    requestTimeoutMs: rules.model.requestTimeoutSeconds * 1000,
    retry: { retries: rules.model.retries, baseDelayMs: 500, maxDelayMs: 20_000 },
    ...(rules.model.temperature !== undefined ? { temperature: rules.model.temperature } : {}),
    maxTokensParam: rules.model.maxTokensParam,
    onRetry: (error, attempt, delayMs) => note('retry', { error, attempt: attempt + 1, delayMs: Math.round(delayMs) }),
  });
  return {
    name: endpoint.model,
    description: `openai-compatible endpoint ${endpoint.baseURL ?? 'https://api.openai.com/v1'}`,
    ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
    createActor: (schemas, hooks) => { note = hooks.note; return createOpenAIModel(chat, schemas); },
    summarize: async (prompt, transcript, signal) => {
      const reply = await chat.complete({ messages: [{ role: 'system', content: prompt }, { role: 'user', content: transcript }], maxTokens: 1024 }, signal);
      return reply.message.content ?? '';
    },
  };
}

/** A scripted model as a model source (the demo, tests, the offline eval suite). */
export function scriptedModelSource(name: string, script: Script): ModelSource {
  return {
    name,
    description: 'built-in scripted model (offline, no API key)',
    createActor: () => createScriptedModel(script).actor,
    summarize: extractiveSummary,
  };
}
