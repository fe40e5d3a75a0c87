// Retries with exponential backoff for calls to the upstream inventory service.

const defaultSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delay before retry number `attempt` (1, 2, 3, …): base, 2·base, 4·base, … up to `cap` milliseconds. */
export function backoff(attempt, { base = 100, cap = 10_000 } = {}) {
  return Math.min(cap, base * 2 ** attempt);
}

/** Calls `fn` up to `attempts` times in all, sleeping between tries; rethrows the last error. */
export async function retry(fn, { attempts = 3, sleep = defaultSleep, ...delays } = {}) {
  let lastError;
  for (let attempt = 1; attempt < attempts; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      lastError = error;
      await sleep(backoff(attempt, delays));
    }
  }
  throw lastError;
}
