import { UsageError } from '../../lib/errors.js';
import { enableLinearRegExp } from '../../lib/linear-regex.js';
import { compileRuleRegex, ruleRegexIssue } from '../../lib/rule-regex.js';

/** One deny rule: what it matches and the reason shown to the model. */
interface DenyRule {
  pattern: RegExp;
  reason: string;
  /** A person's explicit approval of the call lets it run: the rule guards against the model's mistakes, not the person's choices. */
  overridable?: true;
}

// Building blocks. A "command position" is the start of the text or of a
// pipeline stage, list element, subshell or substitution, optionally after
// `VAR=value` assignments and wrappers such as `sudo`, `env`, `xargs`.
const START = String.raw`(?:^|[;&|({}\n!\`]|\$\()\s*`;
const PREFIX = String.raw`(?:\w+=\S*\s+)*(?:(?:sudo|doas|env|command|exec|nohup|time|nice|xargs|builtin)(?:\s+-\S+)*\s+)*`;
const AT_COMMAND = `${START}${PREFIX}(?:\\S*/)?`;
/** A word not glued to other name characters (so `visudo`, `--rm`, `shellcheck` do not count). */
const word = (alternatives: string): string => String.raw`(?<![\w.-])(?:${alternatives})(?![\w-])`;
const SEGMENT = String.raw`[^;&|\n]*`;
const SYSTEM_DIRS = 'bin|boot|dev|etc|home|lib|lib32|lib64|libx32|media|mnt|opt|proc|root|run|sbin|snap|srv|sys|usr|var';
/** `/` (or `/.`, `/..`), `/*`, `~`, `$HOME`, or a top-level system directory, as one whole argument. */
const DANGEROUS_TARGET = String.raw`\s["']?(?:/+(?:\.{1,2}/*)*\*?|~/?\*?|\$\{?HOME\}?/?\*?|/+(?:${SYSTEM_DIRS})/*\*?)["']?(?=$|[\s;&|)])`;
const RECURSIVE_FLAG = String.raw`(?=${SEGMENT}\s(?:-[a-zA-Z]*[rR]|--recursive\b))`;
const SHELLS = '(?:ba|da|z|k|c|tc|fi|a|mk)?sh';
const INTERPRETERS = String.raw`python[\d.]*|node|nodejs|perl|ruby|php|deno|bun|pwsh`;
const DOWNLOADERS = word('curl|wget');
const BLOCK_DEVICES = String.raw`/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|md\d|dm-\d|loop\d|disk\d|mapper/)`;

const DOWNLOAD_RUN = 'running a downloaded script without reviewing it';
/** Marks a rule a person's explicit approval of the call overrides (docs/approvals-and-hooks.md lists them). */
const OVERRIDABLE = { overridable: true } as const;

/**
 * `token`, only its first occurrence within a stretch of `allowed` characters. For a rule whose token is followed by
 * something that spans the same stretch (`.*`, a segment), a match from a later occurrence is also one from the first,
 * so trying only the first keeps the rule linear: the engine no longer rescans the line from every occurrence (a
 * 200 KB command of `curl x | curl x | …` took minutes).
 */
const firstIn = (token: string, allowed: string, starts: string): string => `(?:^|${starts})(?:(?!${token})${allowed})*${token}`;

/**
 * Built-in rules, each with the reason the model is shown. This is a
 * guardrail for honest mistakes, not a security boundary (the sandbox is):
 * it matches words anywhere, so `echo sudo` is blocked too, and a determined
 * rewrite can slip past it. Extend it with `deny` patterns in the rules.
 */
