/**
 * rein's own tools by name, in the order the model sees them: the one list
 * the rules' defaults, the tool registry (`tools/index.ts` maps each name to
 * its tool, checked by tsc) and the docs read. The order is part of the
 * cached prompt prefix: append, never reorder.
 */
export const TOOL_NAMES = ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job'] as const;
export type BuiltInToolName = (typeof TOOL_NAMES)[number];

const GLOB_CHARS = /[*?]/;

/** Whether a phase's tool entry is a glob (`mcp__docs__*`, `read_?ile`) rather than a name. */
export function isToolGlob(entry: string): boolean {
  return GLOB_CHARS.test(entry);
}

/** Whether a tool name matches a phase's tool entry: the name itself, or a glob where `*` is any run of characters and `?` one. */
export function toolMatches(entry: string, name: string): boolean {
  if (!isToolGlob(entry)) return entry === name;
  const pattern = entry
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(name);
}

/** Whether a phase's tool list (`all`, or names and globs) allows a tool. */
export function toolAllowed(allowed: 'all' | readonly string[], name: string): boolean {
  return allowed === 'all' || allowed.some((entry) => toolMatches(entry, name));
}
