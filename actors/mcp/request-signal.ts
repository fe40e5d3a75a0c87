/**
 * Runs one request with a signal of its own that follows `signal` only while the request is pending. The SDK sends
 * `notifications/cancelled` whenever a request's signal aborts, also long after the answer came (it never removes
 * its listener); the MCP specification says a request that has been answered is not to be cancelled. So the SDK is
 * given this signal, which is cut loose from the caller's as soon as the request settles.
 *
 * @example const result = await whilePending(runSignal, (signal) => client.callTool(params, undefined, { signal }));
 */
export async function whilePending<T>(signal: AbortSignal | undefined, request: (own: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!signal) return request(undefined);
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  try {
    return await request(own.signal);
  } finally {
    signal.removeEventListener('abort', follow);
  }
}
