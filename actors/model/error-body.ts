import { boundedErrorText, limitBody, MAX_ERROR_BODY_BYTES, MAX_ERROR_TEXT_CHARS, readCapped, readWhole } from './body-limits.js';
import { checkReplyBody, foreignBodyMessage, speaksApi } from './content-type.js';

/**
 * A fetch that keeps what an endpoint sends within bounds and in a shape the
 * openai SDK reads. A reply body may be at most `maxBodyBytes` (streamed or
 * not; past it the request fails with a `ResponseTooLargeError` and the rest
 * is never read). An error body is read up to `MAX_ERROR_BODY_BYTES` and
 * rewritten into the `{ "error": { "message" } }` shape the SDK understands:
 * vLLM's older `{ "object": "error", "message": … }`, plain-text bodies, and
 * a body that was cut (its message says so and how big it was). Without the
 * rewrite the SDK reports "400 status code (no body)" and a prompt that is too
 * long cannot be told from any other bad request. A body that is not the model
 * API's at all (a web page, a proxy's login form) is said as such, with its
 * type and first bytes: for a reply that looked fine (HTTP 200) that is a
 * `ForeignBodyError`, which is not retried.
 *
 * @example new OpenAI({ fetch: normalizingErrorFetch(fetch, 16 * 1024 * 1024) })
 */
export function normalizingErrorFetch(inner: typeof fetch, maxBodyBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return (await wholeJsonReply(response, maxBodyBytes)) ?? checkReplyBody(limitBody(response, maxBodyBytes));
    const { text, bytes, cut } = await readCapped(response.body, MAX_ERROR_BODY_BYTES);
    const headers = new Headers(response.headers);
    // The body changes size, and it is no longer compressed.
    headers.delete('content-length');
    headers.delete('content-encoding');
    headers.set('content-type', 'application/json');
    const declared = response.headers.get('content-length');
    const type = response.headers.get('content-type');
    // A web page for an error (a proxy's 502, a login form's 401): said as the page it is, not quoted as an API error.
    const page = !speaksApi(type, text.slice(0, 512)) && (/html/i.test(type ?? '') || /^\s*</.test(text));
    const body = page
      ? JSON.stringify({ error: { message: foreignBodyMessage(type, text, response.status) } })
      : cut
        ? cutErrorBody(text, bytes, declared)
        : errorBody(text);
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/**
 * A reply the SDK reads whole (JSON by its type, not a stream of events), read whole here too within the limit
 * (`readWhole`); null for any other, which goes through the limiting stream. A body that does not start like JSON is
 * handed to `checkReplyBody` to be said as foreign.
 */
async function wholeJsonReply(response: Response, maxBodyBytes: number): Promise<Response | null> {
  const type = response.headers.get('content-type');
  if (!type || !/json/i.test(type) || /event-stream/i.test(type)) return null;
  const bytes = await readWhole(response, maxBodyBytes);
  if (bytes instanceof Response) return bytes;
  const whole = new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
  return speaksApi(type, new TextDecoder().decode(bytes.subarray(0, 64))) ? whole : checkReplyBody(whole);
}

/** The body as the SDK expects it; a body that already has `error` with a message of readable length is kept byte for byte. */
export function errorBody(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.trim() === '' ? text : JSON.stringify({ error: { message: boundedErrorText(text.trim()) } });
  }
  if (parsed === null || typeof parsed !== 'object') return text;
  const hasError = 'error' in parsed;
  const inner: unknown = hasError ? (parsed as { error: unknown }).error : parsed;
  if (inner === null || typeof inner !== 'object') return text;
  const { message, type, code } = inner as { message?: unknown; type?: unknown; code?: unknown };
  if (typeof message !== 'string' || (hasError && message.length <= MAX_ERROR_TEXT_CHARS)) return text;
  return JSON.stringify({
    error: { message: boundedErrorText(message), ...(typeof type === 'string' ? { type } : {}), ...(code !== undefined ? { code } : {}) },
  });
}

/** Characters of a cut error body quoted: enough to read what the server meant, short enough to stay one screen. */
const QUOTED_ERROR_CHARS = 1_000;

/** An error body past the read limit: how big it was and how much was read, then its start (a JSON message's text when it has one). */
function cutErrorBody(text: string, bytes: number, declared: string | null): string {
  const start = /^\s*\{\s*"error"\s*:\s*\{\s*"message"\s*:\s*"/.exec(text);
  const quoted = (start ? text.slice(start[0].length) : text.trim()).slice(0, QUOTED_ERROR_CHARS);
  const size = declared ? `${declared} bytes (content-length)` : `more than ${bytes} bytes`;
  return JSON.stringify({ error: { message: `[error body of ${size}, cut after the first ${bytes}] ${quoted}…` } });
}
