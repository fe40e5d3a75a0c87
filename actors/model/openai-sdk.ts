import type * as OpenAISdk from 'openai';

// The openai SDK is some 500 modules (~100 ms, ~12 MB): loaded on a run's first request to an endpoint, never by
// a scripted run or `rein demo`. Only its types are imported statically.
let loaded: typeof OpenAISdk | null = null;

/** The SDK, imported on first use. */
export async function loadOpenAI(): Promise<typeof OpenAISdk> {
  loaded ??= await import('openai');
  return loaded;
}

/** A class nothing is an instance of: before the SDK is loaded, no error can be one of its classes. */
class NotLoaded {}

/**
 * The SDK's error classes for `instanceof`, once it is loaded; before that, classes no value belongs to (an SDK
 * error only exists after the SDK made a request).
 */
export function openAIErrors(): Pick<
  typeof OpenAISdk,
  'APIError' | 'APIConnectionError' | 'APIConnectionTimeoutError' | 'InternalServerError' | 'RateLimitError'
> {
  if (loaded) return loaded;
  const none = NotLoaded as never;
  return { APIError: none, APIConnectionError: none, APIConnectionTimeoutError: none, InternalServerError: none, RateLimitError: none };
}
