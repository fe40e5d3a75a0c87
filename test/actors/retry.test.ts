import { getEventListeners } from 'node:events';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
} from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadOpenAI } from '../../actors/model/openai-sdk.js';
import {
  abortableSleep,
  backoffMs,
  isRetryable,
  MAX_RETRY_AFTER_MS,
  MalformedResponseError,
  type RetryPolicy,
  retryAfterMs,
  withRetries,
} from '../../actors/model/retry.js';

// The SDK's error classes count once the SDK is loaded, as it is by an endpoint's first request.
beforeAll(loadOpenAI);

const NOW = Date.parse('2026-11-30T12:00:00Z');
const rateLimited = (headers: Record<string, string>) => new RateLimitError(429, { message: 'slow down' }, 'slow down', new Headers(headers));

describe('retryAfterMs: the three forms a server uses to say how long to wait', () => {
  it('retry-after-ms: milliseconds, taken as given', () => {
    expect(retryAfterMs(rateLimited({ 'retry-after-ms': '1500' }), NOW)).toBe(1500);
    expect(retryAfterMs(rateLimited({ 'retry-after-ms': '0' }), NOW)).toBe(0);
  });

  it('retry-after-ms wins over retry-after when both are sent', () => {
    expect(retryAfterMs(rateLimited({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW)).toBe(250);
  });

  it('retry-after in seconds, fractions included', () => {
    expect(retryAfterMs(rateLimited({ 'retry-after': '3' }), NOW)).toBe(3000);
    expect(retryAfterMs(rateLimited({ 'retry-after': '0.5' }), NOW)).toBe(500);
  });

  it('retry-after as an HTTP date: the time from now until then, never negative', () => {
    expect(retryAfterMs(rateLimited({ 'retry-after': 'Mon, 30 Nov 2026 12:00:42 GMT' }), NOW)).toBe(42_000);
    expect(retryAfterMs(rateLimited({ 'retry-after': 'Mon, 30 Nov 2026 11:59:00 GMT' }), NOW)).toBe(0);
  });

  it('a negative or unreadable retry-after-ms falls back to retry-after', () => {
    expect(retryAfterMs(rateLimited({ 'retry-after-ms': '-5', 'retry-after': '2' }), NOW)).toBe(2000);
    expect(retryAfterMs(rateLimited({ 'retry-after-ms': 'soon', 'retry-after': '2' }), NOW)).toBe(2000);
  });

  it('a negative seconds value means no wait; an unreadable value or no header means the server did not say', () => {
    expect(retryAfterMs(rateLimited({ 'retry-after': '-3' }), NOW)).toBe(0);
    expect(retryAfterMs(rateLimited({ 'retry-after': 'whenever' }), NOW)).toBeNull();
    expect(retryAfterMs(rateLimited({}), NOW)).toBeNull();
    expect(retryAfterMs(new Error('not an API error'), NOW)).toBeNull();
    expect(retryAfterMs(new APIConnectionError({ message: 'reset' }), NOW)).toBeNull();
  });
});

describe('isRetryable', () => {
  it('retries rate limits, server errors, 408 and 409, connection errors, timeouts and malformed bodies', () => {
    expect(isRetryable(rateLimited({}))).toBe(true);
    expect(isRetryable(new InternalServerError(503, {}, 'overloaded', new Headers()))).toBe(true);
    expect(isRetryable(APIError.generate(408, {}, 'timeout', new Headers()))).toBe(true);
    expect(isRetryable(APIError.generate(409, {}, 'conflict', new Headers()))).toBe(true);
    expect(isRetryable(APIError.generate(500, {}, 'boom', new Headers()))).toBe(true);
    expect(isRetryable(new APIConnectionError({ message: 'reset' }))).toBe(true);
    expect(isRetryable(new APIConnectionTimeoutError())).toBe(true);
    expect(isRetryable(new MalformedResponseError('empty body'))).toBe(true);
    expect(isRetryable(new SyntaxError('Unexpected end of JSON input'))).toBe(true);
  });

  it('does not retry what another attempt cannot fix: auth, bad requests, other 4xx, a user abort, plain errors', () => {
    expect(isRetryable(new AuthenticationError(401, {}, 'bad key', new Headers()))).toBe(false);
    expect(isRetryable(new BadRequestError(400, {}, 'bad', new Headers()))).toBe(false);
    expect(isRetryable(APIError.generate(404, {}, 'no such model', new Headers()))).toBe(false);
    expect(isRetryable(APIError.generate(422, {}, 'unprocessable', new Headers()))).toBe(false);
    expect(isRetryable(new APIUserAbortError())).toBe(false);
    expect(isRetryable(new Error('bug'))).toBe(false);
  });

  it('an APIError without a status is not retried; one built with a 5xx status directly is', () => {
    expect(isRetryable(new APIError(undefined, undefined, 'no status', undefined))).toBe(false);
    expect(isRetryable(new APIError(500, {}, 'raw 500', new Headers()))).toBe(true);
    expect(isRetryable(new APIError(502, {}, 'raw 502', new Headers()))).toBe(true);
    expect(isRetryable(new APIError(499, {}, 'raw 499', new Headers()))).toBe(false);
  });

  it('a status on an error that is not from the API client does not make it retryable', () => {
    expect(isRetryable(Object.assign(new Error('fetch failed'), { status: 503 }))).toBe(false);
  });

  it('names a malformed response in messages and traces', () => {
    expect(new MalformedResponseError('cut body').name).toBe('MalformedResponseError');
    expect(String(new MalformedResponseError('cut body'))).toBe('MalformedResponseError: cut body');
  });
});

describe('backoffMs', () => {
  const policy: RetryPolicy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles from the base up to the ceiling, jittered between half and all of it', () => {
    expect([0, 1, 2, 3, 4].map((attempt) => backoffMs(attempt, { ...policy, random: () => 0 }, null))).toEqual([50, 100, 200, 400, 500]);
    expect([0, 1, 2, 3, 4].map((attempt) => backoffMs(attempt, { ...policy, random: () => 0.999_999 }, null)).map(Math.round)).toEqual([
      100, 200, 400, 800, 1000,
    ]);
  });

  it("without a server ask the policy's own ceiling applies, even above ten minutes", () => {
    expect(backoffMs(0, { retries: 1, baseDelayMs: 1_200_000, maxDelayMs: 2_000_000, random: () => 1 }, null)).toBe(1_200_000);
  });

  it('waits at least what the server asked, and no more than ten minutes', () => {
    expect(backoffMs(0, { ...policy, random: () => 0 }, 3000)).toBe(3000);
    expect(backoffMs(3, { ...policy, random: () => 1 }, 10)).toBe(800);
    expect(backoffMs(0, policy, MAX_RETRY_AFTER_MS + 1)).toBe(MAX_RETRY_AFTER_MS);
    expect(MAX_RETRY_AFTER_MS).toBe(600_000);
  });
});