export const DENY_RULES: readonly DenyRule[] = [
  rule(
    `${AT_COMMAND}rm(?=\\s)${RECURSIVE_FLAG}${SEGMENT}${DANGEROUS_TARGET}`,
    'recursive delete of the filesystem root, the home directory or a top-level system directory',
  ),
  rule(
    `${AT_COMMAND}cd${DANGEROUS_TARGET}\\s*(?:&&|;|\\n)\\s*${PREFIX}(?:\\S*/)?rm(?=\\s)${RECURSIVE_FLAG}${SEGMENT}\\s["']?(?:\\*|\\.)["']?(?=$|[\\s;&|)])`,
    'recursive delete of everything in the filesystem root, the home directory or a top-level system directory',
  ),
  rule(String.raw`--no-preserve-root\b`, '--no-preserve-root switches off the protection of /'),
  rule(
    `${AT_COMMAND}find${DANGEROUS_TARGET}${SEGMENT}\\s-(?:delete\\b|exec\\s+(?:\\S*/)?rm\\b)`,
    'find deleting below the filesystem root, the home directory or a top-level system directory',
  ),
  rule(
    `${AT_COMMAND}ch(?:mod|own|grp)(?=\\s)${RECURSIVE_FLAG}${SEGMENT}${DANGEROUS_TARGET}`,
    'recursive permission or owner change on the filesystem root, the home directory or a system directory',
  ),
  rule(word('sudo|doas|pkexec'), 'privilege escalation (sudo, doas, pkexec, su)', OVERRIDABLE),
  rule(`${AT_COMMAND}su(?=\\s|$)`, 'privilege escalation (sudo, doas, pkexec, su)', OVERRIDABLE),
  rule(
    `${AT_COMMAND}git(?:\\s+(?:-[Cc]\\s+\\S+|--?[\\w-]+(?:=\\S+)?))*\\s+push\\b`,
    'git push publishes work outside the workspace; leave pushing to a person',
    OVERRIDABLE,
  ),
  rule(`${firstIn(DOWNLOADERS, '.', '\\n')}.*\\|\\s*${PREFIX}(?:\\S*/)?${word(SHELLS)}`, `piping a download into a shell: ${DOWNLOAD_RUN}`, OVERRIDABLE),
  rule(
    `${firstIn(DOWNLOADERS, '.', '\\n')}.*\\|\\s*${PREFIX}(?:\\S*/)?(?:${INTERPRETERS})(?=\\s*(?:$|[;&|)]|-(?:\\s|$))|\\s+-[ce]\\s.*\\b(?:exec|eval|runInThisContext|Function)\\b)`,
    `piping a download into an interpreter: ${DOWNLOAD_RUN}`,
    OVERRIDABLE,
  ),
  rule(
    `(?:${word(`${SHELLS}|${INTERPRETERS}|source|eval`)}|(?<![\\w.])\\.)(?:\\s+-\\S+)*\\s+["']?(?:<\\(|\\$\\(|\`)\\s*${DOWNLOADERS}`,
    `executing a download through a substitution: ${DOWNLOAD_RUN}`,
    OVERRIDABLE,
  ),
  rule(word(String.raw`mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs`), 'creating or wiping a filesystem'),
  rule(`${firstIn(word('dd'), '[^;&|\\n]', '[;&|\\n]')}${SEGMENT}\\bof=["']?/dev/(?!null\\b|zero\\b|stdout\\b|stderr\\b|fd/)`, 'dd writing to a device'),
  rule(`(?:>|${word('tee')}(?:\\s+-\\S+)*)\\s*["']?${BLOCK_DEVICES}`, 'writing directly to a block device'),
  // Only from the start of a name: from every character inside one, the back-references made it quadratic.
  rule(String.raw`(?<![\w:.])([\w:.]+)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&`, 'fork bomb'),
  rule(`${AT_COMMAND}(?:shutdown|reboot|halt|poweroff|telinit|init\\s+[06])(?![\\w.-])`, 'shutting down or rebooting the machine'),
  rule(
    String.raw`${firstIn(String.raw`\bsystemctl\s`, String.raw`[\s\S]`, '(?!)')}\s*(?:\S+\s+)*(?:poweroff|reboot|halt|kexec|suspend|hibernate)\b`,
    'shutting down or rebooting the machine',
  ),
];

