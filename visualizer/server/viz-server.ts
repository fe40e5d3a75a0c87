import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from 'rein/lib';
import type { AgentPages } from './agent-pages.js';
import type { FeedMessage, LiveFeed } from './live-feed.js';
import { createPageAccess, loaderHtml } from './page-access.js';

interface VizServerOptions {
  /** 0 picks a free port. */
  port?: number;
  /** The page's HTML; awaited per request, so it may wait for the chart's layout. */
  page: () => Promise<string> | string;
  /** Live runs: streamed to the page as Server-Sent Events on `/events`. */
  feed?: LiveFeed;
  /** Live runs: the page's answers to a waiting call, POSTed to `/approval` (visualizer/server/page-approvals.ts). */
  approvals?: { handle(request: IncomingMessage, response: ServerResponse): Promise<void> };
  /** The pages of the run's delegated children, at `/agents/<dir>/` (agent-pages.ts). */
  agents?: AgentPages;
  /** The served run's workspace steps as they are now, as JSON on `/workspace` (the step panel of a running run). */
  workspace?: () => unknown;
  /** `/page?run=DIR&step=N`: the page of a run linked to the served one by forks (null: not one of those). */
  relatedPage?: (query: URLSearchParams) => Promise<string | null>;
}

export interface VizServer {
  /** The address to open, with its one-time key (`http://127.0.0.1:PORT/#key=…`): print it to the terminal only. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const HEARTBEAT_MS = 15_000;

/**
 * Serves the visualizer on 127.0.0.1 only, to the tab that opened the printed
 * address (see page-access.ts): a loader at `/`, the page at `/page` and, for
 * a live run, its messages at `/events` (SSE; a page that connects late, or
 * reconnects with `Last-Event-ID`, first gets what it missed), its workspace steps at `/workspace`, and the pages
 * of the runs linked to it by forks at `/page?run=DIR&step=N`. Requests for
 * other host names are refused, so a web page cannot reach it through DNS
 * rebinding.
 *
 * @example const server = await startVizServer({ port: 0, page: () => html }); console.log(server.url);
 */
export async function startVizServer(options: VizServerOptions): Promise<VizServer> {
  const streams = new Set<ServerResponse>();
  let port = 0;
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`rein visualizer: ${(error as Error).message}\n`);
    });
  });
  const access = createPageAccess();
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (!allowedHost(request.headers.host, port)) return plain(response, 403, 'rein visualizer: unexpected host name\n');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const { pathname: path } = url;
    if (path === '/session' && request.method === 'POST') {
      const session = access.redeem(((await readJson(request)) as { key?: unknown } | null)?.key);
      if (!session) return plain(response, 403, 'rein visualizer: that address was used already, or is not one rein printed\n');
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return void response.end(JSON.stringify({ session }));
    }
    if (request.method === 'GET' && (path === '/' || path === '/index.html')) return html(response, loaderHtml());
    const agent = path.startsWith('/agents/') ? (options.agents?.find(path) ?? null) : null;
    if (agent?.what === 'loader' && request.method === 'GET') return html(response, loaderHtml());
    if (path === '/favicon.ico') return void response.writeHead(204).end();
    // Everything else shows the run or acts on it: only for the tab that opened the printed address.
    if (!access.allows(request)) return plain(response, 403, 'rein visualizer: open the address rein printed in the terminal\n');
    if (path === '/approval' && options.approvals && request.method === 'POST') return options.approvals.handle(request, response);
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(response, 405, 'GET only\n');
    if (path === '/page' && url.searchParams.has('run')) {
      const related = options.relatedPage ? await options.relatedPage(url.searchParams) : null;
      return related === null ? plain(response, 404, 'rein visualizer: not a run linked to this one by a fork\n') : html(response, related);
    }
    if (path === '/page') return html(response, await options.page());
    if (path === '/workspace' && options.workspace) return json(response, options.workspace() ?? null);
    if (path === '/events' && options.feed) return stream(request, response, options.feed, streams);
    if (agent?.what === 'page' && options.agents) return html(response, await options.agents.page(agent.run));
    const agentFeed = agent?.what === 'events' ? options.agents?.feed(agent.run) : null;
    if (agentFeed) return stream(request, response, agentFeed, streams);
    return plain(response, 404, 'not found\n');
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new UsageError(`port ${options.port} is in use; choose another with --viz-port (or --port for rein viz)`) : error),
    );
    server.listen(options.port ?? 0, HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${HOST}:${port}/${access.fragment}`,
    port,
    async close() {
      options.feed?.close();
      options.agents?.close();
      for (const response of streams) response.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function stream(request: IncomingMessage, response: ServerResponse, feed: LiveFeed, streams: Set<ServerResponse>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  response.write('retry: 1000\n\n');
  const send = (message: FeedMessage) => response.write(`id: ${message.seq}\ndata: ${message.json}\n\n`);
  const lastSeen = Number(request.headers['last-event-id'] ?? 0);
  for (const message of feed.since(Number.isFinite(lastSeen) ? lastSeen : 0)) send(message);
  const unsubscribe = feed.subscribe(send);
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  streams.add(response);
  request.on('close', () => {
    unsubscribe();
    clearInterval(heartbeat);
    streams.delete(response);
  });
}

function allowedHost(host: string | undefined, port: number): boolean {
  return host === `${HOST}:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

function html(response: ServerResponse, text: string): void {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(text);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > 4096) return null;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function json(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(JSON.stringify(value));
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}
