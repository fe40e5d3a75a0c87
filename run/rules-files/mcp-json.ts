import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../../lib/regular-file.js';
import { formatZodError } from '../../lib/zod-error.js';
import { type McpServerRules, mcpServerSchema } from '../../rules/mcp-servers.js';

export const PROJECT_MCP_FILE = '.mcp.json';
const NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** What a project's `.mcp.json` declares, and what it would start (for the user to see before it runs). */
interface ProjectServers {
  servers: Record<string, McpServerRules>;
  /** One line per server: `docs: node server.js --port 0` or `tracker: https://mcp.example.com/mcp`. */
  summary: string[];
  problems: string[];
}

/**
 * Reads `.mcp.json` in the conventional shape (`{ "mcpServers": { name:
 * { command, args, env } | { type: "http", url, headers } } }`). The file
 * comes from the repository, so it is only read when the rules opt in; an
 * entry rein cannot honour is reported and skipped, never half-started.
 *
 * @example readProjectServers('/repo').summary // ['docs: node server.js']
 */
export function readProjectServers(workspace: string): ProjectServers {
  const file = path.join(workspace, PROJECT_MCP_FILE);
  const empty: ProjectServers = { servers: {}, summary: [], problems: [] };
  if (!fs.existsSync(file)) return empty;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readRegularFile(file, 'utf8'));
  } catch (error) {
    return { ...empty, problems: [`${PROJECT_MCP_FILE}: not valid JSON (${(error as Error).message.slice(0, 120)})`] };
  }
  const entries = (parsed as { mcpServers?: unknown })?.mcpServers;
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries))
    return { ...empty, problems: [`${PROJECT_MCP_FILE}: expected an object "mcpServers"`] };
  const result: ProjectServers = { servers: {}, summary: [], problems: [] };
  for (const [name, entry] of Object.entries(entries)) {
    const where = `${PROJECT_MCP_FILE}: mcpServers.${name.slice(0, 40)}`;
    if (!NAME.test(name)) {
      result.problems.push(`${where}: the name must be 1-40 letters, digits, "_" or "-"`);
      continue;
    }
    const named = variablesIn(entry);
    if (named.length > 0) {
      result.problems.push(
        `${where}: names ${named.map((name) => `\${${name}}`).join(', ')}; rein never fills a workspace file's variables from its own environment (the repository would choose where your secrets go). Declare the server in your rules (mcp.servers), where \${…} is yours`,
      );
      continue;
    }
    const checked = mcpServerSchema.safeParse(conventional(entry));
    if (!checked.success) {
      result.problems.push(`${where}: ${formatZodError(checked.error, { input: conventional(entry) }).join('; ')}`);
      continue;
    }
    result.servers[name] = checked.data;
    result.summary.push(`${name}: ${describeServer(checked.data)}`);
  }
  return result;
}

/** The `${NAME}` variables an entry's strings name, anywhere in it (command, args, env, url, headers). */
function variablesIn(entry: unknown): string[] {
  const names = new Set<string>();
  const text = JSON.stringify(entry ?? null);
  for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1]!);
  return [...names];
}

/** One line saying what a server is: the command line it starts, or the URL it reaches. */
export function describeServer(server: McpServerRules): string {
  if (server.type === 'http') return server.url;
  return [server.command, ...server.args].map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

/** The fields of the conventional shape rein reads (`streamable-http` is another spelling of `http`); others are dropped. */
function conventional(entry: unknown): unknown {
  if (entry === null || typeof entry !== 'object') return entry;
  const { type, command, args, env, url, headers, cwd } = entry as Record<string, unknown>;
  if (type === 'http' || type === 'streamable-http' || (type === undefined && url !== undefined)) return { type: 'http', url, headers };
  if (type !== undefined && type !== 'stdio') return { type, url };
  return { command, args, env, cwd };
}
