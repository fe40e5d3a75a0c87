import type { APIConnectionError } from 'openai';
import { closestName } from '../../lib/did-you-mean.js';
import { stripControl } from '../../lib/terminal-text.js';
import { readCapped } from './body-limits.js';
import { openAIErrors } from './openai-sdk.js';

/** Where a failed request went, for saying what to check. */
interface EndpointWhere {
  baseURL: string;
  model: string;
  apiKey?: string;
  fetch: typeof fetch;
}

/** Bytes of a `/models` answer read when naming the models a server has. */
const MODELS_BODY_BYTES = 1_048_576;
/** Model names listed at most. */
const LISTED_MODELS = 20;

const MODEL_UNKNOWN = /model/i;
const NOT_THERE = /not[ _-]?found|does not exist|doesn't exist|unknown|no such|not available|invalid model|not loaded|try pulling/i;

/**
 * What to check after a request failed in one of the ways a setup goes
 * wrong: nothing listens at the base URL; the path is wrong (a 404 that
 * names no model: the base URL must end where the OpenAI API starts, usually
 * `/v1`); the model name is not one the server has (then the models its
 * `/models` lists, when it answers). Null for other failures.
 *
 * @example await diagnoseEndpointError(error, { baseURL: 'http://localhost:8000', model: 'qwen', fetch })
 */
export async function diagnoseEndpointError(error: unknown, where: EndpointWhere): Promise<string | null> {
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = openAIErrors();
  const base = where.baseURL.replace(/\/+$/, '');
  if (error instanceof APIConnectionError && !(error instanceof APIConnectionTimeoutError)) {
    return `check the base URL (--base-url or OPENAI_BASE_URL, now ${base}) and that a server is running and listening there${causeOf(error)}`;
  }
  if (!(error instanceof APIError) || (error.status !== 404 && error.status !== 400)) return null;
  if (MODEL_UNKNOWN.test(error.message) && NOT_THERE.test(error.message)) return await modelAdvice(where, base);
  if (error.status !== 404) return null;
  return `nothing answers POST ${base}/chat/completions: check that the base URL ends where the OpenAI API starts, usually /v1${pathSuggestion(base)}`;
}

function causeOf(error: APIConnectionError): string {
  const cause = (error as { cause?: { code?: unknown; cause?: { code?: unknown } } }).cause;
  const code = cause?.code ?? cause?.cause?.code;
  return typeof code === 'string' ? ` (${code})` : '';
}

function pathSuggestion(base: string): string {
  if (/\/chat\/completions$/.test(base)) return ` (rein adds /chat/completions itself: try ${base.replace(/\/chat\/completions$/, '')})`;
  if (!/\/v1$/.test(base)) return ` (try ${base}/v1)`;
  return '';
}

async function modelAdvice(where: EndpointWhere, base: string): Promise<string> {
  const listed = await listModels(where, base);
  const check = `check the model name (--model or REIN_MODEL, now "${where.model}")`;
  if (listed === null) return `${check} against the models the server serves (its ${base}/models did not list them)`;
  if (listed.length === 0) return `${check}: the server at ${base} lists no models (is one loaded?)`;
  const near = closestName(where.model, listed);
  const shown = listed.slice(0, LISTED_MODELS).join(', ') + (listed.length > LISTED_MODELS ? `, … (${listed.length} in all)` : '');
  return `${check}: the server at ${base} lists ${shown}${near ? ` (did you mean "${near}"?)` : ''}`;
}

/** The ids a server's `/models` lists, or null when it does not answer with a list. */
async function listModels(where: EndpointWhere, base: string): Promise<string[] | null> {
  try {
    const response = await where.fetch(`${base}/models`, {
      signal: AbortSignal.timeout(5000),
      ...(where.apiKey ? { headers: { authorization: `Bearer ${where.apiKey}` } } : {}),
    });
    const { text, cut } = await readCapped(response.body, MODELS_BODY_BYTES);
    if (!response.ok || cut) return null;
    const data = (JSON.parse(text) as { data?: unknown }).data;
    if (!Array.isArray(data)) return null;
    // Names come from the server: only plain short strings are shown.
    return data
      .map((entry) => (entry as { id?: unknown })?.id)
      .filter((id): id is string => typeof id === 'string' && id.length <= 200 && stripControl(id) === id);
  } catch {
    return null;
  }
}
