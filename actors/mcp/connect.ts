import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type Tool as ServerTool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { HttpServerRules, McpServerRules } from '../../rules/mcp-servers.js';
import { type DroppedTool, listServerTools } from './list-tools.js';
import { MatchedIdsTransport } from './matched-ids.js';
import { type LaunchContext, planStdioLaunch } from './stdio-launch.js';
import { GroupStdioTransport } from './stdio-transport.js';
import { expandVariables, McpConfigError } from './variables.js';

/** The longest timer Node.js keeps: `initialize` is given this instead of a timeout, since it may never be cancelled. */
const NO_TIMEOUT_MS = 2_147_483_647;
const CLIENT_INFO = { name: 'rein', version: '0.1.0' };

/** A live connection to one server. */
export interface Connection {
  client: Client;
  tools: ServerTool[];
  /** Tools the server listed that rein cannot use (an invalid definition), and a listing stopped early, with why. */
  dropped: DroppedTool[];
  /** Resolves, with why, when the connection ends for any reason but `close()`. */
  lost: Promise<string>;
  /** One line for the trace: where the server runs (never its headers). */
  where: string;
  /** Lines the server printed on stdout that were not JSON-RPC. */
  garbageLines(): number;
  /** The stdio server's process group (its leader's pid); null over HTTP. */
  pid(): number | null;
  close(): Promise<void>;
}

export interface ConnectOptions extends LaunchContext {
  name: string;
  rules: McpServerRules;
  /** Where the server's stderr goes. */
  stderrPath: string;
  signal: AbortSignal;
  /** Called with the new list when the server says its tools changed (`notifications/tools/list_changed`). */
  onToolList?: (tools: ServerTool[]) => void;
}

/**
 * Starts (stdio) or reaches (Streamable HTTP) one server, runs the MCP
 * handshake and lists its tools, all within `rules.startupTimeoutSeconds`.
 * Anything that goes wrong on the way closes what was opened and throws.
 *
 * @example const connection = await connectServer({ name: 'docs', rules, root, policy, env, stderrPath, signal });
 */
export async function connectServer(options: ConnectOptions): Promise<Connection> {
  const { transport, where, garbage, pid, ending, readableHint } = openTransport(options);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let closing = false;
  const lost = new Promise<string>((resolve) => {
    client.onclose = () => {
      if (!closing) resolve(`the connection closed (${where})`);
    };
  });
  const close = async () => {
    closing = true;
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  };
  const limitMs = options.rules.startupTimeoutSeconds * 1000;
  const timeout = AbortSignal.any([options.signal, AbortSignal.timeout(limitMs)]);
  try {
    const { tools, dropped } = await untilAborted(handshake(client, transport, timeout, limitMs), timeout, () =>
      options.signal.aborted ? 'the run is ending' : `the server did not start within ${options.rules.startupTimeoutSeconds} s`,
    );
    watchToolList(client, options, limitMs);
    return { client, tools, dropped, lost, where, garbageLines: garbage, pid, close };
  } catch (error) {
    // "Connection closed" says little; the process's exit and its last stderr lines say why (read before close() ends it).
    const how = ending();
    await close();
    const hint = readableHint ? `; ${readableHint}` : '';
    throw how || hint ? new Error(`${(error as Error).message}${how ? ` (${how})` : ''}${hint}`) : error;
  }
}

async function handshake(client: Client, transport: Transport, signal: AbortSignal, timeout: number): Promise<{ tools: ServerTool[]; dropped: DroppedTool[] }> {
  // `initialize` must never be cancelled (MCP lifecycle): no signal and no SDK timeout; the startup deadline
  // (untilAborted) closes the transport instead, which fails the request without a word to the server.
  await client.connect(transport, { timeout: NO_TIMEOUT_MS });
  if (!client.getServerCapabilities()?.tools) return { tools: [], dropped: [] };
  return listServerTools(client, { signal, timeout });
}

/** `notifications/tools/list_changed`: the new list, listed like the first (bad tools dropped, cursors checked). */
function watchToolList(client: Client, options: ConnectOptions, timeout: number): void {
  if (!options.onToolList || !client.getServerCapabilities()?.tools?.listChanged) return;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    const listed = await listServerTools(client, { timeout }).catch(() => null);
    if (listed) options.onToolList?.(listed.tools);
  });
}

function openTransport(options: ConnectOptions): {
  transport: Transport;
  where: string;
  garbage: () => number;
  pid: () => number | null;
  ending: () => string | null;
  readableHint?: string;
} {
  const { rules } = options;
  if (rules.type === 'http') {
    const url = new URL(rules.url);
    const http = new StreamableHTTPClientTransport(url, { requestInit: { headers: httpHeaders(rules, options.env) }, redirectPolicy: 'same-origin' });
    const transport = new MatchedIdsTransport(http, () => undefined);
    return { transport, where: `Streamable HTTP at ${url.origin}${url.pathname}`, garbage: () => 0, pid: () => null, ending: () => null };
  }
  const launch = planStdioLaunch(rules, options);
  const stdio = new GroupStdioTransport({ launch, stderrPath: options.stderrPath });
  const transport = new MatchedIdsTransport(stdio, (text) => stdio.report(text));
  return {
    transport,
    where: `stdio, ${launch.sandbox}`,
    garbage: () => stdio.garbageLines,
    pid: () => stdio.pid,
    ending: () => stdio.ending,
    ...(launch.readableHint ? { readableHint: launch.readableHint } : {}),
  };
}

/** The headers with `${NAME}` filled in and the bearer token added; values that could split a header are refused. */
function httpHeaders(rules: HttpServerRules, env: NodeJS.ProcessEnv): Record<string, string> {
  const headers = expandVariables(rules.headers, env, 'headers');
  if (rules.bearerTokenEnv) {
    const token = env[rules.bearerTokenEnv];
    if (!token) throw new McpConfigError(`bearerTokenEnv: ${rules.bearerTokenEnv} is not set in rein's environment`);
    headers.Authorization = `Bearer ${token}`;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n\0]/.test(value)) throw new McpConfigError(`headers.${name}: the value holds a line break`);
  }
  return headers;
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal, why: () => string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error(why()));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