/** How a text is judged: for a call a person approved, or as prose (an MCP argument the user's rules name as prose). */
interface DenyOptions {
  /** The overridable built-in rules do not apply. */
  approvedByPerson?: boolean;
  /** No built-in rule applies (the text is not a command); the rules file's own patterns still do. */
  prose?: boolean;
}

/**
 * Checks a shell command against the built-in rules and extra regex sources
 * (from the rules file). Returns the policy message, or `null` when allowed.
 * Throws `UsageError` for an extra pattern that is not a valid regex.
 *
 * @example checkCommand('sudo make install') // 'Blocked by policy: privilege escalation (sudo, doas, pkexec, su). Choose a safer action.'
 */
export function checkCommand(
  command: string,
  // Stryker disable next-line ArrayDeclaration: a default holding any pattern that no command contains blocks nothing, as [] does
  extraPatterns: readonly string[] = [],
  options: DenyOptions = {},
): string | null {
  const hit = findDenyRule(command, extraPatterns, options);
  return hit === null ? null : `Blocked by policy: ${hit.reason}. Choose a safer action.`;
}

/**
 * The deny rule a command matches, or `null`: the reason is what the trace and
 * the visualizer show for a blocked command.
 *
 * @example findDenyRule('sudo ls')?.reason // 'privilege escalation (sudo, doas, pkexec, su)'
 */
export function findDenyRule(
  command: string,
  // Stryker disable next-line ArrayDeclaration: a default holding any pattern that no command contains blocks nothing, as [] does
  extraPatterns: readonly string[] = [],
  options: DenyOptions = {},
): DenyRule | null {
  if (command.length > MAX_JUDGED_CHARS) return TOO_LONG;
  enableLinearRegExp();
  const normalized = normalizeCommand(command);
  const extra = compileDenyPatterns(extraPatterns);
  // A person's explicit approval is final over the overridable built-ins, and prose is no command; the person's own patterns (extra) still apply.
  const builtIns = options.prose ? [] : options.approvedByPerson ? DENY_RULES.filter((each) => !each.overridable) : DENY_RULES;
  return builtIns.find(({ pattern }) => pattern.test(normalized)) ?? extra.find(({ pattern }) => pattern.test(command) || pattern.test(normalized)) ?? null;
}

/** The longest command the rules are matched against; each rule is linear in it, but a longer one is not judged at all. */
export const MAX_JUDGED_CHARS = 256 * 1024;
const TOO_LONG: DenyRule = {
  // Stryker disable next-line Regex: TOO_LONG is returned for its reason without matching; nothing tests a command against its pattern
  pattern: /(?!)/,
  reason: `the command is longer than ${MAX_JUDGED_CHARS / 1024} KiB, more than rein judges; write long content to a file in parts`,
};

/**
 * Compiles deny patterns from the rules; call it when loading rules so a bad
 * pattern is a usage error before anything runs.
 *
 * @example compileDenyPatterns(['\\bterraform\\s+apply\\b'])
 */
export function compileDenyPatterns(sources: readonly string[]): DenyRule[] {
  return sources.map((source) => {
    const issue = ruleRegexIssue(source);
    if (issue) throw new UsageError(`deny pattern ${JSON.stringify(source)} ${issue}`);
    return { pattern: compileRuleRegex(source), reason: `command matches the deny pattern /${source}/` };
  });
}

/**
 * Undoes the cheapest disguises before matching: line continuations,
 * backslash-escaped letters (`\rm`), empty quotes inside words (`r''m`),
 * quotes around a plain word (`"rm"`, `'/'`) and `$IFS` used as a space.
 */
export function normalizeCommand(command: string): string {
  return command
    .replace(/\\\r?\n/g, '')
    .replace(/\\(?=[\w/~-])/g, '')
    .replace(/(?<=\w)(?:''|"")(?=\w)/g, '')
    .replace(/(["'])([\w./~-]+)\1/g, '$2')
    .replace(/\$\{?IFS\}?/g, ' ')
    .replace(/[ \t]+/g, ' ');
}

function rule(source: string, reason: string, options: { overridable?: true } = {}): DenyRule {
  return { pattern: new RegExp(source), reason, ...options };
}
