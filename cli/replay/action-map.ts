import type { RecordedStep, RecordedTool } from 'rein/testing';

/**
 * How a recorded action becomes one of rein's tools. Two tables, both
 * overridable from a JSON file (`rein replay --map FILE`, entries there are
 * tried before these):
 * - SHELL_RULES: a shell command by what it does (a command that only reads
 *   a file is a read, a search is a grep, `sed -i` or a redirect into a file
 *   is an edit, the rest is `run`);
 * - TOOL_NAMES: a named tool of another agent (`str_replace_editor`,
 *   `bash`, `read_file`, …) onto rein's.
 * An action no entry maps is replayed as `run` and counted as unmapped.
 */

interface ShellRule {
  /** What the rule recognises, for the documentation and the unmapped count. */
  name: string;
  /** Matched against the command after a leading `cd DIR &&` is stripped. */
  match: RegExp;
  tool: RecordedTool;
  /** Arguments in rein's tool schema, from the match. */
  args?: (match: RegExpMatchArray) => Record<string, unknown>;
  /** For an edit: its kind (`create`, `sed`, …). */
  edit?: string;
}

const FILE = String.raw`(?:'([^']+)'|"([^"]+)"|([^\s|;&<>'"]+))`;
const file = (match: RegExpMatchArray, from: number) => match[from] ?? match[from + 1] ?? match[from + 2] ?? '';

const SHELL_RULES: readonly ShellRule[] = [
  { name: 'submit marker', match: /^echo\s+COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\b/, tool: 'finish', args: () => ({ summary: 'submitted' }) },
  {
    name: 'heredoc or redirect into a file',
    match: new RegExp(String.raw`^(?:cat|echo|printf)\b[^|]*?(?:<<-?\s*['"]?\w+['"]?\s*)?>\s*${FILE}`),
    tool: 'edit_file',
    edit: 'create',
    args: (match) => ({ path: file(match, 1), old: '', new: match.input ?? '' }),
  },
  {
    name: 'sed -i',
    match: new RegExp(String.raw`^sed\s+(?:-\w+\s+)*-i\S*\s+.*\s${FILE}\s*$`),
    tool: 'edit_file',
    edit: 'sed',
    args: (match) => ({ path: file(match, 1), old: '', new: match.input ?? '' }),
  },
  {
    name: 'sed -n a,bp FILE',
    match: new RegExp(String.raw`^sed\s+-n\s+['"]?(\d+)(?:,(\d+|\$))?p['"]?\s+${FILE}\s*$`),
    tool: 'read_file',
    args: (match) => ({ path: file(match, 3), start: Number(match[1]) }),
  },
  {
    name: 'nl/cat FILE | sed -n a,bp',
    match: new RegExp(String.raw`^(?:nl|cat)(?:\s+-\w+)*\s+${FILE}\s*\|\s*sed\s+-n\s+['"]?(\d+)(?:,(\d+|\$))?p['"]?\s*$`),
    tool: 'read_file',
    args: (match) => ({ path: file(match, 1), start: Number(match[4]) }),
  },
  {
    name: 'cat/head/tail/nl FILE',
    match: new RegExp(String.raw`^(?:cat|head|tail|nl|less|more)(?:\s+-[\w-]+(?:\s+\d+)?)*\s+${FILE}\s*$`),
    tool: 'read_file',
    args: (match) => ({ path: file(match, 1) }),
  },
  {
    name: 'grep/rg/ag/git grep (first stage)',
    match: /^(?:grep|egrep|fgrep|rg|ag|git\s+grep)\b(?<rest>[^|]*)/,
    tool: 'grep',
    args: (match) => searchArgs(match.groups?.rest ?? ''),
  },
];

