import { statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { realKey } from '../../lib/state/state-records.js';
import { parseCommandLine } from '../../rules/approvals/shell-words.js';
import { isInside } from '../../tools/permissions/path-guard.js';

/** A tool call as the model sent it: its tool's name and its raw arguments. */
export interface SentCall {
  name: string;
  arguments: string;
}

/** Tools that read or keep the run's own notes and never write the workspace. */
const READING_TOOLS = new Set(['read_file', 'grep', 'update_todo', 'finish']);

/** Bash builtins that only print or test (a command runs in `bash -c`): no program on PATH is looked up for them. */
const BUILTINS = new Set(['echo', 'printf', 'pwd', 'true', 'false', 'test', '[', 'cd', ':']);

/** Programs with no option that writes a file or runs another program: any words may follow. */
const PLAIN_READERS = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'ls',
  'grep',
  'egrep',
  'fgrep',
  'nl',
  'cut',
  'tr',
  'comm',
  'cmp',
  'diff',
  'stat',
  'du',
  'realpath',
  'readlink',
  'basename',
  'dirname',
]);

const SORT_WRITING = ['output', 'compress-program', 'temporary-directory'];
/** Whether `--word` (with or without `=value`) names `option`, whole or by a start of it. */
const isStartOf = (word: string, option: string) => {
  const name = word.slice(2).split('=')[0]!;
  return name !== '' && option.startsWith(name);
};

/**
 * Programs that read, unless given an option that writes or runs something: the words that make them unsafe. A glob or
 * brace outside quotes could expand into such a word (a file named `-delete`), so with one of them the call is unsafe too.
 */
const GUARDED_READERS: Record<string, (word: string) => boolean> = {
  find: (word) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(word),
  rg: (word) => /^--(pre|hostname-bin)(=|$)/.test(word),
  // -o FILE writes the output; -T and --compress-program write (and run) temporaries. GNU takes any unambiguous start
  // of a long option for it (`--out=x` is `--output=x`).
  sort: (word) => (word.startsWith('--') ? SORT_WRITING.some((option) => isStartOf(word, option)) : /^-[^-]*[oT]/.test(word)),
};

/** Judges calls: whether they can have changed the workspace. */
export interface CallJudge {
  readOnly(calls: readonly SentCall[]): boolean;
  /** Forgets where programs were found: after a step that may have written anything (a program put on PATH). */
  forget(): void;
}

/**
 * Judges whether a step's tool calls can have changed the workspace, so its snapshot may reuse the previous step's
 * tree instead of scanning. It errs towards "may write": a call is read-only only when its tool never writes, or it is
 * a foreground `run` of a command line made of read-only programs alone, joined by `;`, `&&`, `||` or `|`, with no
 * redirection to a file, substitution, variable expansion, leading assignment or background `&`, each program found on
 * PATH outside the workspace (a repository's own `cat` earlier on PATH would be anything). It never allows or refuses a
 * call: a wrong "read-only" only makes one step's snapshot miss that step's writes until the next scan.
 *
 * @example const judge = readOnlyCalls({ workspace, env }); judge.readOnly([{ name: 'run', arguments: '{"command":"cat a | head"}' }]) // true
 */
export function readOnlyCalls(options: { workspace: string; env: NodeJS.ProcessEnv }): CallJudge {
  const workspace = realKey(options.workspace);
  // A shell that starts by reading a file of the workspace (`BASH_ENV`, `ENV`) runs it before any command.
  const shellReadsFiles = options.env.BASH_ENV !== undefined || options.env.ENV !== undefined;
  // PATH's folders as they really are, up to the first one a command could write (relative, or in the workspace).
  const safeDirs: string[] = [];
  for (const dir of (options.env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir) || isInside(workspace, realKey(dir))) break;
    safeDirs.push(dir);
  }
  const found = new Map<string, boolean>();
  const trusted = (program: string) => {
    const known = found.get(program) ?? onSafePath(program, safeDirs);
    found.set(program, known);
    return known;
  };
  const isReadOnly = (call: SentCall): boolean => {
    if (READING_TOOLS.has(call.name)) return true;
    if (call.name !== 'run' || shellReadsFiles) return false;
    const command = foregroundCommand(call.arguments);
    return command !== null && readOnlyCommandLine(command, trusted);
  };
  return { readOnly: (calls) => calls.every(isReadOnly), forget: () => found.clear() };
}

/** The `command` of a `run` call that does not start a background job, or null. */
function foregroundCommand(rawArguments: string): string | null {
  let args: unknown;
  try {
    args = JSON.parse(rawArguments);
  } catch {
    return null;
  }
  if (args === null || typeof args !== 'object') return null;
  const { command, background } = args as { command?: unknown; background?: unknown };
  if (typeof command !== 'string' || (background !== undefined && background !== false)) return null;
  return command;
}

/** Redirections that write nothing in the workspace: an error stream thrown away, or one stream joined to another. */
const HARMLESS_REDIRECTION = /(^|[\s;&|])(?:[12]|&)?>>?(?:\s*\/dev\/null|&[12])(?=$|[\s;&|])/g;

/** Whether a command line only runs read-only programs (see `readOnlyCalls`); `trusted` says a program name resolves safely. */
export function readOnlyCommandLine(command: string, trusted: (program: string) => boolean): boolean {
  const parsed = parseCommandLine(command.replace(HARMLESS_REDIRECTION, '$1'));
  if (parsed.substitutions || parsed.redirections || parsed.expansions || parsed.unterminated) return false;
  if (parsed.commands.length === 0 || parsed.operators.some((operator) => operator === '&' || operator === '(' || operator === ')')) return false;
  return parsed.commands.every((words) => {
    const [program, ...rest] = words;
    if (program === undefined || program.includes('=')) return false;
    if (BUILTINS.has(program)) return true;
    if (!trusted(program)) return false;
    if (PLAIN_READERS.has(program)) return true;
    // An own entry only: a program named after an Object method (`constructor`) is not a guarded reader.
    const unsafe = Object.hasOwn(GUARDED_READERS, program) ? GUARDED_READERS[program] : undefined;
    return unsafe !== undefined && !parsed.globs && !rest.some(unsafe);
  });
}

/** Whether `program` (a bare name) is a file in one of `dirs`: PATH's folders before any a command could write. */
function onSafePath(program: string, dirs: readonly string[]): boolean {
  if (program.includes('/')) return false;
  for (const dir of dirs) {
    try {
      if (statSync(join(dir, program)).isFile()) return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}
