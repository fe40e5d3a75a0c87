import { isAbsolute, relative, resolve } from 'node:path';

/**
 * rein's tools as a Claude Code hook sees them: the name (`run` is `Bash`) and the input in Claude Code's
 * field names (`edit_file`'s `path`, `old`, `new` are `file_path`, absolute as Claude Code gives it,
 * `old_string`, `new_string`), and back again for a hook's `updatedInput`. Tools without a counterpart keep
 * their rein name and arguments (MCP tools are `mcp__<server>__<tool>` in both).
 */

interface ToolDialect {
  claude: string;
  /** rein arguments → Claude Code's tool_input. */
  toClaude: (args: Record<string, unknown>, root: string) => Record<string, unknown>;
  /** A hook's updatedInput in Claude Code's field names → rein arguments (fields rein does not know are kept, so the tool refuses them). */
  fromClaude: (input: Record<string, unknown>, root: string) => Record<string, unknown>;
  /** Claude Code fields that show an updatedInput is written in Claude Code's names. */
  claudeFields: readonly string[];
}

const absolute = (path: unknown, root: string) => (typeof path === 'string' ? resolve(root, path) : path);
/** Back to a workspace-relative path when it lies inside; a path outside stays absolute and the tool refuses it. */
const workspaceRelative = (path: unknown, root: string) => {
  if (typeof path !== 'string' || !isAbsolute(path)) return path;
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
};

/** Renames keys by the table; keys not in it are kept as they are. */
function renamed(input: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [names[key] ?? key, value]));
}

const DIALECTS: Record<string, ToolDialect> = {
  run: {
    claude: 'Bash',
    toClaude: (args) => renamed(args, { background: 'run_in_background' }),
    fromClaude: (input) => renamed(input, { run_in_background: 'background' }),
    claudeFields: ['run_in_background'],
  },
  edit_file: {
    claude: 'Edit',
    toClaude: (args, root) => ({ ...renamed(args, { path: 'file_path', old: 'old_string', new: 'new_string' }), file_path: absolute(args.path, root) }),
    fromClaude: (input, root) => {
      const { replace_all: all, ...rest } = input;
      const args = renamed(rest, { file_path: 'path', old_string: 'old', new_string: 'new' });
      // rein replaces exactly one occurrence; `replace_all: true` is kept so the tool refuses it rather than doing less than asked.
      return { ...args, path: workspaceRelative(args.path, root), ...(all === true ? { replace_all: true } : {}) };
    },
    claudeFields: ['file_path', 'old_string', 'new_string', 'replace_all'],
  },
  read_file: {
    claude: 'Read',
    toClaude: (args, root) => ({ ...renamed(args, { path: 'file_path', start: 'offset' }), file_path: absolute(args.path, root) }),
    fromClaude: (input, root) => {
      const args = renamed(input, { file_path: 'path', offset: 'start' });
      return { ...args, path: workspaceRelative(args.path, root) };
    },
    claudeFields: ['file_path', 'offset'],
  },
  grep: { claude: 'Grep', toClaude: (args) => args, fromClaude: (input) => input, claudeFields: [] },
  update_todo: { claude: 'TodoWrite', toClaude: (args) => args, fromClaude: (input) => input, claudeFields: [] },
};

/** The name a Claude Code hook knows a rein tool by (`run` → `Bash`); others keep theirs. */
export function claudeToolName(tool: string): string {
  return DIALECTS[tool]?.claude ?? tool;
}

/**
 * A call's arguments as Claude Code's `tool_input` (absolute file paths); arguments that are not an object are given as they are.
 *
 * @example claudeToolInput('edit_file', { path: 'a.ts', old: 'x', new: 'y' }, '/w') // { file_path: '/w/a.ts', old_string: 'x', new_string: 'y' }
 */
export function claudeToolInput(tool: string, args: unknown, root: string): unknown {
  const dialect = DIALECTS[tool];
  if (!dialect || !args || typeof args !== 'object' || Array.isArray(args)) return args;
  return dialect.toClaude(args as Record<string, unknown>, root);
}

/**
 * A hook's `updatedInput` as rein arguments: written in Claude Code's field names it is translated, in rein's it is taken as it is.
 *
 * @example reinToolArgs('run', { command: 'npm test', run_in_background: false }, '/w') // { command: 'npm test', background: false }
 */
export function reinToolArgs(tool: string, input: Record<string, unknown>, root: string): Record<string, unknown> {
  const dialect = DIALECTS[tool];
  if (!dialect?.claudeFields.some((field) => field in input)) return input;
  return dialect.fromClaude(input, root);
}
