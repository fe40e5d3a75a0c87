import { z } from 'zod';

/** A server name becomes part of tool names (`mcp__<server>__<tool>`): letters, digits, `_` and `-` only. */
const serverName = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'expected 1-40 letters, digits, "_" or "-"');

const lifecycle = {
  startupTimeoutSeconds: z.number().positive().default(30).describe('Seconds the server has to start and list its tools'),
  callTimeoutSeconds: z.number().positive().default(60).describe('Seconds one tool call may take before it is cancelled and reported as timed out'),
  maxRestarts: z.number().int().nonnegative().default(3).describe('Restarts after a crash before the server is marked failed for the rest of the run'),
  tools: z.array(z.string().min(1)).optional().describe('Only these of the server\'s tools (its own names; globs like "search_*"); all when absent'),
  onToolsChanged: z
    .enum(['refuse', 'accept'])
    .default('refuse')
    .describe('A tool whose definition changes mid-run (after a restart): refused for the rest of the run, or the new definition used'),
  proseArguments: z
    .record(z.string().min(1), z.array(z.string().min(1)))
    .default({})
    .describe(
      'Arguments that are prose, not commands, by tool (the server\'s own tool names; globs like "create_*"): {"create_issue": ["title", "body"]}. The built-in deny list does not scan them ("the deploy step needs sudo" is refused otherwise); permissions.deny still does',
    ),
  trustAnnotations: z
    .boolean()
    .default(false)
    .describe(
      "Believe the server's tool annotations: a tool it marks readOnlyHint skips the deny-list check of its arguments. Off: what a server says about its tools relaxes nothing",
    ),
};

const stdioServer = z.strictObject({
  type: z.literal('stdio').default('stdio'),
  command: z.string().min(1).describe('Program to start (looked up on PATH)'),
  args: z.array(z.string()).default([]),
  env: z
    .record(z.string(), z.string())
    .default({})
    .describe('Variables set for the server on top of the run\'s allow-listed environment; "${NAME}" is read from rein\'s environment'),
  cwd: z.string().optional().describe('Working directory (default: the workspace)'),
  sandbox: z.boolean().default(true).describe("Run the server inside the run's sandbox (bubblewrap) like commands; false runs it on the host"),
  network: z.boolean().optional().describe('Network for the sandboxed server (default: permissions.network)'),
  readable: z
    .array(z.string().min(1))
    .default([])
    .describe('More host paths the sandboxed server may read (its install folder is found from command and args)'),
  ...lifecycle,
});

const httpServer = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }).describe('Streamable HTTP endpoint'),
  headers: z.record(z.string(), z.string()).default({}).describe('Request headers; "${NAME}" is read from rein\'s environment (tokens never reach the trace)'),
  bearerTokenEnv: z.string().min(1).optional().describe('Environment variable holding a bearer token sent as Authorization'),
  ...lifecycle,
});

/** The transports rein speaks, for errors about a `type` it does not know. */
const TRANSPORTS =
  'rein speaks "stdio" (a command it starts; the default when there is a command) and "http" (Streamable HTTP at a url; "streamable-http" in a .mcp.json)';

/** `type: "http"` with a url, or a command (stdio, the default). */
export const mcpServerSchema = z.union([httpServer, stdioServer], {
  error: (issue) => {
    const type = (issue.input as { type?: unknown } | undefined)?.type;
    if (type === 'sse')
      return `"type": "sse" (the older HTTP+SSE transport) is not supported: ${TRANSPORTS}. Use the server's Streamable HTTP endpoint, or start it over stdio`;
    if (type !== undefined && type !== 'stdio' && type !== 'http') return `"type": ${JSON.stringify(type)} is not a transport rein knows: ${TRANSPORTS}`;
    // A known transport: the first mistake against its own fields (an entry without "type" is a stdio server, as in Claude Code).
    const branches = (issue as { errors?: { path: PropertyKey[]; message: string }[][] }).errors;
    const first = branches?.[type === 'http' ? 0 : 1]?.[0];
    if (!first) return undefined;
    const field = first.path.map(String).join('.');
    return `${field ? `${field}: ` : ''}${first.message} (for ${type === 'http' ? 'a Streamable HTTP server' : 'a stdio server, which an entry without "type": "http" is'})`;
  },
});

/**
 * A rules file written in the shape every MCP client documents, `{ "mcpServers": { … } }` at the top, read as
 * rein's `mcp.servers` (`"type": "streamable-http"` is `http`). A server named in both places is an error: which
 * one was meant cannot be guessed.
 *
 * @example foldMcpServers({ mcpServers: { fs: { command: 'npx', args: ['…'] } } }) // { mcp: { servers: { fs: { command: 'npx', args: ['…'] } } } }
 */
export function foldMcpServers(layer: Record<string, unknown>): Record<string, unknown> {
  const { mcpServers, ...rest } = layer;
  if (mcpServers === undefined) return layer;
  if (!mcpServers || typeof mcpServers !== 'object' || Array.isArray(mcpServers)) throw new Error('mcpServers: expected an object of servers by name');
  const mcp = (rest.mcp ?? {}) as Record<string, unknown>;
  const servers = { ...((mcp.servers ?? {}) as Record<string, unknown>) };
  for (const [name, entry] of Object.entries(mcpServers)) {
    if (name in servers) throw new Error(`mcpServers.${name}: also declared in mcp.servers; keep one of the two`);
    const typed = entry as { type?: unknown } | null;
    servers[name] = typed && typeof typed === 'object' && typed.type === 'streamable-http' ? { ...typed, type: 'http' } : entry;
  }
  return { ...rest, mcp: { ...mcp, servers } };
}
export type McpServerRules = z.output<typeof mcpServerSchema>;
export type StdioServerRules = z.output<typeof stdioServer>;
export type HttpServerRules = z.output<typeof httpServer>;

/** The `mcp` section of the rules. */
export const mcpRulesSchema = z
  .strictObject({
    servers: z.record(serverName, mcpServerSchema).default({}).describe('MCP servers whose tools the run offers as mcp__<server>__<tool>'),
    projectConfig: z
      .boolean()
      .default(false)
      .describe("Also start the servers in the workspace's .mcp.json (the repository chooses what runs: opt in only for repositories you trust)"),
    toolSearchShare: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.1)
      .describe(
        'When MCP tool definitions would take more than this share of the context window, only find_tools is sent and definitions are appended as found',
      ),
  })
  .prefault({});
