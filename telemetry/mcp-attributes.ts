import type { Attributes } from '@opentelemetry/api';
import type { TraceRecord as TraceLine } from 'rein/formats';
import { GENERAL, MCP, NETWORK_TRANSPORT } from './conventions.js';
import { defined, str } from './line-fields.js';

/** Where each MCP server of a run runs, from its `mcp_server` lines (`stdio, …` or `Streamable HTTP at <origin><path>`). */
export type McpServers = Map<string, string>;

/** Notes where a server runs, from an `mcp_server` line. */
export function noteMcpServer(servers: McpServers, line: TraceLine): void {
  const server = str(line.server);
  const where = str(line.where);
  if (server && where) servers.set(server, where);
}

/**
 * The MCP conventions' attributes for the `execute_tool` span of a call to an
 * MCP server's tool: the method (`tools/call`), the transport (`pipe` for a
 * stdio server, `tcp` and the server's address for an HTTP one). The
 * conventions say to add these to the GenAI tool span rather than start an
 * MCP span of its own when the tool call is already traced.
 */
export function mcpCallAttributes(servers: McpServers, server: string | undefined): Attributes {
  const where = server ? servers.get(server) : undefined;
  const http = where?.match(/\bhttps?:\/\/[^\s/]+/)?.[0];
  let address: { host: string; port: number } | undefined;
  if (http) {
    const url = new URL(http);
    address = { host: url.hostname, port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 };
  }
  return defined({
    [MCP.methodName]: MCP.toolsCall,
    [MCP.networkTransport]: where === undefined ? undefined : http ? NETWORK_TRANSPORT.tcp : NETWORK_TRANSPORT.pipe,
    [MCP.networkProtocolName]: http ? 'http' : undefined,
    [GENERAL.serverAddress]: address?.host,
    [GENERAL.serverPort]: address?.port,
  });
}
