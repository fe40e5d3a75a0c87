import { didYouMean } from '../../lib/did-you-mean.js';
import { UsageError } from '../../lib/errors.js';
import type { ApprovalRuleInput, ApprovalVerdict } from './schema.js';

/**
 * Commands that only read, after Codex's `is_safe_command` list: the untrusted mode runs them without asking. Each is
 * judged by its words, and an option of the code-running table (`find -exec`, `rg --pre`, `sed -i`) is never let
 * through by these rules. Git is not here: even `git status` can run a program the repository's config names (Codex
 * removed git from its list for that reason), so it is asked about like any other command.
 */
const READ_ONLY_COMMANDS = [
  'ls',
  'ls *',
  'pwd',
  'cat *',
  'head *',
  'tail *',
  'wc *',
  'grep *',
  'rg *',
  'find *',
  'nl *',
  'stat *',
  'echo *',
  'which *',
  'whoami',
  'uname *',
  'id',
  'true',
  'false',
  'cut *',
  'tr *',
  'uniq *',
  'rev *',
  'seq *',
  'paste *',
];

/**
 * The `--approval` modes. Codex's names keep Codex's meanings (developers.openai.com/codex, approval modes):
 * `untrusted` runs only known-safe reading commands (and rein's own reading and editing tools, which stay in the
 * workspace) without asking; `on-request` trusts the sandbox: whatever runs inside the run's sandbox goes ahead,
 * MCP tools (a server may run outside it) ask, and with no sandbox commands and jobs ask too; `on-failure` is
 * Codex's deprecated name for `on-request`; `never` never asks. rein's own `ask-commands` asks before every
 * command, job and MCP tool. Deny rules stay in every mode, and the verification command is never asked about.
 */
const APPROVAL_PRESETS = {
  never: { default: 'allow', ask: [], allow: [] },
  'on-request': { default: 'allow', ask: ['mcp__*'], allow: [] },
  'on-failure': { default: 'allow', ask: ['mcp__*'], allow: [] },
  'ask-commands': { default: 'allow', ask: ['run', 'job', 'mcp__*'], allow: [] },
  untrusted: {
    default: 'ask',
    // --output=FILE writes a file: asked, whatever the allow list says.
    ask: ['run(*--output*)'],
    allow: ['read_file', 'grep', 'edit_file', 'update_todo', ...READ_ONLY_COMMANDS.map((command) => `run(${command})`)],
  },
} as const satisfies Record<string, { default: ApprovalVerdict; ask: ApprovalRuleInput[]; allow: ApprovalRuleInput[] }>;

/** The modes that trust the sandbox: without one, commands and jobs ask (see `unsandboxedAsks`). */
const TRUSTS_SANDBOX = new Set(['on-request', 'on-failure']);

/**
 * The ask rules a mode adds when the run has no sandbox: a mode that trusts the sandbox has nothing to trust then.
 *
 * @example unsandboxedAsks('on-request', false) // ['run', 'job']
 */
export function unsandboxedAsks(mode: string | undefined, sandboxed: boolean): ApprovalRuleInput[] {
  return mode !== undefined && TRUSTS_SANDBOX.has(mode) && !sandboxed ? ['run', 'job'] : [];
}

/** A notice for a deprecated mode name, or null. */
export function approvalModeNotice(mode: string | undefined): string | null {
  return mode === 'on-failure' ? '--approval on-failure is deprecated in Codex, where it now means on-request; rein reads it as on-request' : null;
}

type ApprovalPresetName = keyof typeof APPROVAL_PRESETS;
const APPROVAL_PRESET_NAMES = Object.keys(APPROVAL_PRESETS) as ApprovalPresetName[];

/** A preset's rules layer (for `approvals` in the rules), or a usage error naming the presets. */
export function approvalPresetLayer(name: string): { default: ApprovalVerdict; ask: ApprovalRuleInput[]; allow: ApprovalRuleInput[] } {
  if (!(name in APPROVAL_PRESETS))
    throw new UsageError(`unknown --approval "${name}"${didYouMean(name, APPROVAL_PRESET_NAMES)}; one of ${APPROVAL_PRESET_NAMES.join(', ')}`);
  const preset = APPROVAL_PRESETS[name as ApprovalPresetName];
  return { default: preset.default, ask: [...preset.ask], allow: [...preset.allow] };
}

/** `--approval MODE` as a rules layer: the preset's default and ask/allow lists (deny lists and phase rules stay). Empty without a mode. */
export function approvalOverride(mode: string | undefined): { approvals?: ReturnType<typeof approvalPresetLayer> } {
  return mode ? { approvals: approvalPresetLayer(mode) } : {};
}