describe('withRetries', () => {
  const failing = (errors: unknown[]) => {
    const attempts: number[] = [];
    return {
      attempts,
      run: async (attempt: number) => {
        attempts.push(attempt);
        if (attempt < errors.length) throw errors[attempt];
        return 'ok';
      },
    };
  };

  it('retries until success, sleeping each backoff and telling onRetry about each failure', async () => {
    const sleeps: number[] = [];
    const seen: Array<[number, number]> = [];
    const call = failing([rateLimited({ 'retry-after': '2' }), new MalformedResponseError('cut')]);
    const result = await withRetries(
      call.run,
      {
        retries: 3,
        baseDelayMs: 100,
        maxDelayMs: 1000,
        random: () => 0,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
      new AbortController().signal,
      (_error, attempt, delay) => seen.push([attempt, delay]),
    );
    expect(result).toBe('ok');
    expect(call.attempts).toEqual([0, 1, 2]);
    expect(sleeps).toEqual([2000, 100]);
    expect(seen).toEqual([
      [0, 2000],
      [1, 100],
    ]);
  });

  it('stops at the retry limit and throws the last error', async () => {
    const last = new InternalServerError(500, {}, 'third', new Headers());
    const call = failing([new InternalServerError(500, {}, 'first', new Headers()), new InternalServerError(500, {}, 'second', new Headers()), last]);
    await expect(withRetries(call.run, { retries: 2, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} }, new AbortController().signal)).rejects.toBe(last);
    expect(call.attempts).toEqual([0, 1, 2]);
  });

  it('throws a non-retryable error at once', async () => {
    const denied = new AuthenticationError(401, {}, 'bad key', new Headers());
    const call = failing([denied]);
    await expect(withRetries(call.run, { retries: 5, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} }, new AbortController().signal)).rejects.toBe(
      denied,
    );
    expect(call.attempts).toEqual([0]);
  });

  it('does not retry once the signal is aborted', async () => {
    const controller = new AbortController();
    const call = failing([rateLimited({}), rateLimited({})]);
    const attempt = async (n: number) => {
      controller.abort();
      return call.run(n);
    };
    await expect(withRetries(attempt, { retries: 5, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} }, controller.signal)).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(call.attempts).toEqual([0]);
  });
});

describe('abortableSleep', () => {
  it('resolves after the delay and leaves no listener on the signal (a long run retries many times)', async () => {
    const controller = new AbortController();
    await expect(abortableSleep(1, controller.signal)).resolves.toBeUndefined();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('leaves no listener behind after an abort either', async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rejects at once with the reason when aborted before or during the wait', async () => {
    const before = new AbortController();
    before.abort(new Error('stopped before'));
    await expect(abortableSleep(60_000, before.signal)).rejects.toThrow('stopped before');
    const during = new AbortController();
    const sleeping = abortableSleep(60_000, during.signal);
    during.abort(new Error('stopped during'));
    await expect(sleeping).rejects.toThrow('stopped during');
  });
});
