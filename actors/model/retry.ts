import { openAIErrors } from './openai-sdk.js';

/** How failed model requests are retried. */
export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Injected for tests; defaults to Math.random. */
  random?: () => number;
  /** Injected for tests; defaults to a real, abortable sleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** A response that was not a usable chat completion (empty, cut or malformed body). */
export class MalformedResponseError extends Error {
  override name = 'MalformedResponseError';
}

/** True for failures worth another attempt: 429, 5xx, connection errors, timeouts, malformed bodies. */
export function isRetryable(error: unknown): boolean {
  const { APIConnectionError, APIError, InternalServerError, RateLimitError } = openAIErrors();
  if (error instanceof RateLimitError || error instanceof InternalServerError || error instanceof APIConnectionError) return true;
  // An APIError without a status (a user abort) is not retried.
  if (error instanceof APIError) return error.status === 408 || error.status === 409 || (error.status ?? 0) >= 500;
  return error instanceof MalformedResponseError || error instanceof SyntaxError;
}

/** Milliseconds the server asked us to wait (`retry-after-ms` or `retry-after`, seconds or a date). */
export function retryAfterMs(error: unknown, now = Date.now()): number | null {
  const { APIError } = openAIErrors();
  if (!(error instanceof APIError) || !error.headers) return null;
  const { headers } = error;
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headers.get('retry-after-ms') !== null) return ms;
  const value = headers.get('retry-after');
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The longest `Retry-After` honoured; the run's time budget still aborts the wait sooner. */
export const MAX_RETRY_AFTER_MS = 600_000;

/** Exponential backoff with full jitter, never below what the server asked for (up to ten minutes). */
export function backoffMs(attempt: number, policy: RetryPolicy, serverAskedMs: number | null): number {
  const random = policy.random ?? Math.random;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = ceiling / 2 + random() * (ceiling / 2);
  return serverAskedMs === null ? jittered : Math.min(Math.max(serverAskedMs, jittered), MAX_RETRY_AFTER_MS);
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, a non-retryable error occurs, or the
 * retries are spent. `onRetry` sees each failure (for the trace).
 *
 * @example await withRetries((n) => client.chat.completions.create(body), policy, signal);
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy,
  signal: AbortSignal,
  onRetry?: (error: unknown, attemptNumber: number, delayMs: number) => void,
): Promise<T> {
  const sleep = policy.sleep ?? abortableSleep;
  for (let attemptNumber = 0; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (signal.aborted || attemptNumber >= policy.retries || !isRetryable(error)) throw error;
      const delay = backoffMs(attemptNumber, policy, retryAfterMs(error));
      onRetry?.(error, attemptNumber, delay);
      await sleep(delay, signal);
    }
  }
}
