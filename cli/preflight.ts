/**
 * Checks that something answers at the endpoint before a run starts, so an
 * unreachable server is one clear line instead of a minute of retries.
 * Any HTTP answer counts as reachable; only connection failures fail.
 */
export async function checkReachable(baseURL: string, timeoutMs = 5000): Promise<string | null> {
  const url = baseURL.replace(/\/+$/, '') + '/models';
  try {
    await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return null;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message;
    return `cannot reach the model endpoint at ${baseURL} (${detail}): check the base URL (--base-url or OPENAI_BASE_URL) and that a server is running and listening there`;
  }
}
