import type { InspectMessage, LiveMessage } from '../server/page-data.js';
import { withSession } from './session.js';

export type Connection = 'connecting' | 'open' | 'reconnecting' | 'closed';

interface LiveHandlers {
  trace(line: Record<string, unknown>): void;
  inspect(event: InspectMessage): void;
  /** After a burst of messages (once per browser task): render now. */
  flush(): void;
  connection(state: Connection): void;
  /** The server stopped following the trace file, and says why. */
  followEnd(text: string): void;
}

/**
 * Follows a live run over Server-Sent Events. Messages are numbered; after a
 * reconnect the server resends from `Last-Event-ID` and anything already
 * seen is skipped. A `closing` message means the server is going away: no
 * reconnecting then. An error the browser gives up on (the server is gone
 * without saying so) closes the connection too.
 *
 * @example const stop = connectLive('/events', { trace: (line) => timeline.append(line), inspect, flush: render, connection: showStatus });
 */
export function connectLive(url: string, handlers: LiveHandlers): () => void {
  let lastSeq = 0;
  let flushQueued = false;
  const source = new EventSource(withSession(url));
  handlers.connection('connecting');
  source.addEventListener('open', () => handlers.connection('open'));
  source.addEventListener('error', () => handlers.connection(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'));
  source.addEventListener('message', (event: MessageEvent<string>) => {
    let message: LiveMessage;
    try {
      message = JSON.parse(event.data) as LiveMessage;
    } catch {
      return;
    }
    if (typeof message.seq !== 'number' || message.seq <= lastSeq) return;
    lastSeq = message.seq;
    if (message.type === 'trace') handlers.trace(message.line);
    else if (message.type === 'inspect') handlers.inspect(message.event);
    else if (message.type === 'closing') {
      source.close();
      handlers.connection('closed');
    } else if (message.type === 'follow_end') handlers.followEnd(message.text);
    if (!flushQueued) {
      flushQueued = true;
      queueMicrotask(() => {
        flushQueued = false;
        handlers.flush();
      });
    }
  });
  return () => source.close();
}
