import { ReinError } from '../../lib/errors.js';
import { stripControl } from '../../lib/terminal-text.js';
import { joinChunks } from './body-limits.js';

/** Bytes of a reply looked at to tell the model API's (JSON, server-sent events) from anything else; and read of a foreign one, to quote it. */
const SNIFF_BYTES = 64;
const QUOTE_BYTES = 4096;
/** Characters of a foreign body quoted in the error. */
const QUOTED_CHARS = 160;

/**
 * The endpoint answered with something that is not a model API's reply (a web
 * page, a proxy's login form): retrying cannot help, so it is said once.
 */
export class ForeignBodyError extends ReinError {}

/**
 * The one line said about a body that is not the model API's: its type and its
 * first bytes (a page's `<title>` when it has one), and what to check.
 *
 * @example foreignBodyMessage('text/html', '<html><title>Welcome to nginx!</title>…') // 'the server answered text/html: <title>Welcome to nginx!</title>; is the base URL the model API?'
 */
export function foreignBodyMessage(contentType: string | null, text: string, status?: number): string {
  const type = (contentType ?? 'no content-type').split(';')[0]!.trim() || 'no content-type';
  const title = /<title[^>]*>([\s\S]{0,200}?)<\/title>/i.exec(text);
  const quoted = title ? `<title>${oneLine(title[1]!)}</title>` : oneLine(text).slice(0, QUOTED_CHARS) || '(an empty body)';
  const where = status !== undefined && (status < 200 || status >= 300) ? ` (HTTP ${status})` : '';
  return `the server answered ${type}${where}: ${quoted}; is the base URL the model API?`;
}

function oneLine(text: string): string {
  return stripControl(text.replace(/\s+/g, ' ')).trim();
}

/**
 * Whether a body is what a model API sends: JSON, or server-sent events, by
 * its content type or, when the type is missing or wrong (gateways mislabel),
 * by how it starts. A web page is never taken for either.
 *
 * @example speaksApi('text/html', '<!doctype html>') // false
 */
export function speaksApi(contentType: string | null, head: string): boolean {
  const type = (contentType ?? '').toLowerCase();
  const start = head.replace(/^\uFEFF/, '').trimStart();
  if (/^<(?:!doctype|html|head|body|\?xml)/i.test(start)) return false;
  if (/json|event-stream/.test(type)) return true;
  return start === '' ? !/html/.test(type) : /^[{[]|^(?:data|event|id|retry):|^:/.test(start);
}

/**
 * The reply with its first bytes looked at. A body that is not JSON or an event
 * stream fails as it is read (not as the fetch, which the SDK would take for a
 * connection error and retry) with a `ForeignBodyError` that quotes it, and so
 * does a failure while looking; JSON or events under another label (gateways
 * mislabel) are relabelled, so the SDK parses them. Nothing is lost: the bytes
 * looked at come first in the body handed on.
 */
export async function checkReplyBody(response: Response): Promise<Response> {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let done = false;
  let failure: unknown = null;
  try {
    let seen = 0;
    // Enough to tell a page from JSON or events; a foreign body is read on, to quote its title.
    for (let limit = SNIFF_BYTES; seen < limit && !done; ) {
      const next = await reader.read();
      done = next.done;
      if (next.value) {
        chunks.push(next.value);
        seen += next.value.length;
      }
      if (seen >= SNIFF_BYTES && limit === SNIFF_BYTES && !speaksApi(response.headers.get('content-type'), decode(chunks))) limit = QUOTE_BYTES;
    }
  } catch (error) {
    failure = error;
  }
  const contentType = response.headers.get('content-type');
  const head = decode(chunks);
  if (!failure && !speaksApi(contentType, head)) failure = new ForeignBodyError(foreignBodyMessage(contentType, head, response.status));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (failure) {
        void reader.cancel().catch(() => undefined);
        controller.error(failure);
        return;
      }
      for (const chunk of chunks) controller.enqueue(chunk);
      if (done) controller.close();
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const headers = new Headers(response.headers);
  if (!failure && head.trim() !== '' && !/json|event-stream/i.test(contentType ?? ''))
    headers.set('content-type', /^\s*[{[]/.test(head.replace(/^\uFEFF/, '')) ? 'application/json' : 'text/event-stream');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

function decode(chunks: readonly Uint8Array[]): string {
  return new TextDecoder().decode(joinChunks(chunks).subarray(0, QUOTE_BYTES));
}
