import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * A transport that hands the client only answers to requests it sent, matched by the id's type and value: JSON-RPC
 * 2.0 says a response carries "the same value" as its request's id, so `"3"` does not answer request `3` (the SDK
 * alone compares `Number(id)`, taking `"3"` for `3`). A response to no pending request (a string id, a repeated
 * or invented one) is reported and dropped; an answered id is pending no more, so a second answer is dropped too.
 *
 * @example const transport = new MatchedIdsTransport(stdio, (text) => log(text));
 */
export class MatchedIdsTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly pending = new Set<string>();

  constructor(
    private readonly inner: Transport,
    private readonly onStray: (text: string) => void,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    this.inner.onmessage = (message) => this.receive(message);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && 'id' in message && message.id !== undefined) this.pending.add(idKey(message.id));
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private receive(message: JSONRPCMessage): void {
    const isResponse = !('method' in message) && ('result' in message || 'error' in message);
    if (isResponse) {
      const key = idKey((message as { id?: unknown }).id);
      if (!this.pending.delete(key)) {
        this.onStray(`[rein] dropped a response whose id ${JSON.stringify((message as { id?: unknown }).id)} answers no request rein sent`);
        return;
      }
    }
    this.onmessage?.(message);
  }
}

/** An id's type and value: `3` and `"3"` are different ids. */
function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}
