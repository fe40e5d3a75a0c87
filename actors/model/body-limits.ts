import { ReinError } from '../../lib/errors.js';
import { headTail } from '../../lib/head-tail.js';

/** Bytes of an error body rein reads; the rest is never read (a 10 MB error stays out of memory, stderr, the trace and the state). */
export const MAX_ERROR_BODY_BYTES = 65_536;

/** Characters of an endpoint's error text kept in the error rein raises, so in stderr, the trace and the saved state. */
export const MAX_ERROR_TEXT_CHARS = 2_000;

/** Characters of a reply that passed the size limit quoted in the error, so the user sees what the server was sending. */
const QUOTED_CHARS = 300;

/** The endpoint's reply passed `model.maxResponseBytes`: not retried (the same request would bring the same flood). */
class ResponseTooLargeError extends ReinError {}

/** An endpoint's error text cut to what a person reads, saying how long it was. */
export function boundedErrorText(text: string, cap = MAX_ERROR_TEXT_CHARS): string {
  return text.length <= cap ? text : `${headTail(text, cap)} [error text cut: it was ${text.length} characters]`;
}

/**
 * At most `maxBytes` of a body as text; the rest is cancelled unread (the
 * connection closes). `cut` says whether there was more.
 *
 * @example const { text, cut } = await readCapped(response.body, 65_536);
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<{ text: string; bytes: number; cut: boolean }> {
  if (!body) return { text: '', bytes: 0, cut: false };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), bytes, cut: false };
      const kept = value.subarray(0, maxBytes - bytes);
      bytes += kept.length;
      text += decoder.decode(kept, { stream: true });
      if (kept.length < value.length) return { text: text + decoder.decode(), bytes, cut: true };
    }
    // Exactly at the limit: one more read tells a body that ends there from a longer one.
    const next = await reader.read();
    if (next.done) return { text: text + decoder.decode(), bytes, cut: false };
    return { text: text + decoder.decode(), bytes, cut: true };
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The response with its body limited to `maxBytes`: a declared length over
 * the limit fails at once, before a byte is read; a body that turns out
 * longer (chunked, streamed) fails as its count passes the limit and the
 * connection is closed. Either way the error says how big it was and quotes
 * its start, and memory holds at most `maxBytes` of it.
 */
export function limitBody(response: Response, maxBytes: number): Response {
  const declared = Number(response.headers.get('content-length'));
  const what = replyNamed(response);
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    // Failed as the body is read, not as fetch: the SDK takes a fetch that throws for a connection error, and retries it.
    const refusal = new ResponseTooLargeError(
      `${what} is ${declared} bytes (content-length), more than model.maxResponseBytes (${maxBytes}); none of it was read`,
    );
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    const failing = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(refusal) });
    return new Response(failing, { status: response.status, statusText: response.statusText, headers });
  }
  if (!response.body) return response;
  let seen = 0;
  let head = '';
  const decoder = new TextDecoder();
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.length;
      if (head.length < QUOTED_CHARS) head += decoder.decode(chunk.subarray(0, QUOTED_CHARS), { stream: true });
      if (seen > maxBytes) {
        controller.error(tooLarge(what, maxBytes, head));
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
}

const replyNamed = (response: Response) => `the endpoint's reply (HTTP ${response.status}, ${response.headers.get('content-type') ?? 'no content-type'})`;

const tooLarge = (what: string, maxBytes: number, head: string) =>
  new ResponseTooLargeError(
    `${what} passed model.maxResponseBytes (${maxBytes} bytes) and was cut there, unread beyond it; it began: ${JSON.stringify(head.slice(0, QUOTED_CHARS))}`,
  );

/**
 * The body's bytes read whole, at most `maxBytes` of them: for a reply the SDK reads whole anyway (not a stream of
 * events), this spares the limiting stream's stage per chunk. A body past the limit is cancelled there, unread beyond
 * it, and what comes back instead is a response that fails as it is read, with the error `limitBody` gives (not as
 * the fetch: the SDK would retry that); so is one whose declared length is over the limit.
 */
export async function readWhole(response: Response, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | Response> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return limitBody(response, maxBytes);
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let seen = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += value.length;
    chunks.push(value);
    if (seen > maxBytes) {
      await reader.cancel().catch(() => undefined);
      const head = new TextDecoder().decode(chunks[0]!.subarray(0, QUOTED_CHARS * 4));
      const failure = tooLarge(replyNamed(response), maxBytes, head);
      const failing = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(failure) });
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      return new Response(failing, { status: response.status, statusText: response.statusText, headers });
    }
  }
  return joinChunks(chunks);
}

/** The chunks as one array of bytes (the one chunk itself when there is only one). */
export function joinChunks(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1 && chunks[0]!.buffer instanceof ArrayBuffer) return chunks[0] as Uint8Array<ArrayBuffer>;
  const all = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}