/** Named tools of other agents onto rein's; `shell` means: map the command by SHELL_RULES. */
const TOOL_NAMES: Readonly<Record<string, RecordedTool | 'shell'>> = {
  read_file: 'read_file',
  view: 'read_file',
  open: 'read_file',
  grep: 'grep',
  search: 'grep',
  search_file: 'grep',
  search_dir: 'grep',
  find_file: 'run',
  edit_file: 'edit_file',
  write_file: 'edit_file',
  create: 'edit_file',
  edit: 'edit_file',
  str_replace: 'edit_file',
  run: 'shell',
  bash: 'shell',
  shell: 'shell',
  execute: 'shell',
  execute_bash: 'shell',
  terminal: 'shell',
  update_todo: 'update_todo',
  todo_write: 'update_todo',
  finish: 'finish',
  submit: 'finish',
  // Claude Code's tools (as Harbor's ATIF of its runs names them) and Terminus-2's.
  Read: 'read_file',
  Write: 'edit_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Grep: 'grep',
  Bash: 'shell',
  bash_command: 'shell',
  mark_task_complete: 'finish',
};

/** Overrides from a `--map` file: `{ "shell": [{ "match": "^bat (\\S+)$", "tool": "read_file", "path": 1 }], "tools": { "my_tool": "grep" } }`. */
export interface ActionMapOverrides {
  shell?: Array<{ match: string; tool: RecordedTool; path?: number; pattern?: number }>;
  tools?: Record<string, RecordedTool | 'shell'>;
}

export interface ActionMap {
  shell: readonly ShellRule[];
  tools: Readonly<Record<string, RecordedTool | 'shell'>>;
}

export const DEFAULT_ACTION_MAP: ActionMap = { shell: SHELL_RULES, tools: TOOL_NAMES };

const TOOLS: readonly string[] = ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'none'];

/** The default map with a `--map` file's entries tried first; a bad entry is an error naming it. */
export function actionMapWith(overrides: ActionMapOverrides): ActionMap {
  const shell = (overrides.shell ?? []).map((entry, index): ShellRule => {
    if (!TOOLS.includes(entry.tool)) throw new Error(`map shell[${index}]: tool "${entry.tool}" is not one of ${TOOLS.join(', ')}`);
    let match: RegExp;
    try {
      match = new RegExp(entry.match);
    } catch (error) {
      throw new Error(`map shell[${index}]: match is not a regular expression: ${(error as Error).message}`);
    }
    return {
      name: `map shell[${index}] ${entry.match}`,
      match,
      tool: entry.tool,
      args: (found) => ({
        ...(entry.path !== undefined ? { path: found[entry.path] ?? '' } : {}),
        ...(entry.pattern !== undefined ? { pattern: found[entry.pattern] ?? '' } : {}),
        ...(entry.tool === 'run' ? { command: found.input ?? '' } : {}),
      }),
    };
  });
  for (const [name, tool] of Object.entries(overrides.tools ?? {})) {
    if (tool !== 'shell' && !TOOLS.includes(tool)) throw new Error(`map tools.${name}: "${tool}" is not one of shell, ${TOOLS.join(', ')}`);
  }
  return { shell: [...shell, ...SHELL_RULES], tools: { ...TOOL_NAMES, ...overrides.tools } };
}

/** A shell command as rein's tool call: the first rule that matches, else `run`. */
export function mapShell(command: string, map: ActionMap = DEFAULT_ACTION_MAP): Pick<RecordedStep, 'tool' | 'args' | 'edit'> {
  const stripped = command.trim().replace(/^cd\s+\S+\s*&&\s*/, '');
  for (const rule of map.shell) {
    const match = stripped.match(rule.match);
    if (!match) continue;
    const args = rule.args ? rule.args(match) : {};
    return {
      tool: rule.tool,
      args: rule.tool === 'run' && !('command' in args) ? { command: stripped } : args,
      ...(rule.edit ? { edit: { applied: true, kind: rule.edit } } : {}),
    };
  }
  return { tool: 'run', args: { command: stripped } };
}

/** The pattern and path of a grep-like command line (flags skipped, quotes removed). */
function searchArgs(rest: string): Record<string, unknown> {
  const words = [...rest.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => ({ text: m[1] ?? m[2] ?? m[3] ?? '', quoted: m[3] === undefined }));
  const plain = words.filter((word) => word.quoted || !word.text.startsWith('-'));
  const [pattern, path] = plain;
  return { pattern: pattern?.text ?? '', ...(path ? { path: path.text } : {}) };
}
