import { describe, expect, it } from 'vitest';
import { loadOpenAI, openAIErrors } from '../../actors/model/openai-sdk.js';
import { isRetryable, MalformedResponseError, retryAfterMs } from '../../actors/model/retry.js';

// Its own file: the SDK is not loaded until the last test here loads it (vitest gives each file its own modules).
describe('the openai SDK, loaded on first use', () => {
  it('before it is loaded, no value is one of its errors, and retries still judge rein’s own', () => {
    const errors = openAIErrors();
    for (const name of ['APIError', 'APIConnectionError', 'InternalServerError', 'RateLimitError'] as const) {
      expect({} instanceof errors[name]).toBe(false);
      expect(new Error('x') instanceof errors[name]).toBe(false);
    }
    expect(isRetryable(new MalformedResponseError('empty body'))).toBe(true);
    expect(isRetryable(new SyntaxError('cut JSON'))).toBe(true);
    expect(isRetryable(new Error('other'))).toBe(false);
    expect(retryAfterMs(new Error('no headers'))).toBeNull();
  });

  it('once loaded, gives the SDK itself and its own error classes', async () => {
    const sdk = await loadOpenAI();
    const direct = await import('openai');
    expect(sdk.APIError).toBe(direct.APIError);
    expect(await loadOpenAI()).toBe(sdk);
    const errors = openAIErrors();
    expect(errors.APIError).toBe(direct.APIError);
    expect(errors.RateLimitError).toBe(direct.RateLimitError);
    expect(errors.InternalServerError).toBe(direct.InternalServerError);
    expect(errors.APIConnectionError).toBe(direct.APIConnectionError);
    expect(isRetryable(new direct.RateLimitError(429, { message: 'slow down' }, 'slow down', new Headers()))).toBe(true);
  });
});
