/**
 * Which comes first: `done`, the timeout, or the abort signal. The timer and
 * the listener are removed either way.
 *
 * @example await firstOf(commandDone, { timeoutMs: 120_000, signal }) // 'done' | 'timeout' | 'aborted'
 */
export async function firstOf(done: Promise<void>, options: { timeoutMs: number; signal: AbortSignal }): Promise<'done' | 'timeout' | 'aborted'> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'timeout' | 'aborted'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    onAbort = () => resolve('aborted');
    options.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([done.then(() => 'done' as const), stopped]);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort!);
  }
}

/**
 * Whether `promise` settles within `ms`, without leaving the timer behind.
 *
 * @example if (!(await settledWithin(exited, 2_000))) child.kill('SIGKILL');
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
