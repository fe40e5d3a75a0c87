import path from 'node:path';

/**
 * What turns a command that reads into one that runs code or writes files, per program: an allow rule never lets a
 * command with one of these through (it is asked or denied as the default says), however the rule is written. The
 * table is the documented list (docs/approvals-and-hooks.md prints it); each row is attacked in
 * test/security/approval-forgery.test.ts.
 */
interface CodeRunningRow {
  program: string;
  /** Options that run a command, name a program or a file to write (`--opt` matches `--opt=value` too). */
  options: readonly string[];
  /** Options before the subcommand that do (for git: `-c`, `-C`, `--git-dir`, …). */
  globalOptions?: readonly string[];
  /** Subcommands that do (for git). */
  subcommands?: readonly string[];
  /** Why, for the table and for the reason a person sees. */
  why: string;
}

export const CODE_RUNNING_OPTIONS: readonly CodeRunningRow[] = [
  {
    program: 'git',
    globalOptions: ['-c', '--config-env', '--exec-path', '-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix'],
    options: ['--ext-diff', '--textconv', '--output', '-O', '--open-files-in-pager', '--upload-pack', '--receive-pack', '--exec'],
    subcommands: ['difftool', 'mergetool', 'instaweb', 'web--browse'],
    why: 'runs a program it is given or configured (an external diff, a textconv, a tool), reads another repository, or writes a file',
  },
  {
    program: 'find',
    options: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'],
    why: 'runs a command, deletes or writes files',
  },
  { program: 'rg', options: ['--pre', '--hostname-bin'], why: 'runs a program it is given' },
  {
    program: 'sed',
    options: ['-i', '--in-place', '-s', '--separate', '-f', '--file'],
    why: 'edits files in place, or runs a script from a file (a script with `e`, `w` or `W` commands counts too)',
  },
  { program: 'sort', options: ['--compress-program', '-o', '--output'], why: 'runs a compressor or writes a file' },
  {
    program: 'tar',
    options: ['--to-command', '--use-compress-program', '-I', '--checkpoint-action', '--info-script', '--new-volume-script', '-F'],
    why: 'runs a program it is given',
  },
  { program: 'less', options: ['-o', '--log-file', '-O', '--LOG-FILE'], why: 'writes a file' },
  { program: 'man', options: ['-P', '--pager', '-H', '--html'], why: 'runs a pager or browser it is given' },
];

/** Programs that run the command they are given: an allow rule for them would allow anything. */
export const COMMAND_RUNNERS: readonly string[] = [
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'env',
  'xargs',
  'exec',
  'eval',
  'command',
  'builtin',
  'nice',
  'nohup',
  'timeout',
  'stdbuf',
  'time',
  'watch',
  'flock',
  'script',
  'parallel',
  'busybox',
  'sudo',
  'doas',
  'su',
  'chroot',
  'unshare',
  'nsenter',
  'setsid',
  'ionice',
  'taskset',
  'chrt',
  'strace',
  'ltrace',
  'gdb',
  'valgrind',
  'ssh',
  'rsync',
  'source',
  '.',
  'trap',
];

/**
 * Why a simple command's words make it more than the read an allow rule may let through, or null: a program that runs
 * another command, an option or subcommand of the table, a sed script that runs or writes, or an environment assignment
 * before it.
 *
 * The `token` is the word that does it: a rule whose own words include it allows it.
 *
 * @example codeRunningReason(['git', 'difftool', '-x', 'sh']) // { token: 'difftool', reason: 'git difftool runs a program …' }
 */
export function codeRunningReason(words: readonly string[]): { token: string; reason: string } | null {
  const found = codeRunningWord(words);
  return found;
}

function codeRunningWord(words: readonly string[]): { token: string; reason: string } | null {
  if (words.length === 0) return null;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!))
    return { token: words[0]!, reason: `it sets ${words[0]!.split('=')[0]} for the command, which can change what it runs` };
  const program = path.posix.basename(words[0]!);
  if (COMMAND_RUNNERS.includes(program)) return { token: words[0]!, reason: `${program} runs the command it is given` };
  const row = CODE_RUNNING_OPTIONS.find((candidate) => candidate.program === program);
  if (!row) return null;
  const args = words.slice(1);
  const named = (arg: string, name: string) => arg === name || (name.startsWith('--') && arg.startsWith(`${name}=`)) || isClusteredShort(arg, name);
  const subcommandAt = row.subcommands ? firstOperandIndex(args) : -1;
  for (const [index, arg] of args.entries()) {
    if (arg === '--') break;
    const before = subcommandAt === -1 || index < subcommandAt;
    const option = [...row.options, ...(before ? (row.globalOptions ?? []) : [])].find((name) => named(arg, name));
    if (option) return { token: arg, reason: `${program} ${option} ${row.why}` };
  }
  const subcommand = subcommandAt === -1 ? undefined : args[subcommandAt];
  if (subcommand !== undefined && row.subcommands?.includes(subcommand)) return { token: subcommand, reason: `${program} ${subcommand} ${row.why}` };
  const script = program === 'sed' ? sedScriptThatRunsOrWrites(args) : undefined;
  if (script !== undefined) return { token: script, reason: 'sed with an e, w or W command runs a command or writes a file' };
  return null;
}

/** `-abc` holds `-b`; only for one-letter options, and not for a long one. */
function isClusteredShort(arg: string, option: string): boolean {
  return /^-[A-Za-z]$/.test(option) && /^-[A-Za-z]{2,}$/.test(arg) && arg.includes(option[1]!);
}

/** Where the first word that is not an option is: git's subcommand (`git -C x log` → `log`; `-C` and `-c` take a value). */
function firstOperandIndex(args: readonly string[]): number {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (['-C', '-c', '--namespace', '--super-prefix', '--config-env', '--git-dir', '--work-tree', '--exec-path'].includes(arg)) {
      index++;
      continue;
    }
    if (!arg.startsWith('-')) return index;
  }
  return -1;
}

/**
 * The first of sed's script words that holds a command that runs (`e`, `s///e`) or writes (`w`, `W`, `s///w`). It
 * looks for the letters where a command or an `s` flag can stand, erring towards yes: a read-only script rarely has
 * them.
 */
function sedScriptThatRunsOrWrites(args: readonly string[]): string | undefined {
  return args
    .filter((arg) => !arg.startsWith('-'))
    .find((script) => /(^|[;{}\n!\s\d$/])\s*[ewW](\s|$|;)/.test(script) || /s(.).*?\1.*?\1[gpIiMm0-9]*[ewW]/.test(script));
}
