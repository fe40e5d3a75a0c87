/**
 * Polls `condition` until it holds; throws after `timeoutMs` with what was awaited. For
 * things that happen in another process (a file written, a process gone), where there is no
 * event to await.
 */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
