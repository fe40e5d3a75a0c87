import { globMatch, isToolAllowed, isToolGlob } from '../lib/tool-patterns.js';

/**
 * rein's own tools by name, in the order the model sees them: the one list
 * the rules' defaults, the tool registry (`tools/index.ts` maps each name to
 * its tool, checked by tsc) and the docs read. The order is part of the
 * cached prompt prefix: append, never reorder.
 */
export const TOOL_NAMES = ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job'] as const;
export type BuiltInToolName = (typeof TOOL_NAMES)[number];

/** Whether a tool name matches a phase's tool entry: the name itself, or a glob where `*` is any run of characters and `?` one. */
export function toolMatches(entry: string, name: string): boolean {
  return isToolGlob(entry) ? globMatch(entry, name) : entry === name;
}

/** Whether a phase's tool list (`all`, or names and globs) allows a tool; `find_tools` wherever an MCP tool may be. */
export const toolAllowed = isToolAllowed;

export { isToolGlob };
