import { didYouMean } from '../lib/did-you-mean.js';
import { UsageError } from '../lib/errors.js';
import { mergeRules, type Plain } from './merge.js';

/** The `model` settings a profile may set: the ones OpenAI-compatible servers disagree on. */
interface ProfileSettings {
  toolCalling?: 'native' | 'prompted' | 'auto';
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  systemRole?: 'system' | 'developer';
  stream?: boolean;
  streamUsage?: boolean;
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high';
  extraBody?: Record<string, unknown>;
  toolCallIds?: 'any' | 'alphanumeric-9';
}

/** Per-server defaults for `model.*`, chosen with `model.profile`; any field set beside it wins. */
interface EndpointProfile {
  name: string;
  /** The server or model family it is for, as the README's table names it. */
  server: string;
  settings: ProfileSettings;
  /** Why these settings, in one line. */
  why: string;
}

/** The profiles, in the order the README lists them. One table: the schema's enum, `rein rules show` and the README read it. */
export const ENDPOINT_PROFILES = [
  {
    name: 'openai',
    server: 'OpenAI (GPT-4o, GPT-4.1)',
    settings: { toolCalling: 'native', maxTokensParam: 'max_completion_tokens', systemRole: 'system' },
    why: 'native tool calls everywhere; max_tokens is deprecated in favour of max_completion_tokens',
  },
  {
    name: 'openai-reasoning',
    server: 'OpenAI reasoning models (o3, o4-mini, GPT-5)',
    settings: { toolCalling: 'native', maxTokensParam: 'max_completion_tokens', systemRole: 'developer', reasoningEffort: 'medium' },
    why: 'they refuse max_tokens and take the system prompt under the developer role',
  },
  {
    name: 'vllm',
    server: 'vLLM (`vllm serve`)',
    settings: { toolCalling: 'auto', maxTokensParam: 'max_tokens', systemRole: 'system' },
    why: 'native with --enable-auto-tool-choice --tool-call-parser …; without them the first 400 on tools switches to prompted',
  },
  {
    name: 'vllm-qwen3',
    server: 'vLLM serving Qwen3',
    settings: { toolCalling: 'auto', maxTokensParam: 'max_tokens', systemRole: 'system', extraBody: { chat_template_kwargs: { enable_thinking: false } } },
    why: "turns Qwen3's thinking off through the chat template, so replies are calls, not long reasoning",
  },
  {
    name: 'ollama',
    server: 'Ollama (`…:11434/v1`)',
    settings: { toolCalling: 'auto', maxTokensParam: 'max_tokens', systemRole: 'system' },
    why: 'models whose template has no tools answer in text; auto reads those calls and then prompts for them',
  },
  {
    name: 'llamacpp',
    server: 'llama.cpp `llama-server`',
    settings: { toolCalling: 'auto', maxTokensParam: 'max_tokens', systemRole: 'system' },
    why: '--jinja gives native calls for templates with tools; without it calls come as text',
  },
  {
    name: 'lmstudio',
    server: 'LM Studio (`…:1234/v1`)',
    settings: { toolCalling: 'auto', maxTokensParam: 'max_tokens', systemRole: 'system' },
    why: 'native for models it knows a tool format for, text for the rest',
  },
  {
    name: 'mistral',
    server: 'Mistral (api.mistral.ai, or vLLM/llama.cpp serving Mistral templates)',
    settings: { toolCalling: 'auto', maxTokensParam: 'max_tokens', systemRole: 'system', toolCallIds: 'alphanumeric-9' },
    why: "Mistral's API and chat templates reject tool-call ids that are not 9 letters and digits; ids rein makes take that form",
  },
  {
    name: 'openrouter',
    server: 'OpenRouter',
    settings: { toolCalling: 'auto', maxTokensParam: 'max_tokens', systemRole: 'system' },
    why: 'the providers behind one model name differ in tool support',
  },
  {
    name: 'streaming-gateway',
    server: 'a gateway that only streams',
    settings: { stream: true, streamUsage: true },
    why: 'asks for server-sent events; usage from stream_options.include_usage (dropped if the gateway refuses it)',
  },
] as const satisfies readonly EndpointProfile[];

type ProfileName = (typeof ENDPOINT_PROFILES)[number]['name'];

export const PROFILE_NAMES = ENDPOINT_PROFILES.map((profile) => profile.name) as [ProfileName, ...ProfileName[]];

/**
 * The merged rules layers with `model.profile`'s settings put beneath them:
 * a field the layers set (in `model`, `extraBody` key by key) wins over the
 * profile's. An unknown profile is a usage error naming the known ones.
 *
 * @example withEndpointProfile({ model: { profile: 'vllm', stream: true } }, 'rein.config.json') // { model: { toolCalling: 'auto', …, stream: true } }
 */
export function withEndpointProfile(rules: Plain, where: string): Plain {
  const model = rules.model;
  if (typeof model !== 'object' || model === null || !('profile' in model) || (model as Plain).profile === undefined) return rules;
  const name = (model as Plain).profile;
  const profile = ENDPOINT_PROFILES.find((entry) => entry.name === name);
  if (!profile) {
    const shown = typeof name === 'string' ? `"${name}"` : JSON.stringify(name);
    throw new UsageError(
      `${where}: model.profile: unknown endpoint profile ${shown}${typeof name === 'string' ? didYouMean(name, PROFILE_NAMES) : ''}; known: ${PROFILE_NAMES.join(', ')}`,
    );
  }
  return mergeRules({ model: profile.settings as Plain }, rules);
}
