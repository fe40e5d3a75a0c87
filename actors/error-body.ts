/**
 * A fetch that rewrites error bodies the openai SDK cannot read into the
 * `{ "error": { "message" } }` shape it can: vLLM's older
 * `{ "object": "error", "message": … }`, and plain-text bodies. Without it
 * the SDK reports "400 status code (no body)" and a prompt that is too long
 * cannot be told from any other bad request.
 *
 * @example new OpenAI({ fetch: normalizingErrorFetch(fetch) })
 */
export function normalizingErrorFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const text = await response.text();
    const headers = new Headers(response.headers);
    // The body changes size, and it is no longer compressed.
    headers.delete('content-length');
    headers.delete('content-encoding');
    headers.set('content-type', 'application/json');
    return new Response(errorBody(text), { status: response.status, statusText: response.statusText, headers });
  };
}

/** The body as the SDK expects it; a body that already has `error` is kept byte for byte. */
export function errorBody(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.trim() === '' ? text : JSON.stringify({ error: { message: text.trim().slice(0, 2000) } });
  }
  if (parsed === null || typeof parsed !== 'object' || 'error' in parsed) return text;
  const { message, type, code } = parsed as { message?: unknown; type?: unknown; code?: unknown };
  if (typeof message !== 'string') return text;
  return JSON.stringify({ error: { message, ...(typeof type === 'string' ? { type } : {}), ...(code !== undefined ? { code } : {}) } });
}
