import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as ServerTool } from '@modelcontextprotocol/sdk/types.js';
import type { HttpServerRules, McpServerRules } from '../../rules/mcp-servers.js';
import { type LaunchContext, planStdioLaunch } from './stdio-launch.js';
import { GroupStdioTransport } from './stdio-transport.js';
import { expandVariables, McpConfigError } from './variables.js';

/** Most tools read from one server (pages included); a server listing more is cut there, with a note. */
const MAX_SERVER_TOOLS = 1_000;
const CLIENT_INFO = { name: 'rein', version: '0.1.0' };

/** A live connection to one server. */
export interface Connection {
  client: Client;
  tools: ServerTool[];
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
  const { transport, where, garbage, pid, ending } = openTransport(options);
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    listChanged: {
      tools: {
        onChanged: (error, tools) => {
          if (!error && tools) options.onToolList?.(tools);
        },
      },
    },
  });
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
    const tools = await untilAborted(handshake(client, transport, timeout, limitMs), timeout, () =>
      options.signal.aborted ? 'the run is ending' : `the server did not start within ${options.rules.startupTimeoutSeconds} s`,
    );
    return { client, tools, lost, where, garbageLines: garbage, pid, close };
  } catch (error) {
    // "Connection closed" says little; the process's exit and its last stderr lines say why (read before close() ends it).
    const how = ending();
    await close();
    throw how ? new Error(`${(error as Error).message} (${how})`) : error;
  }
}

async function handshake(client: Client, transport: Transport, signal: AbortSignal, timeout: number): Promise<ServerTool[]> {
  await client.connect(transport, { signal, timeout });
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: ServerTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { signal, timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length < MAX_SERVER_TOOLS);
  return tools.slice(0, MAX_SERVER_TOOLS);
}

function openTransport(options: ConnectOptions): {
  transport: Transport;
  where: string;
  garbage: () => number;
  pid: () => number | null;
  ending: () => string | null;
} {
  const { rules } = options;
  if (rules.type === 'http') {
    const url = new URL(rules.url);
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: httpHeaders(rules, options.env) }, redirectPolicy: 'same-origin' });
    return { transport, where: `Streamable HTTP at ${url.origin}${url.pathname}`, garbage: () => 0, pid: () => null, ending: () => null };
  }
  const launch = planStdioLaunch(rules, options);
  const transport = new GroupStdioTransport({ launch, stderrPath: options.stderrPath });
  return { transport, where: `stdio, ${launch.sandbox}`, garbage: () => transport.garbageLines, pid: () => transport.pid, ending: () => transport.ending };
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
