import { createHash } from 'node:crypto';
import { MCP_TOOL_PREFIX } from '../../lib/tool-patterns.js';

/** OpenAI's limit on a function name, which most OpenAI-compatible servers share. */
export const MAX_TOOL_NAME = 64;
const MCP_PREFIX = MCP_TOOL_PREFIX;

/** A server's tool as the model will see it. */
interface NamedTool {
  server: string;
  tool: string;
  name: string;
}

/**
 * Model-facing names for servers' tools: `mcp__<server>__<tool>`, with every
 * character outside `[A-Za-z0-9_-]` turned into `_`, cut to 64 characters.
 * Names that still clash (after cutting or sanitising), or that clash with
 * `taken` (rein's own tools), get a short hash of the server and the original
 * name, so each stays stable across runs whatever order the servers list them.
 *
 * @example nameTools([{ server: 'docs', tool: 'search.v2' }]) // [{ server: 'docs', tool: 'search.v2', name: 'mcp__docs__search_v2' }]
 */
export function nameTools(tools: readonly { server: string; tool: string }[], taken: readonly string[] = []): NamedTool[] {
  const plain = tools.map(({ server, tool }) => clip(`${MCP_PREFIX}${sanitize(server)}__${sanitize(tool)}`));
  const counts = new Map<string, number>();
  for (const name of [...plain, ...taken]) counts.set(name, (counts.get(name) ?? 0) + 1);
  return tools.map(({ server, tool }, index) => {
    const name = plain[index]!;
    return { server, tool, name: counts.get(name) === 1 ? name : withHash(name, `${server}\u0000${tool}`) };
  });
}

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
}

function clip(name: string): string {
  return name.length <= MAX_TOOL_NAME ? name : name.slice(0, MAX_TOOL_NAME);
}

function withHash(name: string, identity: string): string {
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}
