/**
 * `rein/rules`: The rules as data: the schema, presets, phases, stall rules, endpoint profiles, approvals and hooks policy, trust.
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */

export { CODE_RUNNING_OPTIONS, COMMAND_RUNNERS } from './approvals/code-running.js';
export { describeApprovals } from './approvals/describe.js';
export type { PendingApproval } from './approvals/pending.js';
export { approvalModeNotice, approvalOverride, unsandboxedAsks } from './approvals/presets.js';
export { REMEMBER_SCOPES, type RememberScope } from './approvals/remembered.js';
export { diffRules } from './diff.js';
export { ENDPOINT_PROFILES } from './endpoint-profiles.js';
export { hasHooks } from './hooks/schema.js';
export { mcpServerSchema } from './mcp-servers.js';
export { mergeRules, type Plain } from './merge.js';
export { phaseRuleSchema } from './phases.js';
export { findPreset, PRESETS, presetNames, requirePreset } from './presets.js';
export { defaultRules, END_TARGETS, enabledPhases, type Price, phaseNames, phaseRule, type Rules, type RulesInput, rulesSchema } from './schema.js';
export { PROGRESS_KINDS, STALL_RULE_NAMES, STALL_RULES } from './stall-rules.js';
export { phaseAllowsTool } from './tool-placement.js';
export {
  clearUntrustedMarks,
  fingerprintRules,
  forgetRemembered,
  isTrustedMcpConfig,
  listRemembered,
  listTrustedHooks,
  listTrustedMcpConfigs,
  listTrustedRulesFiles,
  looseningsOf,
  mcpConfigHash,
  revokeHooks,
  revokeMcpConfigs,
  revokeRulesFiles,
  TRUST_KINDS,
  trustedRulesPath,
  trustHooks,
  trustMcpConfig,
  trustRulesFile,
} from './trust/index.js';
