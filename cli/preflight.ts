import { foreignBodyMessage, speaksApi } from 'rein/actors';

/** Bytes of the `/models` answer looked at: enough to tell JSON from a web page and quote its title. */
const LOOKED_AT_BYTES = 4096;

/**
 * Checks that the model API answers at the endpoint before a run starts, so a
 * setup mistake is one clear line instead of a minute of retries. A
 * connection failure fails; so does a web page or any other body that is not
 * the API's (a web server at the base URL, a captive proxy), said with its type
 * and first bytes. Any other HTTP answer counts: not every server has `/models`.
 *
 * @example const problem = await checkReachable('http://localhost:8000/v1'); // null, or the line to print
 */
export async function checkReachable(baseURL: string, timeoutMs = 5000): Promise<string | null> {
  const url = baseURL.replace(/\/+$/, '') + '/models';
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message;
    return `cannot reach the model endpoint at ${baseURL} (${detail}): check the base URL (--base-url or OPENAI_BASE_URL) and that a server is running and listening there`;
  }
  const head = await firstBytes(response, timeoutMs);
  const type = response.headers.get('content-type');
  const page = /html/i.test(type ?? '') || /^\s*<(?:!doctype|html|head|body)/i.test(head);
  if (speaksApi(type, head) || (!response.ok && !page)) return null;
  return `GET ${url}: ${foreignBodyMessage(type, head, response.status)}`;
}

/** The start of a body as text, the rest never read. */
async function firstBytes(response: Response, timeoutMs: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let seen = 0;
  const deadline = setTimeout(() => void reader.cancel().catch(() => undefined), timeoutMs);
  try {
    while (seen < LOOKED_AT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      seen += value.length;
    }
  } catch {
    // A body cut off while read is judged by what came.
  } finally {
    clearTimeout(deadline);
    void reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, LOOKED_AT_BYTES));
}
