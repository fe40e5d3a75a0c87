/**
 * Tool names in a phase's `tools` list: exact names, or MCP patterns such as
 * `mcp__docs__*` (`*` matches any run of characters). MCP tools are only
 * known once their servers are connected, so the rules can name them only
 * by pattern or by their full `mcp__<server>__<tool>` name.
 */

export const MCP_TOOL_PREFIX = 'mcp__';
/** The catalogue search tool rein adds when MCP tools are found on demand. */
export const FIND_TOOLS_NAME = 'find_tools';

/** A `tools` entry that names MCP tools (checked when the servers are connected, not against tools.enabled). */
export function isMcpToolEntry(entry: string): boolean {
  return entry.startsWith(MCP_TOOL_PREFIX) || entry === FIND_TOOLS_NAME;
}

/**
 * Whether an MCP entry can match a tool of one of `servers`: its text before
 * any `*` agrees with `mcp__<server>__` (`mcp__*` matches every server,
 * `find_tools` needs none).
 *
 * @example namesDeclaredServer('mcp__docs__*', ['docs']) // true
 */
export function namesDeclaredServer(entry: string, servers: readonly string[]): boolean {
  if (entry === FIND_TOOLS_NAME) return true;
  const fixed = entry.split('*')[0]!;
  return servers.some((server) => {
    const prefix = `${MCP_TOOL_PREFIX}${server}__`;
    return prefix.startsWith(fixed) || fixed.startsWith(prefix);
  });
}

/**
 * Whether a phase's list allows a tool. `find_tools` is allowed wherever an
 * MCP tool may be, as it is the way to reach them.
 *
 * @example isToolAllowed(['read_file', 'mcp__docs__*'], 'mcp__docs__search') // true
 */
export function isToolAllowed(allowed: 'all' | readonly string[], name: string): boolean {
  if (allowed === 'all') return true;
  if (name === FIND_TOOLS_NAME && allowed.some((entry) => entry.startsWith(MCP_TOOL_PREFIX))) return true;
  return allowed.some((entry) => entry === name || (isToolGlob(entry) && globMatch(entry, name)));
}

/** Whether a phase's tool entry is a glob (`mcp__docs__*`, `read_?ile`) rather than a name. */
export function isToolGlob(entry: string): boolean {
  return /[*?]/.test(entry);
}

/** `*` matches any run of characters, `?` one; everything else literally. */
export function globMatch(pattern: string, name: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(name);
}
