import { didYouMean } from '../../lib/did-you-mean.js';
import { UsageError } from '../../lib/errors.js';
import type { ApprovalRuleInput, ApprovalVerdict } from './schema.js';

/** Commands that only read: the untrusted preset runs them without asking. */
const READ_ONLY_COMMANDS = ['ls', 'ls *', 'pwd', 'cat *', 'head *', 'tail *', 'wc *', 'git status*', 'git diff*', 'git log*', 'git show*'];

/**
 * The `--approval` presets, after the modes other agents offer: `never`
 * asks about nothing (deny rules still apply), `on-request` asks before
 * commands, background jobs and MCP tools but lets the model read and edit
 * the repository, `untrusted` asks before everything but reading and a few
 * read-only commands.
 */
const APPROVAL_PRESETS = {
  never: { default: 'allow', ask: [], allow: [] },
  'on-request': { default: 'allow', ask: ['run', 'job', 'mcp__*'], allow: [] },
  untrusted: {
    default: 'ask',
    // git diff --output=FILE writes a file: asked, whatever the allow list says.
    ask: ['run(*--output*)'],
    allow: ['read_file', 'grep', 'update_todo', ...READ_ONLY_COMMANDS.map((command) => `run(${command})`)],
  },
} as const satisfies Record<string, { default: ApprovalVerdict; ask: ApprovalRuleInput[]; allow: ApprovalRuleInput[] }>;

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
